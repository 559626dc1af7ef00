"""What the access trace saw one tool call run, as neutral facts: the isolation stage extracts
them from the strace log (isolation/trace.py), the judge reads them (a run the shell text
cannot prove, judge/checks/trace_proof.py). Neither imports the other; both import this."""

from __future__ import annotations

import posixpath
from dataclasses import dataclass

from evaluator.kernelpaths import MEMFD


@dataclass(frozen=True)
class ExecutedProgram:
    """A program one of the call's processes started (a successful `execve`), and how that
    process ended: by `exit_code`, or killed by `signal` (both None: the log does not show its
    end). A process that exec'd again ended as its last program. A process that ran code the
    attempt wrote (`agents_code`) has neither: its end shows nothing of what it ran."""

    path: str  # the file exec'd, resolved against `cwd`
    argv: tuple[str, ...]
    cwd: str | None  # None: a directory the log never showed
    exit_code: int | None = None
    signal: str | None = None
    # The trace log's lines of its exec and of its process's end: one log for every tool call
    # of the attempt, in the order the kernel let things happen (None: not known).
    started_line: int | None = None
    ended_line: int | None = None
    # Files the attempt wrote that its process, or one it descends from in the tool call,
    # mapped as code (`LD_PRELOAD=./e.so`, a `dlopen`), or the process that took control of it
    # (`(process N, by ptrace)`): that code ran inside it and may have ended it (`_exit(0)` in
    # a constructor, a syscall made `exit_group(0)`), so its end is not kept (red team 19).
    agents_code: tuple[str, ...] = ()

    @property
    def ended(self) -> str:
        if self.agents_code:
            return (
                "ran code the attempt wrote, or was controlled by another process of it"
                f" ({', '.join(self.agents_code[:3])}), so its end does not show what it ran"
            )
        if self.exit_code is not None:
            return f"exited with {self.exit_code}"
        if self.signal is not None:
            return f"was killed by {self.signal}"
        return "never ended in the log"

    def names(self, path: str) -> bool:
        """Whether it ran the file `path`: exec'd it, or was given it as an argument (an
        interpreter's script), resolved against its directory."""
        if self.path == path:
            return True
        for word in self.argv[1:]:
            if word.startswith("/"):
                if posixpath.normpath(word) == path:
                    return True
            elif self.cwd is not None and posixpath.normpath(f"{self.cwd}/{word}") == path:
                return True
        return False


# The files a shell reads before it runs its command, by name (bash, sh, dash, zsh, ksh: login,
# interactive, and bash's non-interactive `~/.bashrc` when its input is a socket, as Claude
# Code's is). What they define (a function, an alias, `PATH`) is in force in the command, and
# no word of the command shows it.
SHELL_STARTUP_FILES = frozenset(
    {
        ".bashrc",
        ".bash_profile",
        ".bash_login",
        ".profile",
        ".zshenv",
        ".zprofile",
        ".zshrc",
        ".zlogin",
        ".kshrc",
        ".mkshrc",
    }
)


# The modules Python imports at start, before the script it was given (`site`): code there runs
# inside the interpreter's own process, so its exec (and exit) says nothing of the script. Their
# compiled forms too (`__pycache__/usercustomize.cpython-311.pyc`: Python opens only that one
# once it is fresh). Not `.pth` files, which may hold code too: every package install writes
# them (a virtualenv's pip), and nothing in the trace tells the two apart (red team 17, "Left").
PYTHON_STARTUP_MODULES = ("sitecustomize", "usercustomize")


def python_startup(path: str) -> bool:
    """Whether `path` is a module Python runs at start (its source or its compiled form)."""
    name = posixpath.basename(path)
    if name in {f"{m}.py" for m in PYTHON_STARTUP_MODULES}:
        return True
    return (
        posixpath.basename(posixpath.dirname(path)) == "__pycache__"
        and name.endswith(".pyc")
        and name.split(".", 1)[0] in PYTHON_STARTUP_MODULES
    )


