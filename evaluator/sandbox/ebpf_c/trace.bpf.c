// SPDX-License-Identifier: GPL-2.0
/* The eBPF tracer's kernel half: follows the loader's child and every task it makes, and sends
 * the syscalls of evaluator/sandbox/tracer.py's list, with the strings and descriptors they
 * name, through one ring buffer (ordered across CPUs). Raw tracepoints (sys_enter, sys_exit,
 * sched_process_fork, sched_process_exit): they need BTF but no tracefs. Anything not sent (a
 * full ring buffer, a full map) is counted in `lost`, which makes the trace incomplete. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "trace.h"

char LICENSE[] SEC("license") = "GPL";

#define WALK_DEPTH 48
#define NAME_MAX_ 256
#define SB_NOUSER_ (1UL << 31)
#define AT_FDCWD_ -100

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, u32);
	__type(value, u32);  /* the attempt's id, inherited at fork */
} followed SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 64 << 20);
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SLOTS + 1);
	__type(key, u32);
	__type(value, u64);
} lost SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SLOTS);
	__type(key, u32);
	__type(value, struct trace_cfg);
} cfg SEC(".maps");

/* Names (and argv strings) whose page was not in memory at the syscall's entry: read again
 * once the kernel has read them (at the exit, or at the new image for an exec). */
struct refetch {
	u64 p0, p1;
	u32 argv_fault;
	u32 pad;
};
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, u32);
	__type(value, struct refetch);
} refetch SEC(".maps");

/* One record being built, per CPU: big enough for the largest (an argv string). */
#define SCRATCH (sizeof(struct rec_enter) + NSTR * STR_MAX + SOCKADDR_MAX + ARG_MAX + 512)
struct scratch {
	unsigned char buf[SCRATCH];
};
/* An array with one entry per CPU (the loader sets its size), not a per-CPU array: a per-CPU
 * value is limited to 32 KiB. The programs do not sleep, so one CPU runs one at a time. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct scratch);
} scratch SEC(".maps");

static __always_inline struct scratch *my_scratch(void)
{
	u32 cpu = bpf_get_smp_processor_id();
	return bpf_map_lookup_elem(&scratch, &cpu);
}

/* The attempt task `tid` is of; 0 when it is not followed. */
static __always_inline u32 attempt_of(u32 tid)
{
	u32 *a = bpf_map_lookup_elem(&followed, &tid);
	return a ? *a : 0;
}

static __always_inline void count_lost_in(u32 attempt)
{
	u32 key = attempt ? attempt % SLOTS : SLOTS;
	u64 *n = bpf_map_lookup_elem(&lost, &key);
	if (n)
		__sync_fetch_and_add(n, 1);
}

static __always_inline void count_lost(void)
{
	count_lost_in(attempt_of((u32)bpf_get_current_pid_tgid()));
}

/* The loader reads the buffer every few milliseconds on its own: a wake-up per record would
 * cost it a context switch per traced call. Only a buffer filling up wakes it at once. */
#define WAKE_AT (16 << 20)

static __always_inline void send(void *data, u64 size)
{
	if (size > SCRATCH)
		size = SCRATCH;
	u64 flags = bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) > WAKE_AT ? BPF_RB_FORCE_WAKEUP
									    : BPF_RB_NO_WAKEUP;
	if (bpf_ringbuf_output(&events, data, size, flags))
		count_lost_in(((struct rec_head *)data)->attempt);
}

static __always_inline void fill_levels(struct task_struct *t, unsigned int *level, unsigned int *nr)
{
	struct pid *p = BPF_CORE_READ(t, thread_pid);
	unsigned int l = BPF_CORE_READ(p, level);
	*level = l;
#pragma unroll
	for (int i = 0; i < LEVELS; i++)
		nr[i] = i <= l ? BPF_CORE_READ(p, numbers[i].nr) : 0;
}

static __always_inline void fill_head(struct rec_head *h, unsigned int type)
{
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();
	h->type = type;
	h->tid = (u32)bpf_get_current_pid_tgid();
	h->attempt = attempt_of(h->tid);
	fill_levels(t, &h->level, h->nr);
}

static __always_inline bool is_followed(void)
{
	u32 tid = (u32)bpf_get_current_pid_tgid();
	return bpf_map_lookup_elem(&followed, &tid) != NULL;
}

