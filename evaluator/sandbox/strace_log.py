"""Reading an strace log (see tracer.py for its options) into accesses per tool call.

Who did what: each agent runs its tool calls in its own way, and its adapter says how to tell
them in the process tree (a `ToolCallRecognizer`: Codex runs each one under a sandbox helper,
Claude Code gives its Bash shells a recognisable script). The process an exec starts a tool call
in, and every process it creates, belong to that call. Everything else is the agent CLI itself
(starting up, reading its installation, the agent home and its files, probing the system): its
reads are its own business. Its *writes* are not always (an agent may apply patches in its own
process), so a write by one of the recogniser's `cli_images` outside the agent's directories is
kept as `cli_writes`.
"""

from __future__ import annotations

import codecs
import os
import posixpath
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, TypeVar

from evaluator.kernelpaths import MEMFD, resolve_kernel_path
from evaluator.vocabulary import NAME_SERVICE_SOCKETS, TRACED_SHELLS, AccessKind, Outcome

# The tool of a call that applies a patch (in the `apply_patch` notation of evidence/patch.py).
PATCH_CALL = "apply_patch"
# Stored per tool call: the first accesses of each (path, access, outcome), not every repeat.
# A call with more is not seen whole. `pip install` of an SDK with its dependencies writes some
# 25,000 files (mcp-builder's `anthropic` and `mcp`): the bound is well above that.
MAX_ACCESSES_PER_CALL = 100_000

_LINE = re.compile(r"^(?P<pid>\d+)\s+(?P<rest>.*)$")
_CALL = re.compile(r"^(?P<name>[a-z0-9_]+)\((?P<args>.*)$", re.S)
_RESUMED = re.compile(r"^<\.\.\. (?P<name>[a-z0-9_]+) resumed>(?P<args>.*)$", re.S)
# An exec by a thread other than its process's first: the kernel ends the other threads and the
# thread takes the first's pid (strace: `T execve(... <pid changed to P ...>`, then `P +++
# superseded by execve in pid T +++` and `P <... execve resumed>`). Only an exec past its point of
# no return supersedes the process, so it succeeded whatever result strace decodes.
_PID_CHANGED = re.compile(
    r"^(?P<name>execve|execveat)\((?P<args>.*) <pid changed to (?P<pid>\d+) \.\.\.>$", re.S
)
_SUPERSEDED = "+++ superseded by execve"
_RESULT = re.compile(
    r"^(?P<args>.*)\)\s+=\s+(?P<ret>-?\d+|0x[0-9a-f]+|\?)(?P<fd><[^\n]*?>)?(?:\(deleted\))?"
    r"(?:\s+(?P<errno>E[A-Z0-9]+))?(?:\s+\(.*?\))?(?:\s*/\* (?P<nspid>\d+) in strace's PID NS \*/)?\s*$",
    re.S,
)
_TOKEN = re.compile(
    r'"[^"\\]*(?:\\.[^"\\]*)*"(?:\.\.\.)?'  # a C string, maybe cut by -s
    r"|(?:\d+|AT_FDCWD)<.*?>(?=[,)\]}]|$)"  # a descriptor with its path, decoded by -y
    r"|[\[\]{}(),]|\s+|[^\"\[\]{}(),\s]+|.",
    re.S,
)
# An escape Python's decoder reads differently from strace's (`\\a`, `\\'`, `\\q`): rare, read slowly.
_OTHER_ESCAPE = re.compile(r'\\[^nrtvf\\"0-7x]')
_LEADING_STRING = re.compile(r'("[^"\\]*(?:\\.[^"\\]*)*"(?:\.\.\.)?)\s*,', re.S)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "v": "\v", "f": "\f", "\\": "\\", '"': '"'}
_WRITE_FLAGS = ("O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC", "O_APPEND")
_OPENS = ("open", "openat", "openat2", "creat")
_CWD_CALLS = ("chdir", "fchdir")
_WRITES_ONE = (
    "unlink",
    "unlinkat",
    "rmdir",
    "mkdir",
    "mkdirat",
    "truncate",
    "mknod",  # a regular file, a FIFO or a socket node made by name: a write
    "mknodat",
)
# `bind`/`connect` of a Unix socket named by a path (an abstract one, `sun_path=@"..."`, is no file).
_SOCKET_CALLS = ("bind", "connect")
_SUN_PATH = re.compile(r'sun_path="((?:[^"\\]|\\.)*)"')
# An abstract Unix socket (`sun_path=@"..."`): no file, but its names are the network
# namespace's, which the jail shares with the host, so a connection reaches whatever process
# of the machine listens there (red team 8) unless a process of the attempt bound it.
_SUN_ABSTRACT = re.compile(r'sun_path=@"((?:[^"\\]|\\.)*)"')
# A `connect` to an internet address: strace decodes the port and the address of both families.
# A name lookup may instead ask a local service over its socket (`NAME_SERVICE_SOCKETS`).
_INET_PEER = re.compile(
    r"sa_family=AF_INET6?, sin6?_port=htons\((?P<port>\d+)\)"
    r'.*?(?:inet_addr\("(?P<v4>[^"]*)"\)|inet_pton\(AF_INET6, "(?P<v6>[^"]*)")'
)
# A socket of these families reaches the network (an internet address, a raw packet): made, it
# is a network attempt even when nothing connects it (a datagram sent with `sendto`) or a filter
# refuses its `connect`.
_NETWORK_FAMILIES = ("AF_INET", "AF_INET6", "AF_PACKET")
# The syscalls that make sockets. A Unix datagram socket, made or paired, sends to any name it
# is given with each `sendto`/`sendmsg` (connected or not: the address wins), an abstract name
# of the host's network namespace among them; those syscalls are not traced (the CLI's own
# traffic would stop at every write), so such a socket is a channel the trace cannot see into.
_SOCKET_MAKERS = ("socket", "socketpair")
DATAGRAM_SOCKET = "SOCK_DGRAM"
# A seccomp filter set up, by its own syscall or by `prctl`: a syscall it refuses (Codex's
# sandbox refuses `socket()` itself) is refused before strace's own filter sees it, so it never
# reaches the log (docs/evidence-access.md, "The access trace: a call that reached nothing").
_FILTER_CALLS = ("seccomp", "prctl")
# Syscalls that set up a channel through which the process opens, reads and writes files
# without any traced syscall naming them (io_uring's IORING_OP_OPENAT, _READ, ...), or open a
# file no path names (`open_by_handle_at`: root with CAP_DAC_READ_SEARCH, which the jail drops).
_BLIND_CHANNELS = ("io_uring_setup", "open_by_handle_at")
# Syscalls that change the mounts (evaluator/sandbox/tracer.py), with the index of the path
# argument they change (None: none): once one took effect, a path strace prints (a descriptor's
# too) may name a mount point rather than what lies under it. A tool's business never.
MOUNT_CALLS: dict[str, int | None] = {
    "mount": 1,
    "umount2": 0,
    "pivot_root": 0,
    "move_mount": 3,
    "open_tree": 1,
    "fsmount": None,
    "mount_setattr": 1,
    # The root: after it the paths a process names (an exec's `/usr/bin/python3`) are files
    # under the new root, which strace prints as named (red team 8).
    "chroot": 0,
}
# Syscalls that reach into another process (evaluator/sandbox/tracer.py), with the index of
# the argument naming it (None: none strace shows: `pidfd_getfd`'s descriptor prints as
# `anon_inode:[pidfd]`). What the process then reads or writes through the other one (its
# memory, a descriptor it opened, a syscall it is made to run) is in no line of the caller's:
# with a copy of the tracer's own log descriptor a program wrote lines that made it a child of
# the CLI, whose reads are not the agent's (red team 12). Only a process of the same tool call
# is its own to reach (`PTRACE_TRACEME` reaches the parent).
PROCESS_REACHES: dict[str, int | None] = {
    "ptrace": 1,
    "process_vm_readv": 0,
    "process_vm_writev": 0,
    "pidfd_getfd": None,
}
# The reaches that change the process reached (not `process_vm_readv`, which only reads it).
CONTROLS = ("ptrace", "process_vm_writev")
_PID_ARG = re.compile(r"^(?P<pid>-?\d+)(?:\s*/\* (?P<ns>\d+) in strace's PID NS \*/)?$")
# A process created with this flag is not attached by a tracer following its parent (the
# kernel's own threads use it; a program may ask for it too): strace `-f` never sees it.
UNTRACED_CLONE = "CLONE_UNTRACED"
_WRITES_TWO = ("rename", "renameat", "renameat2", "link", "linkat")
_PROCESS_CALLS = ("clone", "clone3", "fork", "vfork")
# A file mapped as code: the dynamic loader's libraries (`LD_PRELOAD`, `LD_LIBRARY_PATH`,
# `LD_AUDIT`, `dlopen`) and any program's own `mmap(..., PROT_EXEC, ..., fd, ...)`. Only one
# with `PROT_EXEC` and a descriptor matters (most mmaps are a heap's, anonymous): a line
# without it is skipped undecoded.
CODE_MAP = "mmap"
EXEC_PROT = "PROT_EXEC"
_EXECS = ("execve", "execveat")
# Syscalls that change who a process is or where it stands: always decoded.
_ALWAYS_DECODED = frozenset(
    (*_PROCESS_CALLS, *_EXECS, *_CWD_CALLS, *_FILTER_CALLS, *_SOCKET_MAKERS)
)


