// SPDX-License-Identifier: GPL-2.0
/* The eBPF tracer's loader: loads trace.bpf.c, starts the command it is given (the jail, or the
 * agent CLI), follows it and every process it makes, and writes the log in strace's line format
 * (evaluator/sandbox/strace_log.py reads it), beginning at the exec of the program `--start`
 * names so the jail's own set-up is not in it. Pids are printed in that program's pid namespace,
 * as strace inside the jail prints them. A record the kernel could not send, or a path the
 * program could not walk whole, becomes a line the reader cannot parse: the trace is then
 * incomplete, never silently short.
 *
 *   agentic-eval-ebpf-trace -o LOG --start PATH -- COMMAND...
 *   agentic-eval-ebpf-trace --probe        (loads and attaches, exits 0 when it can trace here)
 *   agentic-eval-ebpf-trace --serve SOCKET (loads once, traces the attempts `--attach` starts)
 *   agentic-eval-ebpf-trace --attach SOCKET -o LOG --start PATH -- COMMAND...
 *
 * `--serve`: one loader for many attempts (docs/benchmarks.md, "One loader per run"): the
 * program is verified and the ring buffer made once. Each `--attach` (a small client the runner
 * starts in place of a loader) asks it over SOCKET to follow the client's own pid under a new
 * attempt id, forks COMMAND, tells the server when COMMAND ended, and exits as COMMAND did once
 * the server has written that attempt's log whole. Every record carries its task's attempt id
 * (the followed map's value, inherited at fork), and the server writes it to that attempt's log
 * only. The server ends when its stdin closes (its evaluator ended) or on a signal; a client
 * whose server went away kills COMMAND and marks its log incomplete.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "trace.h"
#include "trace.skel.h"

#define AT_FDCWD_ -100
#define POLL_MS 20
#define CHECK_ROUNDS 25

struct pending {
	struct rec_enter *enter;
	char **argv;
	unsigned int *argv_len;
	unsigned int *argv_state;
	unsigned int nargs, cap;
	int argv_cut;
	/* Names read again after the call (`REC_NAMES`): they replace slots 0 and 1. */
	unsigned char *name[2];
	unsigned int name_len[2], name_state[2];
	/* The new image's argument area (`REC_ARGAREA`): the argv strings entry could not read. */
	char *area;
	unsigned int area_len;
	/* An exec a thread began, taken over by its process's first pid: its line was written
	 * with `<pid changed to ...>`, its result is written as resumed. */
	int resumed;
};

static FILE *out;
static struct pending **pend;
static unsigned int *in_tree;  /* per tid: the attempt id whose log it is in, 0: none */
static unsigned int *last_child;  /* per parent tid: its last child's pid at the start level */
/* Per tid: its pid-namespace level and its pid at each level, to name a process another one
 * reaches (`ptrace`, `process_vm_*`) from a nested namespace in the log's numbering, as
 * strace's `--decode-pids=pidns` does. */
struct levels {
	unsigned int level;
	unsigned int nr[LEVELS];
};
static struct levels *levels;
static long pid_max;
/* One attempt: its log and where it stands. */
struct attempt {
	unsigned int id;            /* 0: a free slot */
	FILE *log;
	int started;
	unsigned int start_level;
	char start_path[PATH_MAX];
	char start_real[PATH_MAX];
	long alive;
	unsigned long long lost_seen;
	int conn;                   /* --serve: the client's socket */
	unsigned int client;        /* --serve: the client's pid (followed, never in the log) */
	int reaped;                 /* COMMAND ended */
	int stop;                   /* kill what it follows */
	struct timespec killed_at;
};
static struct attempt slots[SLOTS];
static struct attempt *A;  /* the attempt whose record is being written */
static unsigned long long unknown_lost_seen;
static struct trace *skel;
static volatile sig_atomic_t stopping;

static void on_signal(int sig) { stopping = sig; }

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list args)
{
	return level == LIBBPF_WARN ? vfprintf(stderr, fmt, args) : 0;
}

static unsigned int nspid(const struct rec_head *h)
{
	return h->level >= A->start_level && A->start_level < LEVELS ? h->nr[A->start_level] : h->tid;
}

/* A C string as strace prints it. */
static void put_quoted(const unsigned char *s, size_t n, int cut)
{
	fputc('"', out);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = s[i];
		switch (c) {
		case '"': fputs("\\\"", out); break;
		case '\\': fputs("\\\\", out); break;
		case '\n': fputs("\\n", out); break;
		case '\t': fputs("\\t", out); break;
		case '\r': fputs("\\r", out); break;
		case '\v': fputs("\\v", out); break;
		case '\f': fputs("\\f", out); break;
		default:
			if (c >= 0x20 && c < 0x7f)
				fputc(c, out);
			else
				fprintf(out, "\\%03o", c);
		}
	}
	fputc('"', out);
	if (cut)
		fputs("...", out);
}

static const unsigned char *slot(const struct rec_enter *e, int i)
{
	size_t off = 0;
	for (int k = 0; k < i; k++)
		off += e->len[k];
	return e->data + off;
}

/* Slot i as a string argument, or the pointer when it could not be read. */
static const struct pending *cur;  /* the call being written */

static void put_name(const struct rec_enter *e, int i, unsigned long ptr)
{
	if (i < 2 && cur && cur->name[i] && cur->name_state[i] != STR_FAULT) {
		unsigned int n = cur->name_len[i] ? cur->name_len[i] - 1 : 0;
		put_quoted(cur->name[i], n, cur->name_state[i] == STR_CUT);
		return;
	}
	if (e->state[i] == STR_FAULT || e->state[i] == STR_NONE) {
		if (ptr)
			fprintf(out, "%#lx", ptr);
		else
			fputs("NULL", out);
		return;
	}
	size_t n = e->len[i] ? e->len[i] - 1 : 0;
	put_quoted(slot(e, i), n, e->state[i] == STR_CUT);
}

/* A walked path (components leaf first, each NUL-terminated) as `/a/b`. Returns 0 when whole. */
static int put_walked(const unsigned char *data, unsigned int len, unsigned int state)
{
	const char *comps[STR_MAX / 2];
	int n = 0;
	unsigned int i = 0;
	if (state == STR_ANON) {
		fputs("anon_inode", out);
		return 0;
	}
	while (i < len && n < (int)(sizeof(comps) / sizeof(comps[0]))) {
		comps[n++] = (const char *)data + i;
		i += strnlen((const char *)data + i, len - i) + 1;
	}
	if (n == 0)
		fputc('/', out);
	for (int k = n - 1; k >= 0; k--)
		fprintf(out, "/%s", comps[k]);
	return state == STR_OK ? 0 : -1;
}

static int bad;  /* the line being written lacks a fact the reader needs */

static void put_fd(const struct rec_enter *e, long fd, int dirslot)
{
	if ((int)fd == AT_FDCWD_)
		fputs("AT_FDCWD", out);
	else
		fprintf(out, "%d", (int)fd);
	if (e->state[dirslot] == STR_NONE)
		return;
	if (e->state[dirslot] == STR_FAULT)
		return;  /* a descriptor that was not open: the call fails, as in strace's log */
	fputc('<', out);
	if (put_walked(slot(e, dirslot), e->len[dirslot], e->state[dirslot]))
		bad = 1;
	fputc('>', out);
}

struct flag { unsigned long bit; const char *name; };