/* The path of `f` from the configured root (the agent's, as strace's -y gives it from inside
 * the jail), written leaf first, one NUL-terminated component after another, into the CPU's
 * scratch buffer at `base`. One bpf_loop step per component: verified once, not per depth. */
struct walk_ctx {
	u64 d, vm, m, root_dentry, root_mnt;
	u32 base, off, state;
};

static long walk_step(u32 i, void *data)
{
	struct walk_ctx *w = data;
	struct dentry *d = (struct dentry *)w->d;
	struct vfsmount *vm = (struct vfsmount *)w->vm;
	struct mount *m = (struct mount *)w->m;
	if (w->root_dentry && w->d == w->root_dentry && w->vm == w->root_mnt) {
		w->state = STR_OK;
		return 1;
	}
	if (d == BPF_CORE_READ(vm, mnt_root)) {
		struct mount *parent = BPF_CORE_READ(m, mnt_parent);
		if (parent == m) {
			w->state = STR_OK;  /* the root of its mount namespace */
			return 1;
		}
		w->d = (u64)BPF_CORE_READ(m, mnt_mountpoint);
		w->m = (u64)parent;
		w->vm = (u64)&parent->mnt;
		return 0;
	}
	struct dentry *up = BPF_CORE_READ(d, d_parent);
	if (up == d) {
		w->state = STR_OK;
		return 1;
	}
	struct scratch *s = my_scratch();
	if (!s || w->off > STR_MAX - NAME_MAX_)
		return 1;  /* cut */
	const unsigned char *name = BPF_CORE_READ(d, d_name.name);
	u32 pos = (w->base & (8 * STR_MAX - 1)) + (w->off & (STR_MAX - 1));
	long n = bpf_probe_read_kernel_str(s->buf + pos, NAME_MAX_, name);
	if (n <= 0)
		return 1;
	w->off += n;
	w->d = (u64)up;
	return 0;
}

/* A global function: the verifier checks it once, not at each of its callers. Returns the
 * bytes written, with the state (enum str_state) in the upper half. */
__noinline u64 walk_path(u64 d, u64 vm, u32 base)
{
	u32 slot = attempt_of((u32)bpf_get_current_pid_tgid()) % SLOTS;
	struct trace_cfg *c = bpf_map_lookup_elem(&cfg, &slot);
	struct walk_ctx w = {
		.d = d,
		.vm = vm,
		.m = (u64)container_of((struct vfsmount *)vm, struct mount, mnt),
		.root_dentry = c ? c->root_dentry : 0,
		.root_mnt = c ? c->root_mnt : 0,
		.base = base,
		.state = STR_CUT,
	};
	if (BPF_CORE_READ((struct vfsmount *)vm, mnt_sb, s_flags) & SB_NOUSER_)
		return (u64)STR_ANON << 32;
	bpf_loop(WALK_DEPTH, walk_step, &w, 0);
	return (u64)w.state << 32 | w.off;
}

static __always_inline unsigned int walk(struct dentry *d, struct vfsmount *vm, u32 base,
					 unsigned int *state)
{
	u64 done = walk_path((u64)d, (u64)vm, base);
	*state = done >> 32;
	return (u32)done;
}

static __always_inline unsigned int walk_file(struct file *f, u32 base, unsigned int *state)
{
	return walk(BPF_CORE_READ(f, f_path.dentry), BPF_CORE_READ(f, f_path.mnt), base, state);
}

static __always_inline struct file *fd_file(int fd)
{
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();
	struct files_struct *files = BPF_CORE_READ(t, files);
	struct fdtable *fdt = BPF_CORE_READ(files, fdt);
	unsigned int max = BPF_CORE_READ(fdt, max_fds);
	struct file **fds = BPF_CORE_READ(fdt, fd);
	struct file *f = NULL;
	if (fd < 0 || (unsigned int)fd >= max)
		return NULL;
	bpf_probe_read_kernel(&f, sizeof(f), &fds[fd]);
	return f;
}

/* Which arguments are names (user strings) and which descriptors their directories: per
 * syscall, the argument index of string slot 0 and 1 (-1: none) and of each one's dirfd. */
struct argspec {
	int s0, s1, d0, d1;
};