def startup_file(path: str) -> bool:
    """Whether `path` is named as a shell's or Python's start-up file."""
    return posixpath.basename(path) in SHELL_STARTUP_FILES or python_startup(path)


def agents_code(mapped: str, written: frozenset[str]) -> bool:
    """Whether a file mapped as code is the attempt's: one it wrote, or code in no file of a
    file system (`/memfd:x`, an anonymous inode), which only a process could have put there,
    or another process of the call that took control (`(process N, by ptrace)`)."""
    return mapped in written or not mapped.startswith("/") or mapped.startswith(MEMFD)


def agents_startup(
    read: frozenset[str], written: frozenset[str], links: dict[str, set[str]] | None = None
) -> tuple[str, ...]:
    """Of the paths a tool call read, the start-up files the attempt itself wrote (that call
    or an earlier one, `written`): a shell's (`~/.bashrc`), which ran the agent's text before
    the command, or Python's (`usercustomize.py`), which ran it inside the interpreter before
    its script (red team 17). Also a file read through a start-up file's name that the attempt
    made a symlink (`links`: each name a process made a link, with its targets): the trace
    names the file the link led to (a workspace file the CLI's own tool wrote, unseen)."""
    through = {
        target
        for name, targets in (links or {}).items()
        if name in written and startup_file(name)
        for target in targets
    }
    return tuple(sorted(p for p in read if (p in written and startup_file(p)) or p in through))


@dataclass(frozen=True)
class TracedCall:
    """One session tool call (by call id) as the trace saw it. `complete`: the log shows its
    whole process tree (every process ended, nothing dropped or unreadable): only then does
    the absence of a program in `programs` mean it never ran. `paths`: every path its
    processes used, as resolved and as written."""

    call_id: str
    complete: bool
    programs: tuple[ExecutedProgram, ...] = ()
    paths: frozenset[str] = frozenset()
    # What of it could have fetched: internet connections (`host:port`), Unix sockets of
    # services outside the attempt, network sockets made (their family), whatever came of
    # them. A name-service lookup (nscd's socket) is not one: it fetches nothing.
    network: tuple[str, ...] = ()
    # Whether its silence says it made none: the log records every socket and seccomp filter
    # (`network_traced`) and none was set up on the call, which would hide what it refuses.
    network_visible: bool = False
    # Why it is not `complete` (empty when it is), for a verdict to say.
    incomplete: str = ""
    # The paths its processes wrote (opened for writing, made, renamed to, linked): what a
    # later call reading one may find of the files this one read (red team 9).
    written: frozenset[str] = frozenset()
    # Shell start-up files (`~/.bashrc`, `~/.profile`, ...) its processes read that the
    # attempt wrote, in this call or an earlier one: its commands ran after the agent's own
    # definitions, so their names may not be the programs they name (red team 17).
    agents_startup: tuple[str, ...] = ()
    # Every path a tool call of the attempt wrote up to and with this one (the trace's order).
    attempt_written: frozenset[str] = frozenset()
    # Files the attempt wrote (or no file at all: a `memfd`) that its processes mapped as code
    # (red team 19): no command of it is a sure run by its text, and the processes that ran
    # that code prove nothing by their exit (`ExecutedProgram.agents_code`).
    agents_code: tuple[str, ...] = ()

    @property
    def reached_nothing(self) -> bool:
        """The trace saw it whole and no process of it tried the network: it fetched nothing."""
        return self.network_unproven is None

    @property
    def network_unproven(self) -> str | None:
        """Why the trace cannot say that it fetched nothing (None: it can)."""
        if self.network:
            return f"the trace shows it trying the network: {', '.join(self.network[:3])}"
        if not self.complete:
            return f"the trace did not see it whole: {self.incomplete or 'unknown why'}"
        if not self.network_visible:
            return (
                "the trace cannot show its network calls (a seccomp filter was set up, or the"
                " log does not record sockets)"
            )
        return None