@dataclass(frozen=True)
class TracedAccess:
    path: str
    access: AccessKind
    outcome: Outcome
    syscall: str
    pid: int
    line: int
    error: str | None = None
    # The path as the program wrote it, when strace's resolution (symlinks followed) differs.
    requested: str | None = None
    # The program the process ran then (its image's base name; "" before any exec was seen):
    # what read a file as code or as data (judge/checks/stop_proof.py).
    image: str = ""

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {
            "path": self.path,
            "access": self.access,
            "outcome": self.outcome,
            "syscall": self.syscall,
            "pid": self.pid,
            "line": self.line,
        }
        if self.error:
            out["error"] = self.error
        if self.requested:
            out["requested"] = self.requested
        return out


@dataclass(frozen=True)
class TracedConnect:
    """A process's `connect` to an internet address (`host:port`, the address as strace printed
    it), whatever its outcome: the sign that it tried the network."""

    pid: int
    peer: str
    outcome: Outcome
    line: int
    # A non-blocking `connect` (`EINPROGRESS`, as curl's): it may well have connected, after.
    pending: bool = False


@dataclass(frozen=True)
class TracedExec:
    """A program a tool call's process started (a successful `execve`): the file as exec'd,
    resolved against the process's directory, its argv as passed, and where it ran."""

    pid: int
    path: str
    argv: tuple[str, ...]
    cwd: str | None  # None: a directory the log never showed
    line: int


# How a process ended, from strace's `+++` line: (exit code, None) or (None, signal name).
ProcessEnd = tuple[int | None, str | None]
# What strace's `-y` writes after a descriptor whose file was removed (or a memfd's).
DELETED = "(deleted)"
_EXITED = re.compile(r"^\+\+\+ exited with (?P<code>-?\d+) \+\+\+")
_KILLED = re.compile(r"^\+\+\+ killed by (?P<signal>[A-Z0-9_+]+)")


class ToolCallRecognizer(Protocol):
    """How one agent's tool calls look in its process tree; each adapter declares its own."""

    @property
    def helper_images(self) -> frozenset[str]:
        """Programs every tool call of the agent runs under (a sandbox helper); their own exec
        is not a call, what they start may be."""
        ...

    @property
    def cli_images(self) -> frozenset[str]:
        """The agent CLI's own program names: their writes outside the agent's directories are
        kept."""
        ...

    def tool_call(self, image: str, argv: list[str], in_helper: bool) -> tuple[str, str] | None:
        """(command text, tool) when a process outside every call, exec-ing `image` (its base
        name) with `argv`, starts a tool call; `in_helper` when it descends from a helper."""
        ...


def shell_script(argv: list[str]) -> str | None:
    """The script of `sh -c SCRIPT` (any shell, `-c` or `-lc`), else None."""
    if len(argv) >= 3 and os.path.basename(argv[0]) in TRACED_SHELLS and argv[1] in ("-c", "-lc"):
        return argv[2]
    return None


_Key = TypeVar("_Key")
_Item = TypeVar("_Item")