static __always_inline bool spec_of(long id, struct argspec *a)
{
	a->s0 = a->s1 = a->d0 = a->d1 = -1;
	switch (id) {
	case 2: case 85: case 80: case 87: case 84: case 83: case 76: case 133: case 166: case 161:
		/* open creat chdir unlink rmdir mkdir truncate mknod umount2 chroot */
		a->s0 = 0; return true;
	case 59: /* execve */
		a->s0 = 0; return true;
	case 257: case 437: case 263: case 258: case 259: case 428: case 442: case 322:
		/* openat openat2 unlinkat mkdirat mknodat open_tree mount_setattr execveat */
		a->d0 = 0; a->s0 = 1; return true;
	case 82: case 86: case 88: case 155: case 165:
		/* rename link symlink pivot_root mount(source, target) */
		a->s0 = 0; a->s1 = 1; return true;
	case 264: case 316: case 265: case 429:
		/* renameat renameat2 linkat move_mount */
		a->d0 = 0; a->s0 = 1; a->d1 = 2; a->s1 = 3; return true;
	case 266: /* symlinkat(target, newdirfd, linkpath) */
		a->s0 = 0; a->d1 = 1; a->s1 = 2; return true;
	case 81: /* fchdir: its descriptor, resolved */
		a->d0 = 0; return true;
	case 9: /* mmap: its descriptor, resolved (only a file mapped as code: `maps_code`) */
		a->d0 = 4; return true;
	case 49: case 42: /* bind connect: the address */
	case 425: case 304: case 41: case 53: case 317: case 157: case 432:
	case 101: case 310: case 311: case 438: case 56: case 435: case 57: case 58:
		return true;
	}
	return false;
}

static __always_inline unsigned long reg_arg(struct pt_regs *regs, int i)
{
	switch (i) {
	case 0: return BPF_CORE_READ(regs, di);
	case 1: return BPF_CORE_READ(regs, si);
	case 2: return BPF_CORE_READ(regs, dx);
	case 3: return BPF_CORE_READ(regs, r10);
	case 4: return BPF_CORE_READ(regs, r8);
	case 5: return BPF_CORE_READ(regs, r9);
	}
	return 0;
}

static __always_inline unsigned int read_user_name(unsigned char *out, unsigned long ptr, unsigned int *state)
{
	long n = bpf_probe_read_user_str(out, STR_MAX, (const void *)ptr);
	if (n < 0) {
		*state = STR_FAULT;
		return 0;
	}
	*state = n >= STR_MAX ? STR_CUT : STR_OK;
	return (unsigned int)n;
}

/* The directory a name is relative to (its dirfd's path, or the cwd beside AT_FDCWD), walked
 * into the scratch buffer at `base`; only for a relative name (fchdir: `always`). A global
 * function, as `read_name`: each is verified once, not per combination of its callers' paths.
 * Returns the bytes written with the state in the upper half (0: not needed). */
__noinline u64 dir_of(long dirfd, u32 base, u32 name_at, u32 name_state, u32 always)
{
	struct scratch *s = my_scratch();
	if (!s)
		return (u64)STR_FAULT << 32;
	if (!always && name_state == STR_OK && s->buf[name_at & (8 * STR_MAX - 1)] == '/')
		return 0;
	if ((int)dirfd == AT_FDCWD_) {
		/* strace's -y prints the cwd beside AT_FDCWD: the reader prefers it to its own. */
		struct task_struct *t = (struct task_struct *)bpf_get_current_task();
		return walk_path((u64)BPF_CORE_READ(t, fs, pwd.dentry),
				 (u64)BPF_CORE_READ(t, fs, pwd.mnt), base);
	}
	struct file *f = fd_file((int)dirfd);
	if (!f)
		return (u64)STR_FAULT << 32;
	return walk_path((u64)BPF_CORE_READ(f, f_path.dentry), (u64)BPF_CORE_READ(f, f_path.mnt), base);
}

/* A user string into the scratch buffer at `base`: its bytes (NUL included), state above. */
__noinline u64 read_name(u64 ptr, u32 base)
{
	struct scratch *s = my_scratch();
	if (!s)
		return (u64)STR_FAULT << 32;
	long n = bpf_probe_read_user_str(s->buf + (base & (8 * STR_MAX - 1)), STR_MAX, (void *)ptr);
	if (n < 0)
		return (u64)STR_FAULT << 32;
	return (u64)(n >= STR_MAX ? STR_CUT : STR_OK) << 32 | (u32)n;
}