static void put_flags(unsigned long v, const struct flag *f, const char *zero)
{
	int any = 0;
	for (; f->name; f++)
		if (f->bit && (v & f->bit) == f->bit) {
			fprintf(out, "%s%s", any ? "|" : "", f->name);
			v &= ~f->bit;
			any = 1;
		}
	if (v)
		fprintf(out, "%s%#lx", any ? "|" : "", v);
	else if (!any)
		fputs(zero, out);
}

static const struct flag open_flags[] = {
	{020000000 | 0200000, "O_TMPFILE"}, {0100, "O_CREAT"}, {0200, "O_EXCL"}, {0400, "O_NOCTTY"},
	{01000, "O_TRUNC"}, {02000, "O_APPEND"}, {04000, "O_NONBLOCK"}, {04010000, "O_SYNC"},
	{010000, "O_DSYNC"}, {020000, "O_ASYNC"}, {040000, "O_DIRECT"}, {0100000, "O_LARGEFILE"},
	{0200000, "O_DIRECTORY"}, {0400000, "O_NOFOLLOW"}, {01000000, "O_NOATIME"},
	{02000000, "O_CLOEXEC"}, {010000000, "O_PATH"}, {0, NULL}};

static const struct flag prot_flags[] = {
	{1, "PROT_READ"}, {2, "PROT_WRITE"}, {4, "PROT_EXEC"}, {0, NULL}};
static const struct flag map_flags[] = {
	{1, "MAP_SHARED"}, {2, "MAP_PRIVATE"}, {0x10, "MAP_FIXED"}, {0x20, "MAP_ANONYMOUS"},
	{0x800, "MAP_DENYWRITE"}, {0x100000, "MAP_FIXED_NOREPLACE"}, {0, NULL}};

static void put_open_flags(unsigned long v)
{
	static const char *mode[] = {"O_RDONLY", "O_WRONLY", "O_RDWR", "O_ACCMODE"};
	fputs(mode[v & 3], out);
	v &= ~3UL;
	if (v) {
		fputc('|', out);
		put_flags(v, open_flags, "0");
	}
}

static const struct flag clone_flags[] = {
	{0x100, "CLONE_VM"}, {0x200, "CLONE_FS"}, {0x400, "CLONE_FILES"}, {0x800, "CLONE_SIGHAND"},
	{0x1000, "CLONE_PIDFD"}, {0x2000, "CLONE_PTRACE"}, {0x4000, "CLONE_VFORK"},
	{0x8000, "CLONE_PARENT"}, {0x10000, "CLONE_THREAD"}, {0x20000, "CLONE_NEWNS"},
	{0x40000, "CLONE_SYSVSEM"}, {0x80000, "CLONE_SETTLS"}, {0x100000, "CLONE_PARENT_SETTID"},
	{0x200000, "CLONE_CHILD_CLEARTID"}, {0x400000, "CLONE_DETACHED"},
	{0x800000, "CLONE_UNTRACED"}, {0x1000000, "CLONE_CHILD_SETTID"},
	{0x2000000, "CLONE_NEWCGROUP"}, {0x4000000, "CLONE_NEWUTS"}, {0x8000000, "CLONE_NEWIPC"},
	{0x10000000, "CLONE_NEWUSER"}, {0x20000000, "CLONE_NEWPID"}, {0x40000000, "CLONE_NEWNET"},
	{0x80000000UL, "CLONE_IO"}, {0x100000000ULL, "CLONE_CLEAR_SIGHAND"},
	{0x200000000ULL, "CLONE_INTO_CGROUP"}, {0, NULL}};

static void put_clone_flags(unsigned long v, int with_signal)
{
	unsigned long sig = with_signal ? v & 0xff : 0;
	v &= with_signal ? ~0xffUL : ~0UL;
	put_flags(v, clone_flags, "0");
	if (sig) {
		const char *abbrev = sigabbrev_np((int)sig);
		if (abbrev)
			fprintf(out, "|SIG%s", abbrev);
		else
			fprintf(out, "|%lu", sig);
	}
}

static const char *family(unsigned long f)
{
	switch (f) {
	case 1: return "AF_UNIX";
	case 2: return "AF_INET";
	case 10: return "AF_INET6";
	case 16: return "AF_NETLINK";
	case 17: return "AF_PACKET";
	}
	return NULL;
}

static void put_family(unsigned long f)
{
	const char *name = family(f);
	if (name)
		fputs(name, out);
	else
		fprintf(out, "%lu /* AF_??? */", f);
}

static void put_socktype(unsigned long t)
{
	static const char *types[] = {NULL, "SOCK_STREAM", "SOCK_DGRAM", "SOCK_RAW", "SOCK_RDM",
				      "SOCK_SEQPACKET", "SOCK_DCCP", NULL, NULL, NULL, "SOCK_PACKET"};
	unsigned long base = t & 0xf;
	if (base < 11 && types[base])
		fputs(types[base], out);
	else
		fprintf(out, "%#lx", base);
	if (t & 04000)
		fputs("|SOCK_NONBLOCK", out);
	if (t & 02000000)
		fputs("|SOCK_CLOEXEC", out);
}

static void put_sockaddr(const struct rec_enter *e, unsigned long ptr)
{
	const unsigned char *sa = slot(e, NSTR);
	unsigned int n = e->sockaddr_len;
	if (n < 2) {
		fprintf(out, "%#lx", ptr);
		return;
	}
	unsigned int fam = sa[0] | sa[1] << 8;
	fputs("{sa_family=", out);
	put_family(fam);
	if (fam == 1) {
		if (n > 2 && sa[2] == 0) {
			fputs(", sun_path=@", out);
			put_quoted(sa + 3, n - 3, 0);
		} else if (n > 2) {
			fputs(", sun_path=", out);
			put_quoted(sa + 2, strnlen((const char *)sa + 2, n - 2), 0);
		}
	} else if (fam == 2 && n >= 8) {
		char addr[INET_ADDRSTRLEN];
		inet_ntop(AF_INET, sa + 4, addr, sizeof(addr));
		fprintf(out, ", sin_port=htons(%u), sin_addr=inet_addr(\"%s\")", sa[2] << 8 | sa[3], addr);
	} else if (fam == 10 && n >= 24) {
		char addr[INET6_ADDRSTRLEN];
		inet_ntop(AF_INET6, sa + 8, addr, sizeof(addr));
		fprintf(out, ", sin6_port=htons(%u), sin6_flowinfo=htonl(0), inet_pton(AF_INET6, \"%s\", &sin6_addr)",
			sa[2] << 8 | sa[3], addr);
	}
	fputc('}', out);
}

/* The argument area's strings, for argv strings the exec's entry could not read: the area
 * holds the new image's argv, whose last ones are the exec's last ones (a script's interpreter
 * puts its own first). */
static const char *from_area(const struct pending *p, unsigned int i)
{
	const char *strs[ARGS_MAX];
	unsigned int n = 0, off = 0;
	if (!p->area)
		return NULL;
	while (off < p->area_len && n < ARGS_MAX) {
		strs[n++] = p->area + off;
		off += strnlen(p->area + off, p->area_len - off) + 1;
	}
	if (n < p->nargs - i || (i == 0 && n != p->nargs))
		return NULL;
	return strs[n - (p->nargs - i)];
}

