"""The kernel's path aliases ("doors"), resolved to what they name: one function shared by the
session analysis (`evidence`, `isolation`) and the strace reader (`sandbox`).

Some paths are not files but links the kernel follows itself, whatever the text says:
`/proc/<pid>/root` is that process's root directory (`/proc/self/root/etc/passwd` is
`/etc/passwd`), `/proc/<pid>/cwd` its working directory, `/proc/<pid>/exe` its program,
`/proc/<pid>/fd/N` and `/dev/fd/N` whatever descriptor N is open on, `/proc/<pid>/map_files/*`
the files it maps; `/proc/<pid>/task/<tid>/` and `/proc/thread-self/` have the same entries. A
prefix test on the text ("`/proc/self/` is the agent's own information") lets every one of them
through, so a path is walked component by component, in order, as the kernel walks it:

- `..` after a door steps up from what the door named (`/proc/self/root/..` is `/`): the text
  must not be normalised before the walk;
- `root` is `/` (for another process's root that is an assumption, marked `foreign`);
- `cwd` is the working directory the caller knows (a shell command's), else it is unresolved;
- `fd/0`, `fd/1`, `fd/2` as a whole path (also `/dev/stdin`, `/dev/stdout`, `/dev/stderr`) are
  the standard streams; any other descriptor, a mapped file, or anything below a descriptor
  cannot be known from text: unresolved;
- what stays below `/proc/self/` (or `/proc/thread-self/`, `/proc/self/task/<tid>/`) without
  crossing a door is the process's own information (`own-process`, judged by an exact list);
- `/proc/<pid>/` of a numeric pid is another (or an unknown) process (`other-process`); its
  doors are resolved like ours where the text allows (`root`), else unresolved.

`readlink`, when given, is asked about every other component, so symlinks on disk are followed
in the same walk (the isolation stage passes `disk_readlink`; the shell analysis and the trace
reader do not look at the evaluator's disk). It is never asked about anything under `/proc` or
about `/dev/fd` and the standard streams: there they would describe the evaluator's process.
"""

from __future__ import annotations

import functools
import os
import posixpath
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

PathKind = Literal["plain", "own-process", "other-process", "unresolved"]
Readlink = Callable[[str], str | None]

MAX_LINKS = 40  # the kernel's own limit on symlinks followed in one lookup
_STREAMS = {"stdin": "0", "stdout": "1", "stderr": "2"}
_OWN = ("self", "thread-self")


@dataclass(frozen=True)
class KernelPath:
    """`path`: absolute, what the text names as far as it can be known; for `own-process` it is
    spelled `/proc/self/<entry>` (a thread's entries are its process's); for `unresolved` it is
    the door and everything after it, as written."""

    path: str
    kind: PathKind = "plain"
    reason: str = ""
    foreign: bool = False  # reached through another process's root, assumed to be ours


def disk_readlink(path: str) -> str | None:
    """The target of a symlink on this machine's disk, None for anything else."""
    try:
        return os.readlink(path)
    except OSError:
        return None


def _parts(path: str) -> list[str]:
    return [p for p in path.split("/") if p not in ("", ".")]


def _join(parts: list[str]) -> str:
    return "/" + "/".join(parts)


def is_process_id(name: str) -> bool:
    return name.isascii() and name.isdigit()


