"""strace around the agent: every file open, exec, chdir, rename, unlink, mkdir, link and symlink
of every process, with paths resolved by strace itself (`-y`), to one file per attempt.

`--seccomp-bpf` makes the kernel stop only on the traced syscalls, which is where the overhead is
won (benchmarks/trace_overhead.py). stat-family calls are not traced: see docs/isolation.md.
"""

from __future__ import annotations

import gzip
import os
import shutil
import subprocess
from collections.abc import Callable
from functools import cache
from pathlib import Path

from evaluator.sandbox.trace_base import TraceBackend
from evaluator.sandbox.trace_registry import register_tracer

STRACE_ENV = "AGENTIC_EVAL_STRACE_BIN"
PROBE_TIMEOUT_S = 20
SYSCALLS = (
    "open,openat,openat2,creat,execve,execveat,chdir,fchdir,"
    "rename,renameat,renameat2,unlink,unlinkat,rmdir,mkdir,mkdirat,"
    "link,linkat,symlink,symlinkat,truncate,mknod,mknodat,"
    # A channel that opens and reads files with no syscall of the process naming them: only
    # its set-up is seen, and makes the tool call's trace blind (docs/isolation.md). A file
    # opened by its handle names no path either (strace prints none for the descriptor).
    "io_uring_setup,open_by_handle_at,"
    # A Unix socket named by a path: made (`bind`) or reached (`connect`, a host service's
    # socket under /run) like a file.
    "bind,connect,"
    # An internet socket made (a network attempt even where a filter refuses its `connect`), and
    # a seccomp filter set up: a syscall a filter refuses never reaches strace's own filter
    # (docs/evidence-access.md, "The access trace: a call that reached nothing"). A Unix
    # datagram socket made or paired: its `sendto`s (not traced) reach any name, an abstract
    # one of the host's among them, so a tool call that makes one is blind.
    "socket,socketpair,seccomp,prctl,"
    # A change of the mounts: after a bind mount strace's paths name the mount point, not what
    # is read through it (`mount --bind /etc ws/e; cat ws/e/shadow` shows `ws/e/shadow`); and of
    # the root: after `chroot` an exec's path names a file under the new root.
    "mount,umount2,pivot_root,move_mount,open_tree,fsmount,mount_setattr,chroot,"
    # A reach into another process: its memory read or written, its descriptors taken, its
    # control taken. The jail drops CAP_SYS_PTRACE, but a process of the same user needs none:
    # a tool call could take the tracer's own log descriptor and write lines into it, or the
    # CLI's, with no open the trace shows (red team 12).
    "ptrace,process_vm_readv,process_vm_writev,pidfd_getfd,"
    # A file mapped as code (a library the loader maps, a program's own `mmap` with
    # `PROT_EXEC`): code the attempt wrote running inside a program of the machine makes that
    # process's exit no proof of what it ran (red team 19). Every mmap stops the process (the
    # filter is by syscall, not by argument): about 40 for a Python start, most of them a
    # heap's; the reader skips those undecoded (docs/benchmarks.md).
    "mmap,"
    # Process creation: the parent/child links that attribute accesses to a tool call.
    "clone,clone3,fork,vfork"
)
# strace prints `+++ killed by SIG +++` only for the signals it shows, so `signal=none` left a
# process killed by a signal (a server stopped with `pkill`) without an end in the log, and its
# tool call never seen whole. Shown: every signal that can kill; not those whose default is to
# be ignored or to stop (SIGCHLD, SIGURG, SIGWINCH, job control), the frequent ones. A shown
# delivery adds a `--- SIG... ---` line, which the reader skips.
SIGNALS = "signal=!SIGCHLD,SIGURG,SIGWINCH,SIGCONT,SIGSTOP,SIGTSTP,SIGTTIN,SIGTTOU"
# Long argv strings (a tool call's whole command) must arrive uncut to be matched to the session.
STRING_LIMIT = 65536


def options(output: Path) -> list[str]:
    return [
        "-f",
        # With `-o FILE` strace blocks SIGTERM by default, so a parent-death or timeout SIGTERM
        # would leave it (and the agent it keeps running) alive: be killable while waiting, and
        # pass the signal on to the agent, as strace does when it is stopped.
        "--interruptible=waiting",
        "--seccomp-bpf",
        "-q",  # not -qq: the `+++ exited` lines show which processes ended (a complete call)
        "-y",
        # clone() returns the child's pid in the jail's pid namespace; we need strace's.
        "--decode-pids=pidns",
        "-e",
        f"trace={SYSCALLS}",
        "-e",
        SIGNALS,
        "-s",
        str(STRING_LIMIT),
        "-o",
        str(output),
    ]


@cache
def _probe(binary: str) -> str | None:
    argv = [binary, *options(Path("/dev/null")), "true"]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=PROBE_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"strace could not start: {exc}"
    if done.returncode != 0:
        return f"strace cannot trace here (no ptrace?): {done.stderr.strip() or done.returncode}"
    return None


@register_tracer("strace")
class Tracer(TraceBackend):
    """strace, found as $AGENTIC_EVAL_STRACE_BIN or on PATH: inside the jail, around the agent."""

    def __init__(self) -> None:
        explicit = os.environ.get(STRACE_ENV)
        self.binary = explicit if explicit else shutil.which("strace")
        self.source = f"${STRACE_ENV}" if explicit else "PATH"

    def unavailable(self) -> str | None:
        if not self.binary:
            return "strace is not installed (Debian: apt-get install strace)"
        if not (os.path.isfile(self.binary) and os.access(self.binary, os.X_OK)):
            return f"strace from {self.source} is not an executable file: {self.binary}"
        return _probe(self.binary)

    def wrap(self, argv: list[str], output: Path, start: str = "") -> list[str]:
        # strace's first process is the one it starts: `start` is argv[0] already.
        assert self.binary
        return [self.binary, *options(output), "--", *argv]

    def tool_roots(self) -> tuple[Path, ...]:
        return (Path(os.path.realpath(self.binary)).parent,) if self.binary else ()


# Fast compression: the log is written once per attempt and rarely read; level 1 is about five
# times faster than gzip's default 9 for about 1.5 times the size (benchmarks/trace_overhead.py).
COMPRESS_LEVEL = 1
_BLOCK = 1 << 20


def save_compressed(source: Path, dest: Path, redact: Callable[[str], str] | None = None) -> None:
    """The trace into the attempt's artifacts, gzip-compressed, secrets redacted (by whole lines,
    a block of lines at a time: a secret never spans a line)."""
    temp = dest.with_name(f".{dest.name}.tmp")
    with (
        source.open(encoding="utf-8", errors="surrogateescape", newline="") as src,
        gzip.open(
            temp, "wt", encoding="utf-8", errors="surrogateescape", compresslevel=COMPRESS_LEVEL
        ) as out,
    ):
        while lines := src.readlines(_BLOCK):
            block = "".join(lines)
            out.write(redact(block) if redact is not None else block)
    os.replace(temp, dest)