static void put_argv(const struct pending *p)
{
	fputc('[', out);
	for (unsigned int i = 0; i < p->nargs; i++) {
		if (i)
			fputs(", ", out);
		if (p->argv_state[i] == STR_FAULT) {
			const char *s = from_area(p, i);
			if (s)
				put_quoted((const unsigned char *)s, strlen(s), 0);
			else {
				fputs("0x? /* unread */", out);
				bad = 1;
			}
		} else
			put_quoted((unsigned char *)p->argv[i], p->argv_len[i] ? p->argv_len[i] - 1 : 0,
				   p->argv_state[i] == STR_CUT);
	}
	if (p->argv_cut)
		fputs(p->nargs ? ", ..." : "...", out);
	fputc(']', out);
}

static const char *syscall_name(long id)
{
	switch (id) {
	case 9: return "mmap";
	case 2: return "open"; case 257: return "openat"; case 437: return "openat2";
	case 85: return "creat"; case 59: return "execve"; case 322: return "execveat";
	case 80: return "chdir"; case 81: return "fchdir"; case 82: return "rename";
	case 264: return "renameat"; case 316: return "renameat2"; case 87: return "unlink";
	case 263: return "unlinkat"; case 84: return "rmdir"; case 83: return "mkdir";
	case 258: return "mkdirat"; case 86: return "link"; case 265: return "linkat";
	case 88: return "symlink"; case 266: return "symlinkat"; case 76: return "truncate";
	case 133: return "mknod"; case 259: return "mknodat"; case 425: return "io_uring_setup";
	case 304: return "open_by_handle_at"; case 49: return "bind"; case 42: return "connect";
	case 41: return "socket"; case 53: return "socketpair"; case 317: return "seccomp";
	case 157: return "prctl"; case 165: return "mount"; case 166: return "umount2";
	case 155: return "pivot_root"; case 429: return "move_mount"; case 428: return "open_tree";
	case 432: return "fsmount"; case 442: return "mount_setattr"; case 161: return "chroot";
	case 101: return "ptrace"; case 310: return "process_vm_readv";
	case 311: return "process_vm_writev"; case 438: return "pidfd_getfd"; case 56: return "clone";
	case 435: return "clone3"; case 57: return "fork"; case 58: return "vfork";
	}
	return NULL;
}

/* A pid the caller (at `level`) named, with its number in the log's namespace when they differ. */
static void put_pid(long pid, unsigned int level)
{
	fprintf(out, "%d", (int)pid);
	if (level == A->start_level || level >= LEVELS || pid <= 0)
		return;
	for (long tid = 1; tid < pid_max; tid++) {
		const struct levels *l = &levels[tid];
		if (in_tree[tid] == A->id && l->level >= level && l->nr[level] == (unsigned int)pid) {
			fprintf(out, " /* %u in strace's PID NS */", l->nr[A->start_level]);
			return;
		}
	}
}

static void put_args(const struct pending *p)
{
	const struct rec_enter *e = p->enter;
	const unsigned long *a = e->args;
	switch (e->id) {
	case 2: put_name(e, 0, a[0]); fputs(", ", out); put_open_flags(a[1]); fprintf(out, ", %#lo", a[2]); break;
	case 85: put_name(e, 0, a[0]); fprintf(out, ", %#lo", a[1]); break;
	case 257: put_fd(e, a[0], 2); fputs(", ", out); put_name(e, 0, a[1]); fputs(", ", out);
		put_open_flags(a[2]); fprintf(out, ", %#lo", a[3]); break;
	case 437: put_fd(e, a[0], 2); fputs(", ", out); put_name(e, 0, a[1]); fputs(", {flags=", out);
		put_open_flags(e->extra); fprintf(out, "}, %lu", a[3]); break;
	case 59: put_name(e, 0, a[0]); fputs(", ", out); put_argv(p); fprintf(out, ", %#lx /* ? vars */", a[2]); break;
	case 322: put_fd(e, a[0], 2); fputs(", ", out); put_name(e, 0, a[1]); fputs(", ", out); put_argv(p);
		fprintf(out, ", %#lx, %#lx", a[3], a[4]); break;
	case 80: case 87: case 84: case 161: put_name(e, 0, a[0]); break;
	case 81: put_fd(e, a[0], 2); break;
	case 9:
		if (a[0])
			fprintf(out, "%#lx, %lu, ", a[0], a[1]);
		else
			fprintf(out, "NULL, %lu, ", a[1]);
		put_flags(a[2], prot_flags, "PROT_NONE");
		fputs(", ", out);
		put_flags(a[3], map_flags, "0");
		fputs(", ", out);
		put_fd(e, a[4], 2);
		fprintf(out, ", %#lx", a[5]);
		break;
	case 83: put_name(e, 0, a[0]); fprintf(out, ", %#lo", a[1]); break;
	case 76: put_name(e, 0, a[0]); fprintf(out, ", %ld", (long)a[1]); break;
	case 133: put_name(e, 0, a[0]); fprintf(out, ", %#lo, %lu", a[1], a[2]); break;
	case 166: put_name(e, 0, a[0]); fprintf(out, ", %lu", a[1]); break;
	case 82: case 86: case 88: case 155: put_name(e, 0, a[0]); fputs(", ", out); put_name(e, 1, a[1]); break;
	case 263: put_fd(e, a[0], 2); fputs(", ", out); put_name(e, 0, a[1]);
		fputs(a[2] & 0x200 ? ", AT_REMOVEDIR" : ", 0", out); break;
	case 258: put_fd(e, a[0], 2); fputs(", ", out); put_name(e, 0, a[1]); fprintf(out, ", %#lo", a[2]); break;
	case 259: put_fd(e, a[0], 2); fputs(", ", out); put_name(e, 0, a[1]); fprintf(out, ", %#lo, %lu", a[2], a[3]); break;
	case 428: case 442: put_fd(e, a[0], 2); fputs(", ", out); put_name(e, 0, a[1]); fprintf(out, ", %#lx", a[2]); break;
	case 264: case 316: case 265: case 429:
		put_fd(e, a[0], 2); fputs(", ", out); put_name(e, 0, a[1]); fputs(", ", out);
		put_fd(e, a[2], 3); fputs(", ", out); put_name(e, 1, a[3]);
		if (e->id == 316) {
			static const struct flag rf[] = {{1, "RENAME_NOREPLACE"}, {2, "RENAME_EXCHANGE"}, {4, "RENAME_WHITEOUT"}, {0, NULL}};
			fputs(", ", out); put_flags(a[4], rf, "0");
		} else if (e->id == 265) {
			static const struct flag lf[] = {{0x400, "AT_SYMLINK_FOLLOW"}, {0x1000, "AT_EMPTY_PATH"}, {0, NULL}};
			fputs(", ", out); put_flags(a[4], lf, "0");
		} else if (e->id == 429) {
			fprintf(out, ", %#lx", a[4]);
		}
		break;
	case 266: put_name(e, 0, a[0]); fputs(", ", out); put_fd(e, a[1], 3); fputs(", ", out); put_name(e, 1, a[2]); break;
	case 165: put_name(e, 0, a[0]); fputs(", ", out); put_name(e, 1, a[1]); fprintf(out, ", %#lx, %#lx, %#lx", a[2], a[3], a[4]); break;
	case 425: fprintf(out, "%lu, %#lx", a[0], a[1]); break;
	case 304: fprintf(out, "%d, %#lx, %#lx", (int)a[0], a[1], a[2]); break;
	case 49: case 42: fprintf(out, "%d, ", (int)a[0]); put_sockaddr(e, a[1]); fprintf(out, ", %lu", a[2]); break;
	case 41: case 53: put_family(a[0]); fputs(", ", out); put_socktype(a[1]); fprintf(out, ", %lu", a[2]);
		if (e->id == 53) fprintf(out, ", %#lx", a[3]);
		break;
	case 317: {
		static const char *ops[] = {"SECCOMP_SET_MODE_STRICT", "SECCOMP_SET_MODE_FILTER",
					    "SECCOMP_GET_ACTION_AVAIL", "SECCOMP_GET_NOTIF_SIZES"};
		if (a[0] < 4) fputs(ops[a[0]], out); else fprintf(out, "%#lx", a[0]);
		fprintf(out, ", %lu, %#lx", a[1], a[2]);
		break;
	}
	case 157:
		if (a[0] == 22) fputs("PR_SET_SECCOMP", out); else fprintf(out, "%#lx /* PR_??? */", a[0]);
		fprintf(out, ", %#lx, %#lx, %#lx, %#lx", a[1], a[2], a[3], a[4]);
		break;
	case 432: fprintf(out, "%d, %lu, %lu", (int)a[0], a[1], a[2]); break;
	case 101:
		if (a[0] == 0) fputs("PTRACE_TRACEME", out);
		else if (a[0] == 16) fputs("PTRACE_ATTACH", out);
		else if (a[0] == 0x4206) fputs("PTRACE_SEIZE", out);
		else fprintf(out, "%#lx /* PTRACE_??? */", a[0]);
		fputs(", ", out); put_pid((long)(int)a[1], e->h.level);
		fprintf(out, ", %#lx, %#lx", a[2], a[3]);
		break;
	case 310: case 311: put_pid((long)(int)a[0], e->h.level);
		fprintf(out, ", %#lx, %lu, %#lx, %lu, %lu", a[1], a[2], a[3], a[4], a[5]); break;
	case 438: fprintf(out, "%d, %d, %lu", (int)a[0], (int)a[1], a[2]); break;
	case 56: fprintf(out, "child_stack=%#lx, flags=", a[1]); put_clone_flags(a[0], 1); break;
	case 435: fputs("{flags=", out); put_clone_flags(e->extra, 0); fprintf(out, ", ...}, %lu", a[1]); break;
	case 57: case 58: break;
	}
}

