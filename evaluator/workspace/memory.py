"""A run's scratch in memory: a tmpfs only the evaluator and its agents see.

Every attempt's agent starts by writing its state into a fresh home (Codex: six sqlite
databases with their write-ahead logs, its bundled skills, a session file); on a disk
filesystem that creation and its removal cost each attempt 40-110 ms of CPU here, and eight
agents starting on two cores wait for each other's (docs/benchmarks.md, "A run's scratch in
memory"). On a tmpfs they cost almost nothing.

The tmpfs is mounted in a mount namespace of the evaluator's own, so no other process of the
machine sees it and nothing is left mounted however the evaluator ends: the namespace goes with
its last process (a `kill -9` included), and the memory with it. Entering that namespace must
happen while the process has one thread (`unshare(CLONE_NEWNS)` refuses a process whose threads
share their filesystem context), so a command that runs agents calls `enter_private_mounts`
first, before anything starts a thread; a run then mounts its scratch with `mount_scratch`
only when the process is inside it. A process that never entered (a library caller, the test
suite's in-process runs) keeps its scratch on disk, as before. Mounting needs `CAP_SYS_ADMIN`
(root here): elsewhere the scratch stays on disk, with the reason.
"""

from __future__ import annotations

import errno
import os
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING

from evaluator.workspace.scratch import release_scratch

if TYPE_CHECKING:
    import ctypes


_CLONE_NEWNS = 0x00020000
_MS_REC = 0x4000
_MS_PRIVATE = 1 << 18
_MS_NOSUID = 2
_MS_NODEV = 4
_MNT_DETACH = 2
# Half of the machine's memory, as a tmpfs's own default: pages are used only as files are
# written, and a run removes each attempt's folders when it is done with them.
_SIZE = "50%"

# Why this process is not in a mount namespace of its own (None once it is); "" before asked.
_entered: str | None = ""
_mounted: set[Path] = set()


def _libc() -> ctypes.CDLL:
    import ctypes  # only when a run mounts: `--help` of a command that runs agents stays lean
    import ctypes.util

    return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)


def _errno() -> int:
    import ctypes

    return ctypes.get_errno()


def _thread_count() -> int:
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return 0  # cannot tell: treated as more than one


def enter_private_mounts() -> str | None:
    """Moves this process into a mount namespace of its own whose mounts propagate nowhere.
    Returns None when it is in one, else why not; asks the kernel once per process."""
    global _entered
    if _entered != "":
        return _entered
    if os.geteuid() != 0:
        _entered = "the evaluator does not run as root (mounting a tmpfs needs CAP_SYS_ADMIN)"
    elif _thread_count() != 1:
        _entered = "the evaluator was already running threads when the command started"
    else:
        libc = _libc()
        if libc.unshare(_CLONE_NEWNS) != 0:
            _entered = f"unshare(CLONE_NEWNS): {os.strerror(_errno())}"
        elif libc.mount(b"none", b"/", None, _MS_REC | _MS_PRIVATE, None) != 0:
            # In a namespace of its own whose mounts would still reach the machine's: none
            # is made in it.
            _entered = f"making / private: {os.strerror(_errno())}"
        else:
            _entered = None
    return _entered


def stay_on_disk(reason: str) -> None:
    """Declares that this process's runs keep their scratch on disk (a process that embeds the
    evaluator and must not change namespace, whatever its thread count), before it asks."""
    global _entered
    if _entered == "":
        _entered = reason


def memory_unavailable() -> str | None:
    """Why a run of this process cannot have its scratch in memory (None: it can)."""
    if _entered == "":
        return "the command did not ask for private mounts before it started"
    return _entered


def mount_scratch(path: Path) -> None:
    """Mounts an empty tmpfs, private to the user, on the directory `path` (which exists).
    Raises OSError when the kernel refuses."""
    assert _entered is None, "enter_private_mounts() first"
    options = f"mode=0700,size={_SIZE},uid={os.geteuid()},gid={os.getegid()}".encode()
    libc = _libc()
    if libc.mount(b"agentic-eval", os.fsencode(path), b"tmpfs", _MS_NOSUID | _MS_NODEV, options):
        code = _errno()
        raise OSError(code, f"mount tmpfs: {os.strerror(code)}", str(path))
    _mounted.add(path)


def is_mounted(path: Path) -> bool:
    return path in _mounted


def unmount_scratch(path: Path) -> None:
    """Lets go of the tmpfs on `path` and everything in it (detached: a file still open is
    freed when it is closed), then removes the now empty directory it was mounted on."""
    if path not in _mounted:
        return
    libc = _libc()
    if libc.umount2(os.fsencode(path), _MNT_DETACH) != 0:
        code = _errno()
        if code != errno.EINVAL:  # EINVAL: nothing mounted there any more
            raise OSError(code, f"umount tmpfs: {os.strerror(code)}", str(path))
    _mounted.discard(path)
    with suppress(FileNotFoundError):
        path.rmdir()
    release_scratch(path)