@dataclass
class ToolCallTrace:
    """One tool call's process subtree: a shell command (`command` is its text) or another
    tool its recogniser named (a patch applied by a file helper: `command` empty)."""

    index: int
    pid: int
    command: str
    line: int
    tool: str = "shell"
    accesses: list[TracedAccess] = field(default_factory=list)
    dropped: int = 0
    pids: set[int] = field(default_factory=set)  # every process of the subtree
    # Who created each of them (a thread's creator is a thread of its own process), and which
    # were threads (`CLONE_THREAD`): a process's own entries and the processes it started.
    parents: dict[int, int] = field(default_factory=dict)
    threads: set[int] = field(default_factory=set)
    failed_execs: list[str] = field(default_factory=list)  # programs it tried and failed to run
    execs: list[TracedExec] = field(default_factory=list)  # programs its processes started
    connects: list[TracedConnect] = field(default_factory=list)  # its internet connections
    # The network sockets its processes made (`_NETWORK_FAMILIES`; the family as `peer`).
    sockets: list[TracedConnect] = field(default_factory=list)
    # A seccomp filter was set up on one of its processes (or before it, on the process it
    # started from): what the filter refuses is not in the log.
    filtered: bool = False
    # Channels it set up whose file accesses the trace cannot see (`_BLIND_CHANNELS`), and
    # processes it created that the trace does not follow (`UNTRACED_CLONE`).
    blind: list[TracedAccess] = field(default_factory=list)
    # Its command line was longer than the log keeps: `command` is a prefix of its text.
    cut: bool = False
    # Its changes of the mounts, tried or made (`MOUNT_CALLS`).
    remounts: list[TracedAccess] = field(default_factory=list)
    # Its reaches into a process outside it, tried or made (`PROCESS_REACHES`).
    reaches: list[TracedAccess] = field(default_factory=list)
    # The files its processes mapped as code (`CODE_MAP`), each once per process: the path of
    # the descriptor as strace resolved it (`(deleted)` cut), or its name when it is no file
    # of a file system (`/memfd:x`, `anon_inode`); and its processes another of them took
    # control of (`CONTROLS`), as `(process N, by ptrace)`.
    code_maps: list[TracedAccess] = field(default_factory=list)
    _seen: set[tuple[str, str, str, str]] = field(default_factory=set, repr=False)
    _seen_execs: set[str] = field(default_factory=set, repr=False)
    _seen_connects: set[tuple[str, str]] = field(default_factory=set, repr=False)
    _seen_maps: set[tuple[str, int]] = field(default_factory=set, repr=False)

    def _keep_once(self, seen: set[_Key], key: _Key, kept: list[_Item], item: _Item) -> None:
        """`item` into `kept` unless its `key` is in `seen`; past the limit the call is
        incomplete (`dropped`), as for its accesses."""
        if key in seen:
            return
        if len(kept) >= MAX_ACCESSES_PER_CALL:
            self.dropped += 1
            return
        seen.add(key)
        kept.append(item)

    def code_map(self, access: TracedAccess) -> None:
        self._keep_once(self._seen_maps, (access.path, access.pid), self.code_maps, access)

    def failed_exec(self, path: str) -> None:
        self._keep_once(self._seen_execs, path, self.failed_execs, path)

    def connect(self, connect: TracedConnect) -> None:
        """Each peer once per outcome: a flood of one (a name-service socket, which is no
        network attempt) must not push a later connection out (red team 9); past the limit the
        call is incomplete, as for its accesses."""
        key = (connect.peer, connect.outcome)
        self._keep_once(self._seen_connects, key, self.connects, connect)

    def add(self, access: TracedAccess) -> None:
        # Under /proc the same path is another file for each process that names it (its own
        # entries or another's): kept once per process there.
        who = str(access.pid) if access.path.startswith("/proc/") else ""
        key = (access.path, access.access, access.outcome, who)
        if key in self._seen:
            return
        if len(self.accesses) >= MAX_ACCESSES_PER_CALL:
            self.dropped += 1
            return
        self._seen.add(key)
        self.accesses.append(access)

    def process_of(self, pid: int) -> int:
        """The process (thread group) `pid` is a thread of: itself unless the log showed it
        made as a thread (`CLONE_THREAD`), then its creator's."""
        seen = {pid}
        while pid in self.threads and self.parents.get(pid) not in (None, *seen):
            pid = self.parents[pid]
            seen.add(pid)
        return pid

    def started_by(self, target: int, pid: int) -> bool:
        """Whether process `target` is `pid`'s own process or one its process started, directly
        or through others, as the log shows the creations (never an ancestor or a sibling)."""
        own = self.process_of(pid)
        seen: set[int] = set()
        current: int | None = self.process_of(target)
        while current is not None and current not in seen:
            if current == own:
                return True
            seen.add(current)
            parent = self.parents.get(current)
            current = None if parent is None else self.process_of(parent)
        return False


@dataclass
class ObservedTrace:
    tool_calls: list[ToolCallTrace] = field(default_factory=list)
    cli_writes: list[TracedAccess] = field(default_factory=list)
    lines: int = 0
    unparsed: int = 0
    # Events of processes whose creation the log never showed: attributed to nobody.
    unattributed: int = 0
    exited: set[int] = field(default_factory=set)  # processes whose end (`+++`) the log shows
    # Processes that ended (killed) inside a traced call whose result the log never shows.
    cut_short: dict[int, str] = field(default_factory=dict)
    endings: dict[int, ProcessEnd] = field(default_factory=dict)  # how each of them ended
    ending_lines: dict[int, int] = field(default_factory=dict)  # the log line of each end
    # Every name a traced process made a symlink (or moved one to), with each target it named
    # there (resolved from the link's folder), kept after the link is gone: the agent CLI's own
    # file tools follow a link in the CLI's process, which the log does not attribute to any
    # tool call (red team 12: a name swapped between a file and a link while the CLI read it).
    links_made: dict[str, set[str]] = field(default_factory=dict)
    # The log records `socket` and seccomp filters (a log written before they were traced, read
    # again, does not): only then does a tool call's silence say it made no network attempt.
    network_traced: bool = False
    # The internet ports a process of the attempt bound by number (any address), and whether
    # one bound port 0 (the kernel chose it; the log does not show which): a connection to this
    # machine on another port reached a process beside the attempt (red team 15).
    ports_bound: set[int] = field(default_factory=set)
    port_chosen_by_kernel: bool = False

    def complete(self, call: ToolCallTrace) -> bool:
        """Whether the log shows all of a tool call: every process of its subtree ended in the
        log (strace neither detached nor was killed before them), none of its accesses was
        dropped, it set up no channel the trace cannot see into (io_uring) nor made a process
        the trace does not follow (`CLONE_UNTRACED`), and no line of the log was unreadable or
        unattributed."""
        return not self.incompleteness(call)

    def incompleteness(self, call: ToolCallTrace) -> str:
        """Why the log does not show all of `call` (empty: it does)."""
        unended = sorted(call.pids - self.exited)
        if unended:
            return f"{len(unended)} of its processes never ended in the log (pid {unended[0]})"
        cut = sorted(pid for pid in call.pids if pid in self.cut_short)
        if cut:
            return (
                f"{len(cut)} of its processes ended inside a system call whose outcome the log"
                f" does not show (pid {cut[0]}: {self.cut_short[cut[0]]})"
            )
        if call.dropped:
            return f"{call.dropped} of its accesses were over the limit kept per call"
        if call.reaches:
            reach = call.reaches[0]
            return f"it reached into another process ({reach.syscall} {reach.path})"
        if call.blind:
            blind = call.blind[0].syscall
            if blind in _PROCESS_CALLS:
                return f"it made a process the trace does not follow ({blind} {UNTRACED_CLONE})"
            if blind in _SOCKET_MAKERS:
                return f"it made a Unix datagram socket, whose sends the trace cannot see ({blind})"
            return f"it set up a channel the trace cannot see into ({blind})"
        if self.unparsed:
            return f"{self.unparsed} line(s) of the log could not be read"
        if self.unattributed:
            return f"{self.unattributed} event(s) of the log belong to no known process"
        return ""


