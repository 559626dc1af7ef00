/* Records the eBPF tracer's kernel program (trace.bpf.c) sends its loader (loader.c) through one
 * ring buffer: shared layout. */
#ifndef AGENTIC_EVAL_TRACE_H
#define AGENTIC_EVAL_TRACE_H

#define LEVELS 4        /* pid-namespace levels a record carries the task's pid at */
#define STR_MAX 4096    /* PATH_MAX: one path, a walked descriptor's path */
#define ARG_MAX 65536   /* one argv string, as strace's -s 65536 */
#define ARGS_MAX 4096   /* argv strings read per exec; more: the list is marked cut */
#define NSTR 4          /* strings per syscall entry: two names and their directories */
#define SOCKADDR_MAX 128
/* Attempts one loader traces at once (`--serve`): an attempt's id (the followed map's value,
 * never 0) picks its slot as id % SLOTS in `cfg` and `lost`; `lost[SLOTS]` counts what no
 * attempt can be named for (every attempt then counts it). */
#define SLOTS 64

enum rec_type {
	REC_ENTER = 1,  /* a traced syscall began: its arguments and the strings they name */
	REC_ARG = 2,    /* one argv string of the exec that the last REC_ENTER of the task began */
	REC_EXIT = 3,   /* the syscall ended: its result, the descriptor it made resolved */
	REC_FORK = 4,   /* a followed task made a task */
	REC_END = 5,    /* a followed task ended */
	REC_NAMES = 6,  /* names read again after the call (the page was not in memory at entry) */
	REC_ARGAREA = 7, /* a new image's argument area, when an argv string could not be read */
};

/* A string slot's state beside its length. */
enum str_state {
	STR_NONE = 0,     /* not read (not an argument of this syscall, or not wanted) */
	STR_OK = 1,       /* read whole */
	STR_CUT = 2,      /* longer than the slot, or a walk deeper than the program goes */
	STR_FAULT = 3,    /* the pointer could not be read (strace prints the address) */
	STR_ANON = 4,     /* a descriptor of no file system path (pipe, socket, anon inode) */
};

struct rec_head {
	unsigned int type;
	unsigned int tid;            /* the task's pid in the initial namespace */
	unsigned int level;          /* the task's pid-namespace level */
	unsigned int nr[LEVELS];     /* its pid at levels 0..LEVELS-1 */
	unsigned int attempt;        /* the followed map's value: the attempt the task is of */
};

struct rec_enter {
	struct rec_head h;
	long id;
	unsigned long args[6];
	unsigned long long extra;    /* clone3's flags, openat2's flags */
	unsigned int len[NSTR];      /* bytes of each slot in data, NUL included */
	unsigned int state[NSTR];
	unsigned int sockaddr_len;
	unsigned char data[];        /* slots 0..NSTR-1 then the sockaddr, back to back */
};

struct rec_arg {
	struct rec_head h;
	unsigned int index;          /* ARGS_MAX: the end of the list (len: 1 when cut) */
	unsigned int len;
	unsigned int state;
	char data[];
};

struct rec_exit {
	struct rec_head h;
	long id;
	long ret;
	unsigned long long root_dentry;  /* after an exec: the task's root, where walks stop */
	unsigned long long root_mnt;
	unsigned int len;                /* the new descriptor's path (walked components) */
	unsigned int state;
	unsigned char data[];
};

struct rec_names {
	struct rec_head h;
	unsigned int len[2];
	unsigned int state[2];
	unsigned char data[];
};

struct rec_fork {
	struct rec_head h;
	unsigned int child_tid;
	unsigned int child_level;
	unsigned int child_nr[LEVELS];
	unsigned long long flags;
};

struct rec_end {
	struct rec_head h;
	int exit_code;
	/* The first thread of a process a thread's exec supersedes (the kernel ends it, and the
	 * exec'ing thread takes its pid): that thread's tid, initial namespace; 0 otherwise. */
	unsigned int superseded_by;
};

struct trace_cfg {
	unsigned long long root_dentry;  /* 0: walk to the namespace's root */
	unsigned long long root_mnt;
};

#endif
