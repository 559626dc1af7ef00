/* Prints the file named by argv[1], opened and read through io_uring: no open/read syscall of
   the process names the file (the red team's round 3, docs/isolation.md). */
#include <fcntl.h>
#include <linux/io_uring.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static int ring_fd;
static unsigned *sq_tail, *sq_mask, *sq_array, *cq_head, *cq_mask;
static struct io_uring_sqe *sqes;
static struct io_uring_cqe *cqes;

static int submit(struct io_uring_sqe *sqe) {
    unsigned tail = *sq_tail, slot = tail & *sq_mask;
    sqes[slot] = *sqe;
    sq_array[slot] = slot;
    __atomic_store_n(sq_tail, tail + 1, __ATOMIC_RELEASE);
    syscall(__NR_io_uring_enter, ring_fd, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0);
    unsigned head = *cq_head;
    int res = cqes[head & *cq_mask].res;
    __atomic_store_n(cq_head, head + 1, __ATOMIC_RELEASE);
    return res;
}

int main(int argc, char **argv) {
    struct io_uring_params p;
    memset(&p, 0, sizeof p);
    ring_fd = syscall(__NR_io_uring_setup, 4, &p);
    if (argc < 2 || ring_fd < 0) return 2;
    int rw = PROT_READ | PROT_WRITE, sh = MAP_SHARED | MAP_POPULATE;
    char *sq = mmap(0, p.sq_off.array + p.sq_entries * 4, rw, sh, ring_fd, IORING_OFF_SQ_RING);
    char *cq = mmap(0, p.cq_off.cqes + p.cq_entries * sizeof *cqes, rw, sh, ring_fd,
                    IORING_OFF_CQ_RING);
    sqes = mmap(0, p.sq_entries * sizeof *sqes, rw, sh, ring_fd, IORING_OFF_SQES);
    sq_tail = (unsigned *)(sq + p.sq_off.tail);
    sq_mask = (unsigned *)(sq + p.sq_off.ring_mask);
    sq_array = (unsigned *)(sq + p.sq_off.array);
    cq_head = (unsigned *)(cq + p.cq_off.head);
    cq_mask = (unsigned *)(cq + p.cq_off.ring_mask);
    cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
    struct io_uring_sqe sqe;
    memset(&sqe, 0, sizeof sqe);
    sqe.opcode = IORING_OP_OPENAT;
    sqe.fd = AT_FDCWD;
    sqe.addr = (unsigned long)argv[1];
    sqe.open_flags = O_RDONLY;
    int fd = submit(&sqe);
    if (fd < 0) return 1;
    static char buf[4096];
    memset(&sqe, 0, sizeof sqe);
    sqe.opcode = IORING_OP_READ;
    sqe.fd = fd;
    sqe.addr = (unsigned long)buf;
    sqe.len = sizeof buf;
    int n = submit(&sqe);
    if (n > 0) write(1, buf, n);
    return 0;
}