@dataclass
class _Event:
    pid: int
    name: str
    raw_args: str
    ret: int | None
    fd_path: str | None
    errno: str | None
    child: int | None
    line: int
    _args: list[str] | None = None

    @property
    def args(self) -> list[str]:
        # Split on demand: most events (the CLI's own reads) never need their arguments.
        if self._args is None:
            self._args = split_args(self.raw_args)
        return self._args


@dataclass
class _Proc:
    parent: int | None = None
    cwd: str | None = None
    image: str = ""
    in_sandbox: bool = False
    call: ToolCallTrace | None = None


def _unquote(token: str) -> str:
    """A C string as strace prints it (`"a\\nb\\303\\251"`), back to text."""
    body = token[1:]
    end = body.rfind('"')
    body = body[:end] if end >= 0 else body
    if "\\" not in body:
        return body
    if not _OTHER_ESCAPE.search(body):
        # Only the escapes strace writes (C's `\\n`, `\\"`, `\\\\`, octal and hex bytes): Python's
        # bytes-literal decoder reads them the same way, at C speed.
        try:
            raw = codecs.escape_decode(body.encode("utf-8", "surrogateescape"))[0]
            return str(raw.decode("utf-8", "surrogateescape"))
        except ValueError:
            pass  # a cut `\\x` or a trailing backslash: the careful loop below keeps them
    return _unquote_slowly(body)


def _unquote_slowly(body: str) -> str:
    out = bytearray()
    index = 0
    while index < len(body):
        char = body[index]
        if char != "\\" or index + 1 == len(body):
            out += char.encode("utf-8", "surrogateescape")
            index += 1
            continue
        nxt = body[index + 1]
        if nxt in _ESCAPES:
            out += _ESCAPES[nxt].encode()
            index += 2
        elif nxt == "x" and re.match(r"[0-9a-fA-F]{2}", body[index + 2 : index + 4]):
            out.append(int(body[index + 2 : index + 4], 16))
            index += 4
        else:
            digits = re.match(r"[0-7]{1,3}", body[index + 1 : index + 4])
            if digits:
                out.append(int(digits.group(0), 8) & 0xFF)
                index += 1 + len(digits.group(0))
            else:
                out += nxt.encode()
                index += 2
    return out.decode("utf-8", "surrogateescape")


def split_args(text: str) -> list[str]:
    """Top-level comma-separated arguments; strings, brackets and `-y` paths (`3</a,b>`) whole."""
    args: list[str] = []
    depth = 0
    current: list[str] = []
    for token in _TOKEN.findall(text):
        if token in "[{(":
            depth += 1
        elif token in "]})":
            depth -= 1
        elif token == "," and depth == 0:
            args.append("".join(current).strip())
            current = []
            continue
        current.append(token)
    if "".join(current).strip():
        args.append("".join(current).strip())
    return args


# What a program exec'd from a descriptor of no file (a memfd) is named in the trace's facts.
NO_FILE = "(code in no file)"


def no_file(path: str) -> bool:
    """Whether a descriptor's path (as `-y` prints it) names no file of a file system: a memfd
    (`/memfd:x`) or an anonymous inode, whose content only a process could have put there."""
    return not path.startswith("/") or path.startswith(MEMFD)


def _fd_path(token: str) -> str | None:
    """`3</var/tmp/ws>` or `AT_FDCWD</var/tmp/ws>` as decoded by `-y` (`3</memfd:x>(deleted)`:
    a file no longer, or never, in a folder)."""
    token = token.removesuffix(DELETED)
    start = token.find("<")
    if start < 0 or not token.endswith(">"):
        return None
    return token[start + 1 : -1]


def _leading_string(args: str) -> str | None:
    """The first argument when it is a C string followed by more arguments, as `split_args`
    would give it; None when it is anything else (then `split_args` decides)."""
    match = _LEADING_STRING.match(args)
    if match is None or not args[match.end() :].strip():
        return None
    return match.group(1)


def _cut(token: str) -> bool:
    """Whether strace cut a string of an argument list short (`"abc"...`): an element whose
    text is whole ends with its closing quote."""
    inner = token.strip()
    if inner.startswith("["):
        inner = inner[1:-1] if inner.endswith("]") else inner[1:]
    return any(t.startswith('"') and t.endswith('"...') for t in split_args(inner))


def _string_list(token: str) -> list[str]:
    inner = token.strip()
    if inner.startswith("["):
        inner = inner[1:-1] if inner.endswith("]") else inner[1:]
    return [_unquote(t) for t in split_args(inner) if t.startswith('"')]


def _name(rest: str) -> str:
    """The syscall's name, cheaply: what comes before the first parenthesis ("" if none)."""
    paren = rest.find("(")
    return rest[:paren] if paren > 0 else ""