static void put_result(long ret, const struct rec_exit *x, const struct pending *p)
{
	long id = p->enter->id;
	if (ret < 0 && ret > -4096) {
		const char *name = strerrorname_np((int)-ret);
		if (name)
			fprintf(out, " = -1 %s (%s)\n", name, strerror((int)-ret));
		else
			fprintf(out, " = -1 E%ld\n", -ret);
		return;
	}
	if ((id == 56 || id == 435 || id == 57 || id == 58) && ret > 0) {
		unsigned int child = last_child[x->h.tid];
		fprintf(out, " = %u\n", child ? child : (unsigned int)ret);
		return;
	}
	if (id == 9) {
		fprintf(out, " = %#lx\n", ret);  /* an address, as strace writes it */
		return;
	}
	fprintf(out, " = %ld", ret);
	if (x->state != STR_NONE) {
		fputc('<', out);
		if (put_walked(x->data, x->len, x->state))
			bad = 1;
		fputc('>', out);
	}
	fputc('\n', out);
}

static void free_pending(unsigned int tid)
{
	struct pending *p = pend[tid];
	if (!p)
		return;
	for (unsigned int i = 0; i < p->nargs; i++)
		free(p->argv[i]);
	free(p->argv);
	free(p->argv_len);
	free(p->argv_state);
	free(p->name[0]);
	free(p->name[1]);
	free(p->area);
	free(p->enter);
	free(p);
	pend[tid] = NULL;
}

/* The line, written to a memory buffer first: one with a missing fact (`bad`) is written so
 * that the reader counts it unreadable. `cut`: what ends an unfinished call's line (strace's
 * `<unfinished ...>`, or an exec's `<pid changed to P ...>`); a resumed call (`p->resumed`)
 * is written as strace's `<... name resumed>` and its result. */
static void emit_as(unsigned int pid, const struct pending *p, const struct rec_exit *x,
		    const char *cut)
{
	char *text = NULL;
	size_t size = 0;
	FILE *real = out;
	out = open_memstream(&text, &size);
	bad = 0;
	cur = p;
	if (x && p->resumed) {
		fprintf(out, "<... %s resumed>)", syscall_name(p->enter->id));
		put_result(x->ret, x, p);
	} else {
		fprintf(out, "%s(", syscall_name(p->enter->id));
		put_args(p);
		if (x) {
			fputc(')', out);
			put_result(x->ret, x, p);
		} else {
			fprintf(out, " %s\n", cut ? cut : "<unfinished ...>");
		}
	}
	fclose(out);
	out = real;
	cur = NULL;
	fprintf(out, "%u %s%s", pid, bad ? "?! fact missing: " : "", text);
	free(text);
}

static void emit(unsigned int pid, const struct pending *p, const struct rec_exit *x)
{
	emit_as(pid, p, x, NULL);
}

static int matches_start(const struct pending *p)
{
	char real[PATH_MAX];
	const struct rec_enter *e = p->enter;
	const char *name;
	if (p->name[0] && p->name_state[0] == STR_OK)
		name = (const char *)p->name[0];
	else if (e->state[0] == STR_OK)
		name = (const char *)slot(e, 0);
	else
		return 0;
	if (strcmp(name, A->start_path) == 0)
		return 1;
	return realpath(name, real) && strcmp(real, A->start_real) == 0;
}

static void set_root(const struct rec_exit *x)
{
	struct trace_cfg c = {.root_dentry = x->root_dentry, .root_mnt = x->root_mnt};
	unsigned int slot = A->id % SLOTS;
	bpf_map_update_elem(bpf_map__fd(skel->maps.cfg), &slot, &c, BPF_ANY);
}

/* The first thread of a process (`h`) ended because its thread `by` exec'd: the exec goes on
 * under the first's pid, as strace writes it: `by execve(... <pid changed to P ...>`, `P +++
 * superseded by execve in pid by +++`, and at the exec's exit `P <... execve resumed>`. */
static void supersede(const struct rec_head *h, unsigned int by)
{
	unsigned int pid = nspid(h), tid = h->tid;
	struct rec_head thread = {.tid = by, .level = levels[by].level};
	memcpy(thread.nr, levels[by].nr, sizeof(thread.nr));
	char cut[64];
	if (pend[tid])
		emit(pid, pend[tid], NULL);  /* the first's own call, cut short by the exec */
	free_pending(tid);
	snprintf(cut, sizeof(cut), "<pid changed to %u ...>", pid);
	emit_as(nspid(&thread), pend[by], NULL, cut);
	fprintf(out, "%u +++ superseded by execve in pid %u +++\n", pid, nspid(&thread));
	pend[tid] = pend[by];
	pend[tid]->resumed = 1;
	pend[by] = NULL;
	in_tree[by] = 0;
	last_child[by] = 0;
	A->alive--;  /* two followed tasks, one left */
}

