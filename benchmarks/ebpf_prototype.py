"""The eBPF tracer prototype timed by `trace_overhead --bpftrace` (docs/benchmarks.md, "An eBPF
tracer: a measured prototype"), written out as a bpftrace 0.17 program. Not product code.

It follows every process below the one that execs the program named by its first argument (a
marker, a copy of `env`), with global pids, and prints one line per fact: `X` exec, `F` fork, `Q`
exit status, `A` exec attempt (then its argv, joined by 0x1f), `R` exec result, `S` open, chdir,
mkdir, unlink, rmdir, truncate (result, dirfd, flags, the name as passed), `T` rename, link,
symlink (two names), and `P`/`p` the opened file's path resolved in the kernel: a walk from the
new descriptor's dentry up across mounts, two components a line, leaf first, with a 1 where
more follow. Only tracepoints: this kernel has no kprobes and bpftrace 0.17 no fentry here.
Run: .venv/bin/python -m benchmarks.ebpf_prototype OUT.bt
"""

from __future__ import annotations

import sys
from pathlib import Path

# Components walked per path: the BPF stack (512 bytes) bounds it with BPFTRACE_STRLEN=64.
DEPTH = 14
# offsetof(struct mount, mnt) on 6.x kernels: bpftrace 0.17 has no offsetof or address-of.
MOUNT_MNT_OFFSET = 32
# syscall: (its dirfd argument or None, its path argument)
ONE_PATH = {
    "open": (None, "filename"),
    "creat": (None, "pathname"),
    "openat": ("dfd", "filename"),
    "openat2": ("dfd", "filename"),
    "chdir": (None, "filename"),
    "unlink": (None, "pathname"),
    "unlinkat": ("dfd", "pathname"),
    "rmdir": (None, "pathname"),
    "mkdir": (None, "pathname"),
    "mkdirat": ("dfd", "pathname"),
    "truncate": (None, "path"),
}
TWO_PATHS = {
    "rename": (None, "oldname", None, "newname"),
    "renameat": ("olddfd", "oldname", "newdfd", "newname"),
    "renameat2": ("olddfd", "oldname", "newdfd", "newname"),
    "link": (None, "oldname", None, "newname"),
    "linkat": ("olddfd", "oldname", "newdfd", "newname"),
    "symlink": (None, "oldname", None, "newname"),
    "symlinkat": (None, "oldname", "newdfd", "newname"),
}
FLAGS = {"open": "flags", "openat": "flags", "creat": "mode"}