def _events(
    lines: Iterable[str], trace: ObservedTrace, droppable: Callable[[int, str, str], bool]
) -> Iterator[_Event]:
    """The log's syscalls in order, decoded. `droppable(pid, name, text)` says, before anything is
    decoded, that a line cannot matter (the CLI's own reads: most of the log); it is skipped."""
    pending: dict[int, tuple[str, str, int]] = {}
    dropped: set[int] = set()  # processes whose unfinished call was skipped: skip its resumption
    superseding: set[int] = set()  # processes a thread's exec took over: their exec succeeded
    for number, raw in enumerate(lines, start=1):
        trace.lines = number
        line = raw.rstrip("\n")
        pid_text, space, rest = line.partition(" ")
        if space and pid_text.isascii() and pid_text.isdigit():
            rest = rest.lstrip()
        else:
            match = _LINE.match(line)
            if not match:
                trace.unparsed += 1
                continue
            pid_text, rest = match.group("pid"), match.group("rest")
        pid = int(pid_text)
        if rest.startswith(_SUPERSEDED):
            continue  # the process goes on under its pid, with the exec'ing thread's new image
        changed = _PID_CHANGED.match(rest) if rest.endswith(" ...>") else None
        if changed:
            # The thread ends as itself; its exec goes on as the process (the same process, so
            # its cwd and its tool call are the process's). A call the process was inside is
            # cut short by the exec, as by a kill.
            new_pid = int(changed.group("pid"))
            trace.exited.add(pid)
            pending.pop(pid, None)
            dropped.discard(pid)
            cut = pending.pop(new_pid, None)
            if cut is not None:
                trace.cut_short[new_pid] = cut[0]
            dropped.discard(new_pid)
            pending[new_pid] = (changed.group("name"), changed.group("args"), number)
            superseding.add(new_pid)
            continue
        if rest.startswith(("+++", "---")):
            if rest.startswith("+++"):  # `+++ exited with 0 +++`, `+++ killed by SIGKILL +++`
                trace.exited.add(pid)
                trace.endings[pid] = _ending(rest)
                trace.ending_lines[pid] = number
                started = pending.pop(pid, None)
                if started is not None:
                    # Killed inside a call strace printed the start of: what it did (a
                    # connect's packet, an open's side effects) is not known.
                    trace.cut_short[pid] = started[0]
                dropped.discard(pid)
            continue
        if rest.endswith("<unfinished ...>"):
            if droppable(pid, _name(rest), rest):
                pending.pop(pid, None)
                dropped.add(pid)
                continue
            call = _CALL.match(rest)
            if call:
                dropped.discard(pid)
                pending[pid] = (
                    call.group("name"),
                    call.group("args")[: -len("<unfinished ...>")],
                    number,
                )
            continue
        if rest.startswith("<... "):
            resumed = _RESUMED.match(rest)
        else:
            resumed = None
            if droppable(pid, _name(rest), rest):
                continue
        if resumed:
            started = pending.pop(pid, None)
            if started is None:
                if pid in dropped:
                    dropped.discard(pid)
                else:
                    trace.unparsed += 1
                continue
            name, head, number = started[0], started[1] + resumed.group("args"), started[2]
            if pid in superseding:
                superseding.discard(pid)
                head = started[1] + ") = 0"
        else:
            call = _CALL.match(rest)
            if not call:
                trace.unparsed += 1
                continue
            name, head = call.group("name"), call.group("args")
        result = _RESULT.match(head)
        if not result:
            trace.unparsed += 1
            continue
        ret_text = result.group("ret")
        ret = None if ret_text == "?" else int(ret_text, 0)
        child = result.group("nspid")
        yield _Event(
            pid=pid,
            name=name,
            raw_args=result.group("args"),
            ret=ret,
            fd_path=result.group("fd")[1:-1] if result.group("fd") else None,
            errno=result.group("errno"),
            child=int(child) if child else ret,
            line=number,
        )


def _ending(line: str) -> ProcessEnd:
    exited = _EXITED.match(line)
    if exited:
        return int(exited.group("code")), None
    killed = _KILLED.match(line)
    return None, killed.group("signal") if killed else None