struct argv_ctx {
	const char *const *argv;
	unsigned int done;
	unsigned int fault;
};

static long send_arg(u32 i, void *data)
{
	struct argv_ctx *ctx = data;
	struct scratch *s = my_scratch();
	const char *p = NULL;
	if (!s)
		return 1;
	struct rec_arg *r = (struct rec_arg *)s->buf;
	if (bpf_probe_read_user(&p, sizeof(p), &ctx->argv[i]) || !p) {
		ctx->done = 1;
		return 1;
	}
	fill_head(&r->h, REC_ARG);
	r->index = i;
	long n = bpf_probe_read_user_str(r->data, ARG_MAX, p);
	if (n < 0) {
		r->state = STR_FAULT;
		ctx->fault = 1;
		n = 0;
	} else {
		r->state = n >= ARG_MAX ? STR_CUT : STR_OK;
	}
	r->len = (unsigned int)n;
	send(r, sizeof(*r) + ((u64)n & (ARG_MAX - 1 + ARG_MAX)));
	return 0;
}

static __always_inline void send_argv(unsigned long argv)
{
	struct argv_ctx ctx = { .argv = (const char *const *)argv, .done = argv == 0 };
	if (argv)
		bpf_loop(ARGS_MAX, send_arg, &ctx, 0);
	if (ctx.fault) {
		u32 tid = (u32)bpf_get_current_pid_tgid();
		struct refetch *f = bpf_map_lookup_elem(&refetch, &tid);
		struct refetch fresh = {.argv_fault = 1};
		if (f)
			f->argv_fault = 1;
		else if (bpf_map_update_elem(&refetch, &tid, &fresh, BPF_ANY))
			count_lost();
	}
	struct scratch *s = my_scratch();
	if (!s)
		return;
	struct rec_arg *r = (struct rec_arg *)s->buf;
	fill_head(&r->h, REC_ARG);
	r->index = ARGS_MAX;
	r->len = ctx.done ? 0 : 1;
	r->state = STR_OK;
	send(r, sizeof(*r));
}

#define DATA_AT offsetof(struct rec_enter, data)
#define PROT_EXEC_ 4
#define MAP_ANONYMOUS_ 0x20

/* An mmap that maps a file as code (PROT_EXEC, a descriptor): the only ones sent. Most mmaps
 * are a heap's (anonymous), and a process's start makes dozens: filtered here, in the kernel,
 * they cost the traced task nothing. The registers hold the arguments at the exit too. */