def resolve_kernel_path(
    path: str, cwd: str | None = None, readlink: Readlink | None = None
) -> KernelPath:
    """What `path` names (relative paths are taken from `cwd`), doors resolved; see the module
    docstring. Pure unless `readlink` touches the disk; idempotent on its own `path`."""
    if not path.startswith("/"):
        if cwd is None or not cwd.startswith("/"):
            return KernelPath(path)  # relative to a directory nobody knows: kept as written
        path = f"{cwd}/{path}"
    if readlink is None and "proc" not in path and "dev" not in path and path[:2] != "//":
        # No door can be named without `proc` or `dev`: the walk would be `normpath` (the trace
        # reader resolves every path of a log, most of them library loads).
        return KernelPath(posixpath.normpath(path))
    pending = _parts(path)
    pending.reverse()  # a stack: the next component is at the end
    stack: list[str] = []
    links = 0
    foreign = False

    def unresolved(reason: str) -> KernelPath:
        rest = list(reversed(pending))
        return KernelPath(_join(stack + rest), "unresolved", reason)

    while pending:
        part = pending.pop()
        if part == "..":
            if stack:
                stack.pop()
            continue
        stack.append(part)
        if stack == ["dev", "fd"]:
            stack = ["proc", "self", "fd"]
            continue
        if len(stack) == 2 and stack[0] == "dev" and part in _STREAMS:
            stack = ["proc", "self", "fd", _STREAMS[part]]
        if stack[0] == "proc":
            if len(stack) == 2 and part == "thread-self":
                stack[1] = "self"  # a thread's entries are its process's, doors included
            if len(stack) < 2 or not (stack[1] == "self" or is_process_id(stack[1])):
                continue  # /proc/cpuinfo, /proc/sys/...: plain files
            own = stack[1] == "self"
            # The process's (or, under task/<tid>/, the thread's) directory ends at `entry`.
            entry = 4 if len(stack) >= 4 and stack[2] == "task" else 2
            if len(stack) == entry + 1:
                name = stack[entry]
                if name == "root":
                    stack = []
                    foreign = foreign or not own
                    continue
                if name == "cwd":
                    known = resolve_kernel_path(cwd, None, readlink) if cwd and own else None
                    if known is None or known.kind != "plain" or not known.path.startswith("/"):
                        return unresolved("the working directory of the process is not known")
                    stack = _parts(known.path)
                    foreign = foreign or known.foreign
                    continue
                if name == "exe" and pending:
                    return unresolved("a path below the process's program")
            elif len(stack) == entry + 2 and stack[entry] in ("fd", "map_files"):
                stream = own and stack[entry] == "fd" and stack[-1] in ("0", "1", "2")
                if not stream:
                    return unresolved(f"{_join(stack)} is an open file the text does not show")
                if pending:
                    return unresolved("a path below a standard stream")
            continue
        if readlink is not None:  # /proc, /dev/fd and the streams never get here
            target = readlink(_join(stack))
            if target is not None:
                links += 1
                if links > MAX_LINKS:
                    return unresolved("too many levels of symbolic links")
                stack.pop()
                if target.startswith("/"):
                    stack = []
                pending.extend(reversed(_parts(target)))
    if len(stack) >= 2 and stack[0] == "proc" and stack[1] == "self":
        entry = 4 if len(stack) >= 4 and stack[2] == "task" else 2
        return KernelPath(_join(["proc", "self", *stack[entry:]]), "own-process")
    if len(stack) >= 2 and stack[0] == "proc" and is_process_id(stack[1]):
        # Information about another (or an unknown) process: a real file, not a door.
        return KernelPath(_join(stack), "other-process", f"/proc/{stack[1]} is another process")
    return KernelPath(_join(stack), foreign=foreign)


@functools.lru_cache(maxsize=8192)  # pure, and sessions name the same paths over and over
def join_path(base: str, path: str, *, process_cwd: bool = False) -> str:
    """`path` taken from the directory `base`, as the text names it: doors resolved and `..`
    stepped as the kernel steps it (instead of `posixpath.normpath`, which would turn
    `/proc/self/root/../etc` into `/proc/self/etc`). `process_cwd`: `base` is also the working
    directory of the process that uses the path (a shell command's), so `/proc/self/cwd` is it."""
    if not path.startswith("/") and not base.startswith("/"):
        return posixpath.normpath(posixpath.join(base, path))  # under `~` when HOME is unknown
    joined = path if path.startswith("/") else f"{base}/{path}"
    return resolve_kernel_path(joined, base if process_cwd else None).path


# How strace names a memfd's descriptor (`-y`): `/memfd:NAME`, no file of a file system.
MEMFD = "/memfd:"