static int on_record(void *ctx, void *data, size_t size)
{
	const struct rec_head *h = data;
	(void)ctx;
	if (h->tid >= pid_max)
		return 0;
	A = &slots[h->attempt % SLOTS];
	if (!h->attempt || A->id != h->attempt) {
		/* An attempt already written whole: a straggler killed at its end. */
		if (h->type == REC_END)
			free_pending(h->tid);
		return 0;
	}
	out = A->log;
	levels[h->tid].level = h->level;
	memcpy(levels[h->tid].nr, h->nr, sizeof(h->nr));
	switch (h->type) {
	case REC_ENTER: {
		/* A call whose end never came (none should): written unfinished, so the reader
		 * takes its process for one cut short, never a call that silently did not happen. */
		if (pend[h->tid] && in_tree[h->tid] == A->id)
			emit(nspid(h), pend[h->tid], NULL);
		free_pending(h->tid);
		struct pending *p = calloc(1, sizeof(*p));
		p->enter = malloc(size);
		memcpy(p->enter, data, size);
		pend[h->tid] = p;
		break;
	}
	case REC_ARG: {
		const struct rec_arg *r = data;
		struct pending *p = pend[h->tid];
		if (!p)
			break;
		if (r->index == ARGS_MAX) {
			p->argv_cut = r->len != 0;
			break;
		}
		if (p->nargs == p->cap) {
			p->cap = p->cap ? 2 * p->cap : 16;
			p->argv = realloc(p->argv, p->cap * sizeof(*p->argv));
			p->argv_len = realloc(p->argv_len, p->cap * sizeof(*p->argv_len));
			p->argv_state = realloc(p->argv_state, p->cap * sizeof(*p->argv_state));
		}
		p->argv[p->nargs] = malloc(r->len + 1);
		memcpy(p->argv[p->nargs], r->data, r->len);
		p->argv_len[p->nargs] = r->len;
		p->argv_state[p->nargs] = r->state;
		p->nargs++;
		break;
	}
	case REC_NAMES: {
		const struct rec_names *r = data;
		struct pending *p = pend[h->tid];
		unsigned int off = 0;
		if (!p)
			break;
		for (int k = 0; k < 2; k++) {
			if (r->state[k] != STR_NONE) {
				p->name[k] = malloc(r->len[k] + 1);
				memcpy(p->name[k], r->data + off, r->len[k]);
				p->name[k][r->len[k]] = 0;
				p->name_len[k] = r->len[k];
				p->name_state[k] = r->state[k];
			}
			off += r->len[k];
		}
		break;
	}
	case REC_ARGAREA: {
		const struct rec_arg *r = data;
		struct pending *p = pend[h->tid];
		if (!p || r->state == STR_FAULT)
			break;
		p->area = malloc(r->len + 1);
		memcpy(p->area, r->data, r->len);
		p->area[r->len] = 0;
		p->area_len = r->len;
		break;
	}
	case REC_EXIT: {
		const struct rec_exit *x = data;
		struct pending *p = pend[h->tid];
		/* A successful execveat ends with execve's number in the new image's registers (seen
		 * on 6.18): it is that call's end. */
		int execveat_done = p && p->enter->id == 322 && x->id == 59;
		if (!p || (p->enter->id != x->id && !execveat_done))
			break;  /* a clone's child returning, or a call begun before it was followed */
		if (!A->started && (x->id == 59 || x->id == 322) && x->ret == 0 && matches_start(p)) {
			A->started = 1;
			A->start_level = h->level < LEVELS ? h->level : LEVELS - 1;
			in_tree[h->tid] = A->id;
			A->alive = 1;
			set_root(x);
		}
		if (in_tree[h->tid] == A->id)
			emit(nspid(h), p, x);
		free_pending(h->tid);
		break;
	}
	case REC_FORK: {
		const struct rec_fork *f = data;
		if (in_tree[h->tid] != A->id || f->child_tid >= pid_max)
			break;
		unsigned int child = f->child_level >= A->start_level ? f->child_nr[A->start_level] : f->child_tid;
		last_child[h->tid] = child;
		levels[f->child_tid].level = f->child_level;
		memcpy(levels[f->child_tid].nr, f->child_nr, sizeof(f->child_nr));
		in_tree[f->child_tid] = A->id;
		A->alive++;
		break;
	}
	case REC_END: {
		const struct rec_end *r = data;
		if (in_tree[h->tid] != A->id) {
			free_pending(h->tid);
			break;
		}
		unsigned int pid = nspid(h);
		unsigned int by = r->superseded_by;
		if (by && by < pid_max && in_tree[by] == A->id && pend[by]) {
			supersede(h, by);
			break;
		}
		if (pend[h->tid])
			emit(pid, pend[h->tid], NULL);
		free_pending(h->tid);
		int code = r->exit_code;
		if (code & 0x7f) {
			const char *abbrev = sigabbrev_np(code & 0x7f);
			fprintf(out, "%u +++ killed by SIG%s%s +++\n", pid, abbrev ? abbrev : "?",
				code & 0x80 ? " (core dumped)" : "");
		} else {
			fprintf(out, "%u +++ exited with %d +++\n", pid, (code >> 8) & 0xff);
		}
		in_tree[h->tid] = 0;
		last_child[h->tid] = 0;
		A->alive--;
		break;
	}
	}
	return 0;
}

static unsigned long long missed_seen;

/* Runs of the programs the kernel skipped: one of them already running on the CPU (it never
 * sleeps; a tracepoint inside it would be one). Each is an event not in the log. */
static unsigned long long missed_runs(void)
{
	unsigned long long missed = 0;
	struct bpf_program *prog;
	bpf_object__for_each_program(prog, skel->obj) {
		struct bpf_prog_info info;
		unsigned int len = sizeof(info);
		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len) == 0)
			missed += info.recursion_misses;
	}
	return missed;
}

static unsigned long long lost_in(unsigned int slot)
{
	unsigned long long n = 0;
	bpf_map_lookup_elem(bpf_map__fd(skel->maps.lost), &slot, &n);
	return n;
}

/* Losses since the last look, written into the logs they make incomplete: an attempt's own, and
 * what no attempt can be named for (a skipped run, a loss of a task not followed) into every
 * attempt's. `all`: the programs' counters too (a syscall each: every CHECK_ROUNDS polls). */
static void check_lost(int all)
{
	static unsigned int round;
	unsigned long long missed = all || ++round % CHECK_ROUNDS == 0 ? missed_runs() : missed_seen;
	unsigned long long unknown = lost_in(SLOTS);
	for (int k = 0; k < SLOTS; k++) {
		struct attempt *a = &slots[k];
		if (!a->id)
			continue;
		unsigned long long n = lost_in((unsigned int)k);
		if (n > a->lost_seen) {
			fprintf(a->log, "0 ?! ebpf: %llu record(s) lost (ring buffer or map full)\n",
				n - a->lost_seen);
			a->lost_seen = n;
		}
		if (unknown > unknown_lost_seen)
			fprintf(a->log, "0 ?! ebpf: %llu record(s) of no known attempt lost\n",
				unknown - unknown_lost_seen);
		if (missed > missed_seen)
			fprintf(a->log, "0 ?! ebpf: %llu run(s) of the program skipped by the kernel\n",
				missed - missed_seen);
	}
	unknown_lost_seen = unknown;
	missed_seen = missed;
}