static __always_inline bool maps_code(struct pt_regs *regs)
{
	return (reg_arg(regs, 2) & PROT_EXEC_) && !(reg_arg(regs, 3) & MAP_ANONYMOUS_) &&
	       (int)reg_arg(regs, 4) >= 0;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(on_enter, struct pt_regs *regs, long id)
{
	struct argspec a;
	if (!spec_of(id, &a) || (id == 9 && !maps_code(regs)) || !is_followed())
		return 0;
	struct scratch *s = my_scratch();
	if (!s)
		return 0;
	struct rec_enter *r = (struct rec_enter *)s->buf;
	fill_head(&r->h, REC_ENTER);
	r->id = id;
#pragma unroll
	for (int i = 0; i < 6; i++)
		r->args[i] = reg_arg(regs, i);
	r->extra = 0;
	r->sockaddr_len = 0;
#pragma unroll
	for (int i = 0; i < NSTR; i++) {
		r->len[i] = 0;
		r->state[i] = STR_NONE;
	}
	unsigned int off = 0;
	unsigned char *data = r->data;
	u64 got;
	/* slot 0: the first name, 1: the second, 2: the first's directory, 3: the second's */
	if (a.s0 >= 0) {
		got = read_name(r->args[a.s0 & 7], DATA_AT);
		r->len[0] = (u32)got;
		r->state[0] = got >> 32;
		off = r->len[0];
	}
	if (a.s1 >= 0) {
		got = read_name(r->args[a.s1 & 7], DATA_AT + off);
		r->len[1] = (u32)got;
		r->state[1] = got >> 32;
		off += r->len[1];
	}
	if (a.d0 >= 0) {
		got = dir_of(r->args[a.d0 & 7], DATA_AT + off, DATA_AT, r->state[0], id == 81);
		r->len[2] = (u32)got;
		r->state[2] = got >> 32;
		off += r->len[2];
	}
	if (a.d1 >= 0) {
		got = dir_of(r->args[a.d1 & 7], DATA_AT + off, DATA_AT + r->len[0], r->state[1], 0);
		r->len[3] = (u32)got;
		r->state[3] = got >> 32;
		off += r->len[3];
	}
	if (id == 49 || id == 42) {
		unsigned long len = r->args[2];
		if (len > SOCKADDR_MAX)
			len = SOCKADDR_MAX;
		if (len && !bpf_probe_read_user(data + (off & (4 * STR_MAX - 1)), len & (SOCKADDR_MAX - 1 + SOCKADDR_MAX), (void *)r->args[1]))
			r->sockaddr_len = len;
		off += r->sockaddr_len;
	} else if (id == 435) {
		bpf_probe_read_user(&r->extra, sizeof(r->extra), (void *)r->args[0]);
	} else if (id == 437) {
		bpf_probe_read_user(&r->extra, sizeof(r->extra), (void *)r->args[2]);
	}
	if (r->state[0] == STR_FAULT || r->state[1] == STR_FAULT) {
		u32 tid = r->h.tid;
		struct refetch f = {
			.p0 = r->state[0] == STR_FAULT ? r->args[a.s0 & 7] : 0,
			.p1 = r->state[1] == STR_FAULT ? r->args[a.s1 & 7] : 0,
		};
		if (bpf_map_update_elem(&refetch, &tid, &f, BPF_ANY))
			count_lost();
	} else {
		u32 tid = r->h.tid;
		bpf_map_delete_elem(&refetch, &tid);
	}
	send(r, sizeof(*r) + (off & (8 * STR_MAX - 1)));
	if (id == 59)
		send_argv(r->args[1]);
	else if (id == 322)
		send_argv(r->args[2]);
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(on_exit, struct pt_regs *regs, long ret)
{
	long id = BPF_CORE_READ(regs, orig_ax);
	struct argspec a;
	if (!spec_of(id, &a) || (id == 9 && !maps_code(regs)) || !is_followed())
		return 0;
	struct scratch *s = my_scratch();
	if (!s)
		return 0;
	u32 tid = (u32)bpf_get_current_pid_tgid();
	struct refetch *f = bpf_map_lookup_elem(&refetch, &tid);
	if (f) {
		struct rec_names *n = (struct rec_names *)s->buf;
		fill_head(&n->h, REC_NAMES);
		n->len[0] = n->len[1] = 0;
		n->state[0] = n->state[1] = STR_NONE;
		if (f->p0)
			n->len[0] = read_user_name(n->data, f->p0, &n->state[0]);
		if (f->p1)
			n->len[1] = read_user_name(n->data + (n->len[0] & (STR_MAX - 1)), f->p1, &n->state[1]);
		bpf_map_delete_elem(&refetch, &tid);
		send(n, sizeof(*n) + ((n->len[0] + n->len[1]) & (2 * STR_MAX - 1)));
	}
	struct rec_exit *r = (struct rec_exit *)s->buf;
	fill_head(&r->h, REC_EXIT);
	r->id = id;
	r->ret = ret;
	r->len = 0;
	r->state = STR_NONE;
	r->root_dentry = r->root_mnt = 0;
	bool opens = id == 2 || id == 257 || id == 437 || id == 85;
	if (opens && ret >= 0) {
		struct file *f = fd_file((int)ret);
		if (f)
			r->len = walk_file(f, offsetof(struct rec_exit, data), &r->state);
		else
			r->state = STR_FAULT;
	}
	if ((id == 59 || id == 322) && ret == 0) {
		struct task_struct *t = (struct task_struct *)bpf_get_current_task();
		r->root_dentry = (u64)BPF_CORE_READ(t, fs, root.dentry);
		r->root_mnt = (u64)BPF_CORE_READ(t, fs, root.mnt);
	}
	send(r, sizeof(*r) + (r->len & (2 * STR_MAX - 1)));
	return 0;
}

/* A new image: its name as the kernel copied it, and its argument area, when the exec's entry
 * could not read them. */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(on_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	u32 tid = (u32)bpf_get_current_pid_tgid();
	u32 old = (u32)old_pid;
	u32 *was = old != tid ? bpf_map_lookup_elem(&followed, &old) : NULL;
	if (was) {
		/* A thread other than the first exec'd: it now has the first's pid (whose end was
		 * sent, its entry gone), and the rest of its life is under that pid. */
		u32 attempt = *was;
		bpf_map_delete_elem(&followed, &old);
		if (bpf_map_update_elem(&followed, &tid, &attempt, BPF_ANY))
			count_lost_in(attempt);
	}
	struct refetch *f = bpf_map_lookup_elem(&refetch, &old);
	if (!f)
		return 0;
	struct scratch *s = my_scratch();
	if (!s)
		return 0;
	u32 argv_fault = f->argv_fault;
	u64 p0 = f->p0;
	bpf_map_delete_elem(&refetch, &old);
	if (p0) {
		struct rec_names *n = (struct rec_names *)s->buf;
		fill_head(&n->h, REC_NAMES);
		n->len[1] = 0;
		n->state[1] = STR_NONE;
		long len = bpf_probe_read_kernel_str(n->data, STR_MAX, BPF_CORE_READ(bprm, filename));
		n->state[0] = len < 0 ? STR_FAULT : STR_OK;
		n->len[0] = len < 0 ? 0 : (u32)len;
		send(n, sizeof(*n) + (n->len[0] & (STR_MAX - 1)));
	}
	if (argv_fault) {
		struct rec_arg *r = (struct rec_arg *)s->buf;
		struct mm_struct *mm = BPF_CORE_READ(p, mm);
		unsigned long start = BPF_CORE_READ(mm, arg_start), end = BPF_CORE_READ(mm, arg_end);
		unsigned long len = end > start ? end - start : 0;
		fill_head(&r->h, REC_ARGAREA);
		r->index = 0;
		r->state = STR_OK;
		if (len > ARG_MAX) {
			len = ARG_MAX;
			r->state = STR_CUT;
		}
		if (len && bpf_probe_read_user(r->data, len & (2 * ARG_MAX - 1), (void *)start)) {
			r->state = STR_FAULT;
			len = 0;
		}
		r->len = len;
		send(r, sizeof(*r) + (len & (2 * ARG_MAX - 1)));
	}
	return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_fork, struct task_struct *parent, struct task_struct *child)
{
	u32 ptid = BPF_CORE_READ(parent, pid);
	u32 attempt = attempt_of(ptid);
	if (!attempt)
		return 0;
	u32 ctid = BPF_CORE_READ(child, pid);
	if (bpf_map_update_elem(&followed, &ctid, &attempt, BPF_ANY))
		count_lost_in(attempt);  /* a task not followed: its syscalls would be missing */
	struct rec_fork r = {};
	r.h.type = REC_FORK;
	r.h.tid = ptid;
	r.h.attempt = attempt;
	fill_levels(parent, &r.h.level, r.h.nr);
	r.child_tid = ctid;
	fill_levels(child, &r.child_level, r.child_nr);
	send(&r, sizeof(r));
	return 0;
}

/* Before 5.17 the task of an exec that ends its process's other threads was `group_exit_task`. */
struct signal_struct___old {
	struct task_struct *group_exit_task;
} __attribute__((preserve_access_index));

/* When `task` is the first thread of a process whose other thread is exec'ing (the kernel ends
 * every other thread first): that thread's tid. */
static __always_inline u32 superseding_exec(struct task_struct *task)
{
	if (BPF_CORE_READ(task, pid) != BPF_CORE_READ(task, tgid))
		return 0;
	struct signal_struct *sig = BPF_CORE_READ(task, signal);
	struct task_struct *exec;
	if (bpf_core_field_exists(sig->group_exec_task))
		exec = BPF_CORE_READ(sig, group_exec_task);
	else
		exec = BPF_CORE_READ((struct signal_struct___old *)sig, group_exit_task);
	if (!exec || exec == task)
		return 0;
	return BPF_CORE_READ(exec, pid);
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(on_task_exit, struct task_struct *task)
{
	u32 tid = BPF_CORE_READ(task, pid);
	u32 attempt = attempt_of(tid);
	if (!attempt)
		return 0;
	struct rec_end r = {};
	r.h.type = REC_END;
	r.h.tid = tid;
	r.h.attempt = attempt;
	fill_levels(task, &r.h.level, r.h.nr);
	r.exit_code = BPF_CORE_READ(task, exit_code);
	r.superseded_by = superseding_exec(task);
	send(&r, sizeof(r));
	bpf_map_delete_elem(&followed, &tid);
	return 0;
}