class _Attributor:
    def __init__(
        self, root_cwd: str | None, agent_dirs: tuple[str, ...], recognizer: ToolCallRecognizer
    ) -> None:
        self.recognizer = recognizer
        self.trace = ObservedTrace()
        self.procs: dict[int, _Proc] = {}
        self.root_cwd = root_cwd
        self.agent_dirs = agent_dirs
        # Events of a process whose parent's clone() has not returned yet, in order.
        self.orphans: dict[int, list[_Event]] = {}
        # Symlinks the traced processes made (link -> target), while they exist: a *failed*
        # access through one has no descriptor for strace to resolve, so it is resolved here (a
        # link to a directory the jail hid, `cat link/secret` answered ENOENT, is still a reach
        # outside). The target is kept as written: the kernel reads a relative one from the
        # directory the link is in when it is followed, and `/proc/self/...` as the process that
        # follows it (a link moved after it was made names another place: red team 9).
        self.links: dict[str, str] = {}
        # Abstract Unix socket names a tool call's process bound (`_SUN_ABSTRACT`), and socket
        # files (`_SUN_PATH`, as resolved).
        self.abstract_bound: set[str] = set()
        self.paths_bound: set[str] = set()
        # A seccomp filter was set up outside every tool call (`network_event`).
        self.filtered_outside = False

    def proc(self, pid: int) -> _Proc:
        if pid not in self.procs:
            # Only the first process of the log has no parent; it starts where the agent started.
            self.procs[pid] = _Proc(cwd=self.root_cwd if not self.procs else None)
        return self.procs[pid]

    def droppable(self, pid: int, name: str, text: str) -> bool:
        """True when `apply` would ignore this syscall whatever its arguments: a known process
        outside every tool call, not creating a process, not exec-ing, not changing directory,
        and not one the CLI may write with. Decided on the raw line, before decoding it."""
        proc = self.procs.get(pid)
        if name == CODE_MAP:
            # Only a tool call's mapping of a file as code is kept (the CLI's own are its own).
            return EXEC_PROT not in text or (proc is not None and proc.call is None)
        if proc is None or proc.call is not None or not name or name in _ALWAYS_DECODED:
            return False
        return not self.cli_may_write(proc, name, text)

    def feed(self, event: _Event) -> None:
        known = event.pid in self.procs or not self.procs
        if not known:
            self.orphans.setdefault(event.pid, []).append(event)
            return
        self.apply(event)

    def apply(self, event: _Event) -> None:
        proc = self.proc(event.pid)
        if event.name in _PROCESS_CALLS:
            if proc.call is not None and UNTRACED_CLONE in event.raw_args:
                # A child strace does not follow: nothing it does reaches the log, and its pid,
                # freed, can come back to a traced child whose end then looks like its end.
                proc.call.blind.append(
                    TracedAccess("", "read", "ok", event.name, event.pid, event.line)
                )
            if event.child is not None and event.child > 0:
                self.procs[event.child] = _Proc(
                    parent=event.pid,
                    cwd=proc.cwd,
                    image=proc.image,
                    in_sandbox=proc.in_sandbox,
                    call=proc.call,
                )
                if proc.call is not None:
                    proc.call.pids.add(event.child)
                    proc.call.parents[event.child] = event.pid
                    if "CLONE_THREAD" in event.raw_args:
                        proc.call.threads.add(event.child)
                for orphan in self.orphans.pop(event.child, []):
                    self.apply(orphan)
            return
        if event.name in _EXECS and event.ret == 0:
            self.exec(event, proc)
            return
        if event.name in _EXECS:
            if proc.call is not None:
                self.failed_exec(event, proc, proc.call)
            return
        if event.name in _FILTER_CALLS or event.name in _SOCKET_MAKERS:
            self.network_event(event, proc)
            return
        if (
            proc.call is None
            and event.name not in _CWD_CALLS
            and not self.cli_may_write(proc, event.name, event.raw_args)
        ):
            return  # the CLI's own read: not the agent's action, and not worth decoding
        if event.name in _SOCKET_CALLS and proc.call is None:
            return  # the CLI's own sockets (its model server, its helpers): not the agent's
        if event.name in MOUNT_CALLS:
            if proc.call is not None:
                proc.call.remounts.append(self.remount(event, proc))
            return
        if event.name in PROCESS_REACHES:
            if proc.call is not None:
                reach = self.reach(event, proc, proc.call)
                if reach is not None and len(proc.call.reaches) < MAX_ACCESSES_PER_CALL:
                    proc.call.reaches.append(reach)
            return
        if event.name == CODE_MAP:
            if proc.call is not None:
                self.mapped(event, proc, proc.call)
            return
        if event.name in _BLIND_CHANNELS:
            if proc.call is not None and event.ret is not None and event.ret >= 0:
                proc.call.blind.append(
                    TracedAccess("", "read", "ok", event.name, event.pid, event.line)
                )
            return
        for access in self.accesses(event, proc):
            if proc.call is not None:
                proc.call.add(access)
            elif (
                access.access == "write"
                and proc.image in self.recognizer.cli_images
                and not proc.in_sandbox
                and not any(_inside(access.path, d) for d in self.agent_dirs)
            ):
                self.trace.cli_writes.append(access)

    def network_event(self, event: _Event, proc: _Proc) -> None:
        """A filter set up (on the process and what it starts), or a network socket made."""
        self.trace.network_traced = True
        if event.name in _FILTER_CALLS:
            mode = "SECCOMP_SET_MODE_" if event.name == "seccomp" else "PR_SET_SECCOMP"
            if event.raw_args.startswith(mode) and event.ret == 0:
                if proc.call is not None:
                    proc.call.filtered = True
                else:
                    # Outside every call (the agent's sandbox helper, or the CLI itself with
                    # a filter its threads share): every call started afterwards may be under it.
                    self.filtered_outside = True
            return
        family, _, rest = event.raw_args.partition(",")
        family = family.strip()
        call = proc.call
        made = event.ret is not None and event.ret >= 0
        if (
            call is not None
            and made
            and len(call.blind) < MAX_ACCESSES_PER_CALL
            and family == "AF_UNIX"
            and rest.partition(",")[0].strip().startswith(DATAGRAM_SOCKET)
        ):
            call.blind.append(TracedAccess("", "read", "ok", event.name, event.pid, event.line))
            return
        if event.name != "socket":
            return
        if (
            call is not None
            and family in _NETWORK_FAMILIES
            and len(call.sockets) < MAX_ACCESSES_PER_CALL  # (the first is what matters)
        ):
            outcome: Outcome = "ok" if made else "failed"
            call.sockets.append(TracedConnect(event.pid, family, outcome, event.line))

    def cli_may_write(self, proc: _Proc, name: str, args: str) -> bool:
        if proc.image not in self.recognizer.cli_images or proc.in_sandbox:
            return False
        if name in _OPENS:
            return name == "creat" or any(f in args for f in _WRITE_FLAGS)
        return name not in _EXECS

    def exec(self, event: _Event, proc: _Proc) -> None:
        path_index = 1 if event.name == "execveat" else 0
        # The image is the first argument; the argv (long: a tool call's whole command) is only
        # split where it can start a tool call.
        image_token = _leading_string(event.raw_args) if path_index == 0 else None
        if image_token is None:
            if len(event.args) <= path_index + 1:
                return
            image_token = event.args[path_index]
        image = _unquote(image_token) if image_token.startswith('"') else ""
        name = os.path.basename(image)
        proc.image = name
        if name in self.recognizer.helper_images:
            proc.in_sandbox = True
            return
        if proc.call is None:
            token = event.args[path_index + 1]
            argv = _string_list(token)
            found = self.recognizer.tool_call(name, argv, proc.in_sandbox)
            if found is not None:
                proc.call = self.new_call(event, *found)
                # A command line longer than the log keeps (`-s`, STRING_LIMIT) is cut: its text
                # is a prefix of the command the session records (red team 14).
                proc.call.cut = _cut(token)
                return
        if proc.call is not None:
            descriptor = _fd_path(event.args[0]) if path_index == 1 and not image else None
            if descriptor is not None and no_file(descriptor):
                # A memfd exec'd by its descriptor (`fexecve`): code the process put there, no
                # file of a file system read (strace names it `/memfd:x`, the eBPF tracer
                # `anon_inode`: one name for both).
                resolved = NO_FILE
            else:
                resolved = self.resolve(proc, event, path_index, image, follow=True)
                proc.call.add(
                    TracedAccess(resolved, "exec", "ok", event.name, event.pid, event.line)
                )
            if len(proc.call.execs) >= MAX_ACCESSES_PER_CALL:
                proc.call.dropped += 1
                return
            argv = (
                _string_list(event.args[path_index + 1]) if len(event.args) > path_index + 1 else []
            )
            proc.call.execs.append(
                TracedExec(event.pid, resolved, tuple(argv), proc.cwd, event.line)
            )

    def mapped(self, event: _Event, proc: _Proc, call: ToolCallTrace) -> None:
        """`mmap(addr, len, prot, flags, fd, off)` of a descriptor with `PROT_EXEC`: the file it
        mapped is code the process runs (evidence/traced.py, `TracedCall.agents_code`)."""
        args = event.args
        if event.ret is None or event.ret < 0 or len(args) < 5 or EXEC_PROT not in args[2]:
            return
        path = _fd_path(args[4])
        if path is None:
            return  # no descriptor (`-1`, an anonymous mapping): no file's code
        if path.startswith("/"):
            path = os.path.normpath(path)
        call.code_map(
            TracedAccess(path, "read", "ok", event.name, event.pid, event.line, image=proc.image)
        )

    def failed_exec(self, event: _Event, proc: _Proc, call: ToolCallTrace) -> None:
        """Kept apart from the accesses: most are the shell's PATH search (noise), but one into
        the jail's private /tmp is a reach for a program the jail hid (isolation/trace.py)."""
        path_index = 1 if event.name == "execveat" else 0
        if len(event.args) <= path_index or not event.args[path_index].startswith('"'):
            return
        path = self.resolve(proc, event, path_index, _unquote(event.args[path_index]), follow=True)
        call.failed_exec(path)

    def new_call(self, event: _Event, command: str, tool: str) -> ToolCallTrace:
        call = ToolCallTrace(
            index=len(self.trace.tool_calls) + 1,
            pid=event.pid,
            command=command,
            line=event.line,
            tool=tool,
        )
        call.pids.add(event.pid)
        call.filtered = self.filtered_outside
        self.trace.tool_calls.append(call)
        return call

    def resolve(
        self, proc: _Proc, event: _Event, index: int, path: str, follow: bool = False
    ) -> str:
        """The path as the process passed it, taken from its directory argument or its cwd, with
        the kernel's doors resolved as the session analysis resolves them (`/proc/self/root/x`
        is `/x`; `/proc/self/cwd` is the process's cwd, which the log shows)."""
        base: str | None = proc.cwd
        if index > 0 and not path.startswith("/"):
            base = _fd_path(event.args[index - 1]) or base
        if not path.startswith("/"):
            if base is None:
                return path  # relative to a directory the log never showed: kept as written
            path = f"{base}/{path}"
        return self.through_links(resolve_kernel_path(path, proc.cwd).path, follow, proc.cwd)

    def remount(self, event: _Event, proc: _Proc) -> TracedAccess:
        """A change of the mounts, with the path it changes where it names one."""
        index = MOUNT_CALLS[event.name]
        path = f"({event.name})"  # no path of its own (`fsmount`): named by the call
        if index is not None and index < len(event.args) and event.args[index].startswith('"'):
            path = self.resolve(proc, event, index, _unquote(event.args[index]))
        outcome: Outcome = "ok" if event.ret is not None and event.ret >= 0 else "failed"
        return TracedAccess(path, "write", outcome, event.name, event.pid, event.line, event.errno)

    def reach(self, event: _Event, proc: _Proc, call: ToolCallTrace) -> TracedAccess | None:
        """A reach into a process outside `call` (None: one of its own), named `(process N)`,
        or `(a process)` where the log does not say which."""
        index = PROCESS_REACHES[event.name]
        target: int | None = None
        if event.name == "ptrace" and event.args and event.args[0] == "PTRACE_TRACEME":
            target = proc.parent
        elif index is not None and index < len(event.args):
            match = _PID_ARG.match(event.args[index].strip())
            if match:
                target = int(match.group("ns") or match.group("pid"))
        if target is not None and target in call.pids:
            self.controlled(event, target, call)
            return None
        outcome: Outcome = "ok" if event.ret is not None and event.ret >= 0 else "failed"
        path = f"(process {target})" if target is not None else "(a process)"
        kind: AccessKind = "read" if event.name == "process_vm_readv" else "write"
        return TracedAccess(path, kind, outcome, event.name, event.pid, event.line, event.errno)

    def controlled(self, event: _Event, target: int, call: ToolCallTrace) -> None:
        """A process of the call that another of its processes took control of (`ptrace`: its
        registers and memory, a syscall changed into `exit_group(0)`) or wrote into
        (`process_vm_writev`): like code mapped into it, kept in `code_maps` (red team 19). With
        `PTRACE_TRACEME` the caller is the one given away, to its parent."""
        if event.ret is None or event.ret < 0 or event.name not in CONTROLS:
            return
        traceme = event.name == "ptrace" and event.args[:1] == ["PTRACE_TRACEME"]
        victim, by = (event.pid, target) if traceme else (target, event.pid)
        call.code_map(
            TracedAccess(
                f"(process {by}, by {event.name})", "write", "ok", event.name, victim, event.line
            )
        )

    def connected(self, proc: _Proc, event: _Event, peer: str, outcome: Outcome) -> None:
        if proc.call is not None:
            pending = event.errno == "EINPROGRESS"
            proc.call.connect(TracedConnect(event.pid, peer, outcome, event.line, pending))

    def links_moved(self, name: str, source: str, dest: str, flags: str) -> None:
        """The traced processes' symlinks after a rename or a hard link: a link renamed, or
        inside a directory renamed, is the same link under its new name (else a path through
        it would be judged as the name it spells: `ln -s STORE a; mv a b; mv forged b/s.jsonl`
        is a write to the session store, red team 7); a hard link to a symlink is another name
        of it (`link` never follows; `linkat` without AT_SYMLINK_FOLLOW); RENAME_EXCHANGE swaps
        the two names."""
        if name.startswith("link"):
            if source in self.links and "AT_SYMLINK_FOLLOW" not in flags:
                self.links[dest] = self.links[source]
                if source in self.trace.links_made:
                    self.remember_link(dest, self.links[dest])
            return

        def under(path: str, old: str, new: str) -> str | None:
            return new + path[len(old) :] if _inside(path, old) else None

        exchange = "RENAME_EXCHANGE" in flags
        moved: dict[str, str] = {}
        for link, target in self.links.items():
            renamed = under(link, source, dest)
            if renamed is None and exchange:
                renamed = under(link, dest, source)
            if renamed is None and _inside(link, dest):
                continue  # replaced by the rename
            moved[renamed or link] = target
            if renamed is not None and link in self.trace.links_made:
                self.remember_link(renamed, target)
        self.links = moved

    def remember_link(self, link: str, written: str) -> None:
        """A name a tool call made a link (or one it made moved to): `ObservedTrace.links_made`."""
        target = resolve_kernel_path(posixpath.join(posixpath.dirname(link), written), None).path
        self.trace.links_made.setdefault(link, set()).add(os.path.normpath(target))

    def through_links(self, path: str, follow: bool, cwd: str | None = None) -> str:
        """`path` with the traced processes' own symlinks followed (a few levels); the last
        component too when `follow` (an open, not an unlink of the link). `cwd`: the following
        process's, for a target through `/proc/self/cwd`."""
        for _ in range(8):
            for link, written in self.links.items():
                if _inside(path, link) and (follow or path != link):
                    target = posixpath.join(posixpath.dirname(link), written)
                    target = resolve_kernel_path(target, cwd).path
                    path = os.path.normpath(target + path[len(link) :])
                    break
            else:
                return path
        return path

    def accesses(self, event: _Event, proc: _Proc) -> list[TracedAccess]:
        name, args = event.name, event.args
        outcome: Outcome = "ok" if event.ret is not None and event.ret >= 0 else "failed"

        def at(index: int, access: AccessKind, follow: bool = False) -> TracedAccess | None:
            if index >= len(args) or not args[index].startswith('"'):
                return None
            path = self.resolve(proc, event, index, _unquote(args[index]), follow)
            return TracedAccess(
                path, access, outcome, name, event.pid, event.line, event.errno, image=proc.image
            )

        found: list[TracedAccess | None] = []
        if name in _OPENS:
            index = 1 if name in ("openat", "openat2") else 0
            flags = args[index + 1] if index + 1 < len(args) else ""
            if "O_TMPFILE" in flags:
                return []  # an unnamed file: nothing outside can be reached through it
            access: AccessKind = "read"
            if name == "creat" or any(flag in flags for flag in _WRITE_FLAGS):
                access = "write"
            elif "O_DIRECTORY" in flags:
                access = "list"
            elif "O_PATH" in flags:
                access = "metadata"
            opened = at(index, access, follow="O_NOFOLLOW" not in flags)
            if opened is not None and outcome == "ok" and event.fd_path:
                if not event.fd_path.startswith("/"):
                    return []  # a pipe or socket reached through /dev/fd or /proc: not a file
                # strace's own resolution of the new descriptor: symlinks already followed.
                resolved = os.path.normpath(event.fd_path)
                opened = TracedAccess(
                    resolved,
                    access,
                    outcome,
                    name,
                    event.pid,
                    event.line,
                    requested=opened.path if opened.path != resolved else None,
                    image=proc.image,
                )
            found.append(opened)
        elif name in ("chdir", "fchdir"):
            if name == "chdir":
                entered = at(0, "cwd", follow=True)
            else:
                target = _fd_path(args[0]) if args else None
                entered = (
                    TracedAccess(target, "cwd", outcome, name, event.pid, event.line)
                    if target
                    else None
                )
            if entered is not None and outcome == "ok":
                proc.cwd = entered.path
            found.append(entered)
        elif name in ("mkdir", "mkdirat") and event.errno == "EEXIST":
            # The name exists and nothing was made: what the kernel said is what `stat` says.
            # `mkdir -p` and recursive mkdirs of runtimes try every component of a path so.
            found.append(at(1 if name.endswith("at") else 0, "metadata"))
        elif name in _WRITES_ONE:
            removed = at(1 if name.endswith("at") else 0, "write")
            found.append(removed)
            if removed is not None and outcome == "ok":
                self.links.pop(removed.path, None)
        elif name in _WRITES_TWO:
            two_dirs = name in ("renameat", "renameat2", "linkat")
            source, dest = at(1 if two_dirs else 0, "write"), at(3 if two_dirs else 1, "write")
            found += [source, dest]
            if source is not None and dest is not None and outcome == "ok":
                flags = args[4] if len(args) > 4 else ""
                self.links_moved(name, source.path, dest.path, flags)
        elif name in _SOCKET_CALLS:
            peer = _INET_PEER.search(event.raw_args)
            if peer is not None and name == "connect":
                host = peer.group("v4") or f"[{peer.group('v6')}]"
                self.connected(proc, event, f"{host}:{peer.group('port')}", outcome)
            elif peer is not None and outcome == "ok":
                port = int(peer.group("port"))
                if port:
                    self.trace.ports_bound.add(port)
                else:
                    self.trace.port_chosen_by_kernel = True
            abstract = _SUN_ABSTRACT.search(event.raw_args)
            if abstract is not None:
                abstract_name = "@" + _unquote('"' + abstract.group(1) + '"')
                if name == "bind" and outcome == "ok":
                    self.abstract_bound.add(abstract_name)
                elif (
                    name == "connect"
                    and outcome == "ok"
                    and abstract_name not in self.abstract_bound
                ):
                    # A process outside the attempt answered: reached like a socket outside.
                    self.connected(proc, event, abstract_name, outcome)
                    found.append(
                        TracedAccess(abstract_name, "read", outcome, name, event.pid, event.line)
                    )
            named = _SUN_PATH.search(event.raw_args)
            if named is not None:
                path = self.resolve(proc, event, 0, _unquote('"' + named.group(1) + '"'))
                if name == "bind" and outcome == "ok":
                    self.paths_bound.add(path)
                elif name == "connect" and (
                    path in NAME_SERVICE_SOCKETS
                    or (outcome == "ok" and path not in self.paths_bound)
                ):
                    # A name lookup; or a service no process of the attempt bound answered,
                    # which may fetch for the call as an abstract socket's may (red team 9).
                    self.connected(proc, event, path, outcome)
                kind: AccessKind = "write" if name == "bind" else "read"
                found.append(
                    TracedAccess(path, kind, outcome, name, event.pid, event.line, event.errno)
                )
        elif name in ("symlink", "symlinkat"):
            # The link's target is text, not an access; the link itself is a write.
            link = at(2 if name == "symlinkat" else 1, "write")
            found.append(link)
            if link is not None and outcome == "ok" and args and args[0].startswith('"'):
                self.links[link.path] = _unquote(args[0])
                if proc.call is not None:
                    self.remember_link(link.path, self.links[link.path])
        return [access for access in found if access is not None]


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def parse_trace(
    lines: Iterable[str],
    recognizer: ToolCallRecognizer,
    *,
    start_cwd: str | None = None,
    agent_dirs: tuple[str, ...] = (),
) -> ObservedTrace:
    """`recognizer`: the agent's (its adapter's); `start_cwd`: where the first process started
    (the attempt workspace); `agent_dirs`: the agent's directories, where the CLI's own writes
    belong."""
    attributor = _Attributor(start_cwd, agent_dirs, recognizer)
    for event in _events(lines, attributor.trace, attributor.droppable):
        attributor.feed(event)
    attributor.trace.unattributed = sum(len(events) for events in attributor.orphans.values())
    return attributor.trace


def read_trace(
    path: Path,
    recognizer: ToolCallRecognizer,
    *,
    start_cwd: str | None = None,
    agent_dirs: tuple[str, ...] = (),
) -> ObservedTrace:
    with path.open(encoding="utf-8", errors="surrogateescape") as handle:
        return parse_trace(handle, recognizer, start_cwd=start_cwd, agent_dirs=agent_dirs)