def walk(dentry: str, mount: str, tag: str, extra: str, extra_args: str) -> str:
    """Prints the path of `dentry` on `mount`, leaf first, two components a line."""
    crossing = "$d == $m->mnt_root && $mnt->mnt_parent != $mnt"
    out = [f"  $d = {dentry}; $m = {mount};"]
    out.append(f"  $mnt = (struct mount *)((uint64)$m - {MOUNT_MNT_OFFSET});")
    for group in range(0, DEPTH, 2):
        for slot in (0, 1):
            out.append(
                f'  $c{slot} = "";'
                f" if ({crossing}) {{ $d = $mnt->mnt_mountpoint;"
                f" $m = (struct vfsmount *)((uint64)$mnt->mnt_parent + {MOUNT_MNT_OFFSET});"
                " $mnt = $mnt->mnt_parent; }"
                f" if ($d != $d->d_parent) {{ $c{slot} = str($d->d_name.name);"
                " $d = $d->d_parent; }"
            )
        out.append(f"  $e = ($d != $d->d_parent || ({crossing})) ? 1 : 0;")
        if group == 0:
            out.append(f'  printf("{tag} %d {extra}%d %s %s\\n", tid{extra_args}, $e, $c0, $c1);')
        else:
            out.append('  printf("p %d %d %s %s\\n", tid, $e, $c0, $c1);')
        out.append("  if ($e) {")
    out.append("  " + "}" * (DEPTH // 2))
    return "\n".join(out)


def program() -> str:
    parts = [
        "#ifndef BPFTRACE_HAVE_BTF\n#include <linux/fs.h>\n#endif",
        'BEGIN { printf("B %s\\n", str($1)); }',
        "tracepoint:sched:sched_process_exec /@t[tid]/ {"
        ' printf("X %d %d %s\\n", tid, args->old_pid, str(args->filename)); }',
        "tracepoint:sched:sched_process_fork /@t[args->parent_pid]/ {"
        " @t[args->child_pid] = 1;"
        ' printf("F %d %d %d\\n", args->parent_pid, args->child_pid, pid); }',
        "tracepoint:sched:sched_process_exit /@t[tid]/ {"
        ' printf("Q %d %d\\n", tid, curtask->exit_code); delete(@t[tid]); }',
        "tracepoint:syscalls:sys_enter_execve /@t[tid]/ {"
        ' printf("A %d %s\\n", tid, str(args->filename)); join(args->argv, "\\x1f"); }',
        "tracepoint:syscalls:sys_enter_execveat /@t[tid]/ {"
        ' printf("A %d %s\\n", tid, str(args->filename)); join(args->argv, "\\x1f"); }',
        "tracepoint:syscalls:sys_exit_execve, tracepoint:syscalls:sys_exit_execveat /@t[tid]/ {"
        ' printf("R %d execve %d\\n", tid, args->ret); }',
    ]
    for name, (dirfd, arg) in ONE_PATH.items():
        flags = FLAGS.get(name)
        parts.append(
            f"tracepoint:syscalls:sys_enter_{name} /@t[tid]/ {{ @a[tid] = (uint64)args->{arg};"
            f" @d[tid] = {('args->' + dirfd) if dirfd else -100};"
            f" @f[tid] = {('(uint64)args->' + flags) if flags else 0}; }}"
        )
        parts.append(
            f"tracepoint:syscalls:sys_exit_{name} /@a[tid]/ {{"
            f' printf("S %d {name} %d %d %x %s\\n", tid, args->ret, @d[tid], @f[tid],'
            f" str(@a[tid])); delete(@a[tid]); delete(@d[tid]); delete(@f[tid]); }}"
        )
    # The opened file's path from the new descriptor: symlinks followed, as strace's -y.
    for name in ("open", "openat", "openat2", "creat"):
        parts.append(
            f"tracepoint:syscalls:sys_exit_{name} /@t[tid] && args->ret >= 0/ {{\n"
            "  $f = *(curtask->files->fdt->fd + args->ret);\n"
            + walk("$f->f_path.dentry", "$f->f_path.mnt", "P", "%x ", ", $f->f_flags")
            + "\n}"
        )
    for name, (dirfd1, arg1, dirfd2, arg2) in TWO_PATHS.items():
        parts.append(
            f"tracepoint:syscalls:sys_enter_{name} /@t[tid]/ {{ @a[tid] = (uint64)args->{arg1};"
            f" @b[tid] = (uint64)args->{arg2}; @d[tid] = {('args->' + dirfd1) if dirfd1 else -100};"
            f" @e[tid] = {('args->' + dirfd2) if dirfd2 else -100}; }}"
        )
        parts.append(
            f"tracepoint:syscalls:sys_exit_{name} /@a[tid]/ {{"
            f' printf("T %d {name} %d %d %d %s\\x1f%s\\n", tid, args->ret, @d[tid], @e[tid],'
            f" str(@a[tid]), str(@b[tid])); delete(@a[tid]); delete(@b[tid]);"
            f" delete(@d[tid]); delete(@e[tid]); }}"
        )
    parts.append(
        "tracepoint:syscalls:sys_enter_fchdir /@t[tid]/ {"
        " @a[tid] = 1; @d[tid] = args->fd; @f[tid] = 0; }"
    )
    parts.append(
        "tracepoint:syscalls:sys_exit_fchdir /@a[tid]/ {"
        ' printf("S %d fchdir %d %d 0 -\\n", tid, args->ret, @d[tid]);'
        " delete(@a[tid]); delete(@d[tid]); delete(@f[tid]); }"
    )
    # Last: bpftrace attaches in order, so nothing is traced before every probe is attached.
    parts.append(
        "tracepoint:sched:sched_process_exec /str(args->filename) == str($1)/ { @t[tid] = 1;"
        ' printf("X %d %d %s\\n", tid, args->old_pid, str(args->filename)); }'
    )
    parts.append("END { clear(@t); clear(@a); clear(@b); clear(@d); clear(@e); clear(@f); }")
    return "\n".join(parts) + "\n"


if __name__ == "__main__":
    Path(sys.argv[1]).write_text(program())