static int load(void)
{
	libbpf_set_print(libbpf_print);
	skel = trace__open();
	if (!skel) {
		fprintf(stderr, "ebpf-trace: cannot open the program: %s\n", strerror(errno));
		return -1;
	}
	int cpus = libbpf_num_possible_cpus();
	/* A smaller ring buffer (KiB, a power of two of pages): only for the test that proves a
	 * loss makes the trace incomplete. */
	const char *ring_kb = getenv("AGENTIC_EVAL_EBPF_RING_KB");
	if (ring_kb && bpf_map__set_max_entries(skel->maps.events, (unsigned int)atoi(ring_kb) * 1024)) {
		fprintf(stderr, "ebpf-trace: AGENTIC_EVAL_EBPF_RING_KB=%s: not a power of two of pages\n", ring_kb);
		return -1;
	}
	if (cpus <= 0 || bpf_map__set_max_entries(skel->maps.scratch, (unsigned int)cpus) ||
	    trace__load(skel)) {
		fprintf(stderr, "ebpf-trace: cannot load the program: %s\n", strerror(errno));
		return -1;
	}
	if (trace__attach(skel)) {
		fprintf(stderr, "ebpf-trace: cannot attach the program: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

/* After a loss, an end may be among what was lost: a followed process that is gone (or a zombie)
 * no longer counts as alive, or the loader would wait for it forever. The trace already says
 * it is incomplete. */
static void forget_vanished(struct attempt *a)
{
	char path[64], stat[512];
	for (long tid = 1; tid < pid_max && a->alive > 0; tid++) {
		if (in_tree[tid] != a->id)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/stat", tid);
		FILE *f = fopen(path, "r");
		size_t n = f ? fread(stat, 1, sizeof(stat) - 1, f) : 0;
		if (f)
			fclose(f);
		stat[n] = 0;
		const char *close = strrchr(stat, ')');
		if (!f || !close || close[1] == 0 || close[2] == 'Z' || close[2] == 'X') {
			in_tree[tid] = 0;
			a->alive--;
		}
	}
}

static void kill_tree(struct attempt *a)
{
	for (long tid = 1; tid < pid_max; tid++)
		if (in_tree[tid] == a->id)
			kill((pid_t)tid, SIGKILL);
}

static void init_tables(void)
{
	FILE *f = fopen("/proc/sys/kernel/pid_max", "r");
	if (!f || fscanf(f, "%ld", &pid_max) != 1)
		pid_max = 4194304;
	if (f)
		fclose(f);
	pid_max++;
	pend = calloc(pid_max, sizeof(*pend));
	in_tree = calloc(pid_max, sizeof(*in_tree));
	last_child = calloc(pid_max, sizeof(*last_child));
	levels = calloc(pid_max, sizeof(*levels));
}

/* Slot `a` for attempt `id`: its log open, the program's root and loss count reset. */
static int attempt_open(struct attempt *a, unsigned int id, const char *log, const char *start)
{
	memset(a, 0, sizeof(*a));
	a->conn = -1;
	a->log = fopen(log, "w");
	if (!a->log) {
		fprintf(stderr, "ebpf-trace: %s: %s\n", log, strerror(errno));
		return -1;
	}
	setvbuf(a->log, NULL, _IOFBF, 1 << 20);
	snprintf(a->start_path, sizeof(a->start_path), "%s", start);
	if (!realpath(start, a->start_real))
		snprintf(a->start_real, sizeof(a->start_real), "%s", start);
	unsigned int slot = id % SLOTS;
	struct trace_cfg c = {0};
	bpf_map_update_elem(bpf_map__fd(skel->maps.cfg), &slot, &c, BPF_ANY);
	a->lost_seen = lost_in(slot);
	a->id = id;
	return 0;
}

/* Whether the attempt's log is whole: its command ended and every process it followed did (or
 * was killed 3 s ago). Kills what it follows first when it was told to stop. */
static int attempt_done(struct attempt *a)
{
	if (a->stop && !a->killed_at.tv_sec) {
		/* As strace's tracees are killed before its group is (agents/process.py): what
		 * the trace follows ends with it, never goes on unseen. */
		kill_tree(a);
		clock_gettime(CLOCK_MONOTONIC, &a->killed_at);
	}
	if (a->reaped && a->started && a->alive > 0 && (a->lost_seen || missed_seen || unknown_lost_seen))
		forget_vanished(a);
	if (a->reaped && (!a->started || a->alive <= 0))
		return 1;
	if (a->killed_at.tv_sec && a->reaped) {
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		return now.tv_sec - a->killed_at.tv_sec >= 3;
	}
	return 0;
}

/* The attempt's log closed; nothing it followed is followed any longer (a straggler's records,
 * if any, name an id no slot holds). */
static void attempt_close(struct attempt *a)
{
	int fd = bpf_map__fd(skel->maps.followed);
	for (long tid = 1; tid < pid_max; tid++)
		if (in_tree[tid] == a->id) {
			unsigned int t = (unsigned int)tid;
			bpf_map_delete_elem(fd, &t);
			in_tree[tid] = 0;
			free_pending((unsigned int)tid);
		}
	if (a->client) {
		unsigned int t = a->client;
		bpf_map_delete_elem(fd, &t);
	}
	fclose(a->log);
	a->id = 0;
}

static void drain(struct ring_buffer *rb, int all)
{
	ring_buffer__consume(rb);
	check_lost(all);
	for (int k = 0; k < SLOTS; k++)
		if (slots[k].id)
			fflush(slots[k].log);
}

static void write_cpu_file(void)
{
	/* The loader's own CPU (not its child's), for benchmarks/trace_overhead.py. */
	const char *cpu_file = getenv("AGENTIC_EVAL_EBPF_CPU_FILE");
	if (cpu_file) {
		struct rusage ru;
		FILE *cf = fopen(cpu_file, "w");
		if (cf && getrusage(RUSAGE_SELF, &ru) == 0)
			fprintf(cf, "%.6f\n", ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
						   ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
		if (cf)
			fclose(cf);
	}
}

static void catch_signals(void)
{
	struct sigaction sa = {.sa_handler = on_signal};
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* The per-attempt form: loads, runs COMMAND as attempt 1, writes its log, unloads. */
static int single(const char *output, const char *start, char **command)
{
	init_tables();
	if (load())
		return 70;
	struct attempt *a = &slots[1];
	if (attempt_open(a, 1, output, start))
		return 70;
	struct ring_buffer *rb = ring_buffer__new(bpf_map__fd(skel->maps.events), on_record, NULL, NULL);
	if (!rb) {
		fprintf(stderr, "ebpf-trace: no ring buffer: %s\n", strerror(errno));
		return 70;
	}
	catch_signals();
	int gate[2];
	if (pipe(gate)) {
		perror("ebpf-trace: pipe");
		return 70;
	}
	pid_t loader = getpid();
	pid_t child = fork();
	if (child < 0) {
		perror("ebpf-trace: fork");
		return 70;
	}
	if (child == 0) {
		char go;
		close(gate[1]);
		/* The loader killed: the program goes with it, so the command must too, never go on
		 * untraced (the jail's --die-with-parent takes the rest). */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != loader)
			_exit(70);
		signal(SIGTERM, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		/* Nothing runs before the parent follows this process. */
		if (read(gate[0], &go, 1) != 1)
			_exit(70);
		close(gate[0]);
		execvp(command[0], command);
		fprintf(stderr, "ebpf-trace: %s: %s\n", command[0], strerror(errno));
		_exit(127);
	}
	close(gate[0]);
	unsigned int ctid = (unsigned int)child;
	if (bpf_map_update_elem(bpf_map__fd(skel->maps.followed), &ctid, &a->id, BPF_ANY)) {
		kill(child, SIGKILL);
		fprintf(stderr, "ebpf-trace: cannot follow the command\n");
		return 70;
	}
	if (write(gate[1], "!", 1) != 1) {
		kill(child, SIGKILL);
		return 70;
	}
	close(gate[1]);
	int status = 0;
	for (;;) {
		/* Woken by the kernel only when the buffer fills (trace.bpf.c `send`): otherwise every
		 * POLL_MS, which is also how soon the evaluator's follower sees a line. */
		ring_buffer__poll(rb, POLL_MS);
		drain(rb, 0);
		if (!a->reaped && waitpid(child, &status, WNOHANG) == child)
			a->reaped = 1;
		if (stopping && !a->stop) {
			a->stop = 1;
			kill(child, SIGKILL);
		}
		if (attempt_done(a))
			break;
	}
	drain(rb, 1);
	attempt_close(a);
	ring_buffer__free(rb);
	trace__destroy(skel);
	write_cpu_file();
	if (WIFSIGNALED(status)) {
		signal(WTERMSIG(status), SIG_DFL);
		raise(WTERMSIG(status));
		return 128 + WTERMSIG(status);
	}
	return WEXITSTATUS(status);
}

/* --serve: a client's request is "LOG\0START\0"; the answer one byte, 'O' (followed: fork the
 * command) or 'F' (refused). Then the client sends 'E' when its command ended ('K': kill what
 * the attempt follows) and the server answers 'D' once the attempt's log is whole. A request of
 * one NUL is the evaluator's question whether this loop still takes attempts: answered 'P'. */
#define REQ_MAX (2 * PATH_MAX + 2)

/* Connections accepted whose request has not come yet. Each is read only when poll says its
 * request is there: a client that connects and stays silent never holds the loop (the other
 * attempts' starts, the ring buffer's reading). When all are taken, the oldest is closed: a real
 * client sends its request as soon as it connects. */
#define UNHEARD SLOTS
static int unheard[UNHEARD];
static unsigned long unheard_at[UNHEARD];

static void unheard_init(void)
{
	for (int k = 0; k < UNHEARD; k++)
		unheard[k] = -1;
}

static void take(int listener, unsigned long *seq)
{
	int conn = accept4(listener, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (conn < 0)
		return;
	int k = 0;
	for (int j = 0; j < UNHEARD; j++) {
		if (unheard[j] < 0) {
			k = j;
			break;
		}
		if (unheard_at[j] < unheard_at[k])
			k = j;
	}
	if (unheard[k] >= 0)
		close(unheard[k]);
	unheard[k] = conn;
	unheard_at[k] = (*seq)++;
}

/* The request of an accepted connection: 0 while it has not come (the connection stays
 * unheard), 1 once the connection is answered (followed, refused or closed). */
static int admit(int conn, unsigned int *next_id)
{
	char req[REQ_MAX + 1];
	ssize_t n = recv(conn, req, REQ_MAX, 0);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return 0;
	struct ucred cred;
	socklen_t len = sizeof(cred);
	if (n <= 0 || getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &cred, &len) || cred.pid <= 0) {
		close(conn);
		return 1;
	}
	if (n == 1 && req[0] == 0) {
		send(conn, "P", 1, MSG_NOSIGNAL);
		close(conn);
		return 1;
	}
	req[n] = 0;
	const char *log = req;
	size_t log_len = strnlen(req, (size_t)n);
	const char *start = log_len + 1 < (size_t)n ? req + log_len + 1 : NULL;
	unsigned int pid = (unsigned int)cred.pid, owner;
	/* A process an attempt already follows (a tool call that found the socket) may not begin an
	 * attempt of its own: its records would leave its attempt's log for a log it names. */
	if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.followed), &pid, &owner) == 0) {
		fprintf(stderr, "ebpf-trace: pid %u is traced by attempt %u: refused\n", pid, owner);
		send(conn, "F", 1, MSG_NOSIGNAL);
		close(conn);
		return 1;
	}
	struct attempt *a = NULL;
	unsigned int id = 0;
	for (int tries = 0; tries < SLOTS && !a; tries++) {
		id = (*next_id)++;
		if (!id)
			id = (*next_id)++;
		if (!slots[id % SLOTS].id)
			a = &slots[id % SLOTS];
	}
	if (!start || !a || attempt_open(a, id, log, start)) {
		if (start && !a)
			fprintf(stderr, "ebpf-trace: more than %d attempts at once\n", SLOTS);
		send(conn, "F", 1, MSG_NOSIGNAL);
		close(conn);
		return 1;
	}
	if (bpf_map_update_elem(bpf_map__fd(skel->maps.followed), &pid, &a->id, BPF_ANY)) {
		fprintf(stderr, "ebpf-trace: cannot follow attempt %u\n", id);
		fclose(a->log);
		a->id = 0;
		send(conn, "F", 1, MSG_NOSIGNAL);
		close(conn);
		return 1;
	}
	a->conn = conn;
	a->client = pid;
	if (send(conn, "O", 1, MSG_NOSIGNAL) != 1)
		a->stop = a->reaped = 1;
	return 1;
}

static void hear(struct attempt *a)
{
	char msg;
	ssize_t n = recv(a->conn, &msg, 1, MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n == 1 && msg == 'E') {
		a->reaped = 1;
		return;
	}
	/* 'K', or the client gone (killed with its group): what it followed must not go on. */
	a->stop = 1;
	a->reaped = 1;
	if (n != 1 || msg != 'K') {
		close(a->conn);
		a->conn = -1;
	}
}

static int serve(const char *path)
{
	/* It never outlives the evaluator that started it: its stdin, a pipe from the evaluator,
	 * closes when the evaluator ends however it ends. (Not PR_SET_PDEATHSIG: that follows the
	 * thread that started it, and an attempt's worker thread may end before the run.) */
	init_tables();
	if (load())
		return 70;
	struct ring_buffer *rb = ring_buffer__new(bpf_map__fd(skel->maps.events), on_record, NULL, NULL);
	if (!rb) {
		fprintf(stderr, "ebpf-trace: no ring buffer: %s\n", strerror(errno));
		return 70;
	}
	/* Non-blocking: a connection reset between poll and accept must not hold the loop. */
	int listener = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	if (strlen(path) >= sizeof(addr.sun_path)) {
		fprintf(stderr, "ebpf-trace: socket path too long: %s\n", path);
		return 70;
	}
	strcpy(addr.sun_path, path);
	unlink(path);
	mode_t old = umask(077);
	if (listener < 0 || bind(listener, (struct sockaddr *)&addr, sizeof(addr)) ||
	    listen(listener, SLOTS)) {
		fprintf(stderr, "ebpf-trace: %s: %s\n", path, strerror(errno));
		return 70;
	}
	umask(old);
	catch_signals();
	printf("ready\n");
	fflush(stdout);
	unsigned int next_id = 1;
	unsigned long accepted = 0;
	int ending = 0;
	unheard_init();
	for (;;) {
		struct pollfd fds[3 + SLOTS + UNHEARD];
		struct attempt *of[3 + SLOTS + UNHEARD];
		int slot_of[3 + SLOTS + UNHEARD];
		int n = 0;
		fds[n++] = (struct pollfd){.fd = ring_buffer__epoll_fd(rb), .events = POLLIN};
		fds[n++] = (struct pollfd){.fd = listener, .events = ending ? 0 : POLLIN};
		fds[n++] = (struct pollfd){.fd = 0, .events = POLLIN};
		for (int k = 0; k < SLOTS; k++)
			if (slots[k].id && slots[k].conn >= 0 && !slots[k].reaped) {
				of[n] = &slots[k];
				slot_of[n] = -1;
				fds[n++] = (struct pollfd){.fd = slots[k].conn, .events = POLLIN};
			}
		for (int k = 0; k < UNHEARD; k++)
			if (unheard[k] >= 0) {
				of[n] = NULL;
				slot_of[n] = k;
				fds[n++] = (struct pollfd){.fd = unheard[k], .events = POLLIN};
			}
		poll(fds, (nfds_t)n, POLL_MS);
		drain(rb, 0);
		if (!ending && (stopping || (fds[2].revents & (POLLIN | POLLHUP)))) {
			char c;
			if (stopping || read(0, &c, 1) <= 0) {
				ending = 1;
				for (int k = 0; k < SLOTS; k++)
					slots[k].stop = slots[k].reaped = 1;
				/* No attempt begins now: the clients still to be heard are told so. */
				for (int k = 0; k < UNHEARD; k++)
					if (unheard[k] >= 0) {
						close(unheard[k]);
						unheard[k] = -1;
					}
			}
		}
		for (int k = 3; k < n; k++) {
			if (!fds[k].revents)
				continue;
			if (of[k])
				hear(of[k]);
			else if (unheard[slot_of[k]] == fds[k].fd && admit(fds[k].fd, &next_id))
				unheard[slot_of[k]] = -1;
		}
		if (!ending && (fds[1].revents & POLLIN))
			take(listener, &accepted);
		int active = 0;
		for (int k = 0; k < SLOTS; k++) {
			struct attempt *a = &slots[k];
			if (!a->id)
				continue;
			if (!attempt_done(a)) {
				active++;
				continue;
			}
			drain(rb, 1);
			A = a;
			if (ending)
				fputs("0 ?! ebpf: the loader stopped before the attempt ended\n", a->log);
			int conn = a->conn;
			attempt_close(a);
			if (conn >= 0) {
				/* What the client sent and was not read: a socket closed with it unread
				 * would reset the connection, and the client lose the answer. */
				char unread;
				while (recv(conn, &unread, 1, MSG_DONTWAIT) == 1)
					;
				send(conn, "D", 1, MSG_NOSIGNAL);
				close(conn);
			}
		}
		if (ending && !active)
			break;
	}
	close(listener);
	unlink(path);
	ring_buffer__free(rb);
	trace__destroy(skel);
	return 0;
}

static int pidfd_open_(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

/* The attempt's log marked incomplete when the server went away before writing it whole. */
static int orphaned(const char *output, pid_t child)
{
	int status;
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	FILE *f = fopen(output, "a");
	if (f) {
		fputs("0 ?! ebpf: the loader ended before the attempt's log was whole\n", f);
		fclose(f);
	}
	fprintf(stderr, "ebpf-trace: the loader (--serve) ended during the attempt (it went away while the command ran)\n");
	return 70;
}

/* One byte from the server; a signal (the runner's SIGTERM, again) does not cut the wait. */
static ssize_t answer_of(int sock, char *c)
{
	ssize_t n;
	do
		n = recv(sock, c, 1, 0);
	while (n < 0 && errno == EINTR);
	return n;
}

/* --attach: the per-attempt client of a --serve loader. */
static int attach(const char *path, const char *output, const char *start, char **command)
{
	char req[REQ_MAX];
	size_t lo = strlen(output), ls = strlen(start);
	if (lo + ls + 2 > sizeof(req)) {
		fprintf(stderr, "ebpf-trace: paths too long\n");
		return 70;
	}
	memcpy(req, output, lo + 1);
	memcpy(req + lo + 1, start, ls + 1);
	int sock = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path);
	char answer = 0;
	if (sock < 0 || connect(sock, (struct sockaddr *)&addr, sizeof(addr)) ||
	    send(sock, req, lo + ls + 2, MSG_NOSIGNAL) != (ssize_t)(lo + ls + 2) ||
	    recv(sock, &answer, 1, 0) != 1 || answer != 'O') {
		fprintf(stderr, "ebpf-trace: the loader at %s did not take the attempt%s%s\n", path,
			errno ? ": " : "", errno ? strerror(errno) : "");
		return 70;
	}
	catch_signals();
	/* Followed from here: the command is this process's child, so it is followed from its
	 * first instruction. */
	pid_t child = fork();
	if (child < 0) {
		perror("ebpf-trace: fork");
		return 70;
	}
	if (child == 0) {
		signal(SIGTERM, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		execvp(command[0], command);
		fprintf(stderr, "ebpf-trace: %s: %s\n", command[0], strerror(errno));
		_exit(127);
	}
	int pidfd = pidfd_open_(child);
	if (pidfd < 0) {
		perror("ebpf-trace: pidfd_open");
		return orphaned(output, child);
	}
	int status = 0, told = 0;
	char done = 0;
	for (;;) {
		struct pollfd fds[2] = {{.fd = pidfd, .events = POLLIN}, {.fd = sock, .events = POLLIN}};
		int r = poll(fds, 2, -1);
		if (stopping && !told) {
			kill(child, SIGKILL);
			send(sock, "K", 1, MSG_NOSIGNAL);
			told = 1;
		}
		if (r > 0 && fds[1].revents) {
			/* Told to stop, the server may close the attempt before the command is reaped;
			 * otherwise it never speaks first: it went away. */
			if (!told || answer_of(sock, &done) != 1 || done != 'D')
				return orphaned(output, child);
			while (waitpid(child, &status, 0) < 0 && errno == EINTR)
				;
			break;
		}
		if (waitpid(child, &status, WNOHANG) == child)
			break;
	}
	/* After a 'K' the server needs nothing more: it answers once the attempt's tree is gone. */
	if (done != 'D' && !told)
		send(sock, "E", 1, MSG_NOSIGNAL);
	if (done != 'D' && (answer_of(sock, &done) != 1 || done != 'D')) {
		FILE *f = fopen(output, "a");
		if (f) {
			fputs("0 ?! ebpf: the loader ended before the attempt's log was whole\n", f);
			fclose(f);
		}
		fprintf(stderr, "ebpf-trace: the loader (--serve) ended during the attempt\n");
		return 70;
	}
	if (WIFSIGNALED(status)) {
		signal(WTERMSIG(status), SIG_DFL);
		raise(WTERMSIG(status));
		return 128 + WTERMSIG(status);
	}
	return WEXITSTATUS(status);
}

int main(int argc, char **argv)
{
	const char *output = NULL, *start = NULL, *sock = NULL;
	int i = 1;
	if (argc == 2 && strcmp(argv[1], "--probe") == 0)
		return load() ? 1 : 0;
	if (argc == 3 && strcmp(argv[1], "--serve") == 0)
		return serve(argv[2]);
	for (; i < argc; i++) {
		if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
			output = argv[++i];
		else if (strcmp(argv[i], "--start") == 0 && i + 1 < argc)
			start = argv[++i];
		else if (strcmp(argv[i], "--attach") == 0 && i + 1 < argc)
			sock = argv[++i];
		else if (strcmp(argv[i], "--") == 0) {
			i++;
			break;
		} else {
			fprintf(stderr, "ebpf-trace: unknown argument %s\n", argv[i]);
			return 2;
		}
	}
	if (!output || !start || i >= argc) {
		fprintf(stderr, "usage: ebpf-trace [--attach SOCKET] -o LOG --start PATH -- COMMAND...\n");
		return 2;
	}
	return sock ? attach(sock, output, start, argv + i) : single(output, start, argv + i);
}
