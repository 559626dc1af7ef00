"""Whether a `command` check's failure can be the machine's: proof, from the check's access
trace, that none of its processes ran code the session wrote.

A build tool that cannot fetch its dependencies (or a shell that cannot find a program) stops
before it compiles or runs anything of the project, so its offline text can only be trusted
when the trace shows that nothing of the agent's ran: otherwise the agent's own program or
tests may have printed that text (docs/security.md, "A machine stop must be proven").
The session's code, for a check's processes (the jail keeps everything else read-only):
- a program exec'd from a place the check can write (the workspace, /tmp, /var/tmp, /dev/shm),
  unless it is a workspace file the eval provided, unchanged (a project's `./gradlew`);
- a workspace file the session created or changed, read by any process, unless it is a build
  manifest a tool reads as data (`DATA_FILES`, `DATA_SUFFIXES`): a script, a module, a class,
  a Makefile, a `build.gradle`, a `.npmrc` are code or say what code to run;
- a shell started with a script (`sh -c TEXT`) that is not the check's own text: a command a
  tool read from a build file (npm's scripts, a Makefile's recipes, hatch's scripts).
And the words are the session's (`session_words`) when the output's stop text is in a file of
the session's a process read, or in a workspace name (a compiler, npm or pytest echoes what a
manifest or a source holds: a manifest is data to a fetch, not to everything that reads it), or
when a program started with an argument a file of the session's holds and the check's text
does not (a command a tool ran without a shell: `//go:generate`, pdm's `cmd` scripts).
"""

from __future__ import annotations

import functools
import hashlib
import ipaddress
import os
import re
from pathlib import Path

from evaluator.judge.base import CommandTrace, JudgeContext
from evaluator.judge.checks.env_value import search_file
from evaluator.textforms import escaped_pattern, longest_match
from evaluator.vocabulary import NAME_SERVICE_SOCKETS, TRACED_SHELLS

# Where a process of the check's jail can write: a program there was made by the session or by
# the check from the session's files (a test binary `go test` links in /tmp, a build script
# cargo compiled), never installed by the machine.
WRITABLE_ROOTS = ("/tmp", "/var/tmp", "/dev/shm")
# Build manifests and lock files a package installer or build tool reads to know what to fetch:
# data that runs nothing by itself (their commands, npm's scripts, run through a shell: the
# third rule). Go sources too: the go tool reads their imports before it fetches a module, and
# compiles them without running them (a test binary it runs is the first rule's).
DATA_FILES = frozenset(
    {
        "pom.xml",
        "package.json",
        "package-lock.json",
        "npm-shrinkwrap.json",
        "yarn.lock",
        "pnpm-lock.yaml",
        "Cargo.toml",
        "Cargo.lock",
        "go.mod",
        "go.sum",
        "go.work",
        "go.work.sum",
        "pyproject.toml",
        "Pipfile",
        "Pipfile.lock",
        "poetry.lock",
    }
)
DATA_SUFFIXES = (".go",)
_REQUIREMENTS = re.compile(r"^(?:requirements|constraints)[\w.-]*\.(?:txt|in)$")


def session_code(trace: CommandTrace, context: JudgeContext, command: str) -> list[str]:
    """What of the session's the check's processes ran or loaded (each said in a few words);
    [] when the trace shows none. `command`: the shell text the check ran."""
    found: list[str] = []
    written = {a.path: a.line for a in trace.accesses if a.access == "write" and a.ok}
    for run in trace.execs:
        if _writable(run.path, context) and not _provided(run.path, context):
            found.append(f"ran {_shown(run.path, context)}")
    for access in trace.accesses:
        if access.access != "read" or not access.ok:
            continue
        relative = _relative(access.path, context)
        if relative is None or _is_data(relative):
            continue
        made_by_check = written.get(access.path, access.line) < access.line
        if made_by_check or _provided(access.path, context):
            continue
        reader = f" ({access.image})" if access.image else ""
        found.append(f"read {relative}{reader}")
    for run in trace.execs:
        script = _nested_script(list(run.argv))
        if script is not None and script not in command:
            found.append(f"ran a command it read from a file: {_shown_text(script)}")
    return list(dict.fromkeys(found))


# An argument this short is in any text by chance (`-c`, `sh`); what a tool hands a program it
# took from a file is longer (a script, a message). Longer ones are searched by this prefix.
_MIN_ARGUMENT = 3
_ARGUMENT_PREFIX = 256
_MAX_ARGUMENTS = 2000


def session_words(
    trace: CommandTrace, context: JudgeContext, command: str, printed: list[str]
) -> list[str]:
    """Where the check's stop text or its programs' arguments came from the session's files
    (each said in a few words); [] when from none. `printed`: the output's texts that say the
    machine stopped it; `command`: the shell text the check ran. Each text is searched raw or
    with any characters escaped (`evaluator/textforms.py`): a tool prints a JSON or Go string
    decoded."""
    found: list[str] = []
    root = context.file_root
    names = [
        Path(folder, name).relative_to(root).as_posix()
        for folder, dirs, files in os.walk(root, followlinks=False)
        for name in dirs + files
    ]
    for text in dict.fromkeys(printed):
        pattern = re.compile(escaped_pattern(text))
        named = [name for name in names if pattern.search(name.encode("utf-8"))]
        if named:
            found.append(f"the output's {_shown_text(text)} is the workspace name {named[0]!r}")
    read = _session_files_read(trace, context)
    # The stop's own text first: the more telling of the two when both are there.
    for needles, role in (
        (list(dict.fromkeys(printed)), "the output's"),
        (_arguments(trace, context, command), "a program's argument"),
    ):
        if needles and read:
            found += _held(context.file_root, read, needles, role)
    return list(dict.fromkeys(found))


def _held(root: Path, files: list[str], needles: list[str], role: str) -> list[str]:
    """Which of `files` hold one of `needles` (standing alone, raw or escaped), said."""
    patterns = [_word_pattern(needle) for needle in needles]
    search = re.compile(b"|".join(patterns))
    overlap = max(longest_match(needle[:_ARGUMENT_PREFIX]) for needle in needles) + 2
    found: list[str] = []
    for relative in files:
        _, match = search_file(root / relative, search, overlap)
        if match is not None:
            which = next(
                needle
                for needle, pattern in zip(needles, patterns, strict=True)
                if re.search(pattern, match)
            )
            found.append(f"{relative} holds {role} {_shown_text(which)}")
    return found


def _session_files_read(trace: CommandTrace, context: JudgeContext) -> list[str]:
    """The workspace files a process of the check read that the session made or changed."""
    read: list[str] = []
    for access in trace.accesses:
        if access.access != "read" or not access.ok:
            continue
        relative = _relative(access.path, context)
        if relative is None or relative in read or _provided(access.path, context):
            continue
        if (context.file_root / relative).is_file():
            read.append(relative)
    return read


def _arguments(trace: CommandTrace, context: JudgeContext, command: str) -> list[str]:
    """The arguments the check's programs were started with that its own text does not hold:
    what a tool took from somewhere (a file of the session's, or the machine's own)."""
    words: list[str] = []
    for run in trace.execs:
        for word in run.argv[1:]:
            if len(word) < _MIN_ARGUMENT or word in command or word.startswith("/"):
                continue
            if _names_a_file(word, context.file_root):
                continue  # a workspace file by its name: a name, not a word of its content
            words.append(word)
    return list(dict.fromkeys(words))[:_MAX_ARGUMENTS]


def _names_a_file(word: str, root: Path) -> bool:
    """Whether `word` is the relative name of something in the workspace (a script text or a
    message is no name: too long for one, or naming nothing)."""
    try:
        return (root / word).exists()
    except (OSError, ValueError):
        return False


def _word_pattern(text: str) -> bytes:
    """`text` (a prefix of it, when long) standing alone: not inside a longer word."""
    body = escaped_pattern(text[:_ARGUMENT_PREFIX])
    before = rb"(?<![A-Za-z0-9_])" if text[:1].isalnum() or text[:1] == "_" else b""
    whole = len(text) <= _ARGUMENT_PREFIX and (text[-1:].isalnum() or text[-1:] == "_")
    after = rb"(?![A-Za-z0-9_])" if whole else b""
    return b"(?:" + before + body + after + b")"


def left_the_machine(peer: str) -> bool:
    """Whether a connection the trace saw (`host:port`, or a name service's socket) was an attempt
    to reach the network: a name lookup, or an internet address other than this machine's own.
    A connection to a loopback address reaches this machine, whatever answers or refuses it: its
    failure says nothing of the machine's network (red team 7: an agent's requirements file
    sending pip to `127.0.0.1:9`). A local resolver's address that `/etc/resolv.conf` names
    (systemd-resolved's `127.0.0.53`), on the DNS port, is a name lookup."""
    if peer.startswith("/"):
        # a name service's socket: a lookup; any other answered from this machine
        return peer in NAME_SERVICE_SOCKETS
    if peer.startswith("@"):
        return False  # an abstract Unix socket: a process of this machine answered
    host, _, port = peer.rpartition(":")
    host = host.strip("[]")
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return True
    mapped = getattr(address, "ipv4_mapped", None)
    if mapped is not None:
        address = mapped
    if not (address.is_loopback or address.is_unspecified):
        return True
    return port == "53" and str(address) in _nameservers()


@functools.cache
def _nameservers() -> frozenset[str]:
    """The resolver's servers this machine names (the check runs here, in a jail that keeps
    `/etc` as it is)."""
    try:
        lines = Path("/etc/resolv.conf").read_text(errors="replace").splitlines()
    except OSError:
        return frozenset()
    found = set()
    for line in lines:
        words = line.split()
        if len(words) >= 2 and words[0] == "nameserver":
            try:
                found.add(str(ipaddress.ip_address(words[1].split("%")[0])))
            except ValueError:
                continue
    return frozenset(found)


def session_addresses(trace: CommandTrace, context: JudgeContext, command: str) -> list[str]:
    """Internet addresses the check's processes connected to that a file of the session's a
    process read names and the check's own text does not (each said in a few words): the
    session chose where the tool fetched (an index or a repository in a manifest), so a failure
    to reach it is no sign of the machine's lack of a network."""
    hosts = []
    for peer in trace.network:
        if peer.startswith(("/", "@")):
            continue
        host = peer.rpartition(":")[0].strip("[]")
        if host and host not in command:
            hosts.append(host)
    read = _session_files_read(trace, context)
    if not hosts or not read:
        return []
    return _held(context.file_root, read, list(dict.fromkeys(hosts)), "the address")


def program_ran(trace: CommandTrace, name: str) -> bool:
    """Whether a program called `name` started (then it is there, whatever was printed). The
    shell's search of PATH for it is no proof of its absence: dash looks with `stat`, which the
    trace does not follow; that nothing of the session's ran is the proof."""
    return any(os.path.basename(run.path) == name for run in trace.execs)


def _writable(path: str, context: JudgeContext) -> bool:
    if _relative(path, context) is not None:
        return True
    return any(path == root or path.startswith(root + "/") for root in WRITABLE_ROOTS)


def _relative(path: str, context: JudgeContext) -> str | None:
    """`path` relative to the workspace the check ran in, or None when it is outside (the
    trace names it as the kernel resolved it: through its symlinks, if it has any)."""
    for root in dict.fromkeys((str(context.file_root), os.path.realpath(context.file_root))):
        root = root.rstrip("/")
        if path.startswith(root + "/"):
            return path[len(root) + 1 :]
    return None


def _provided(path: str, context: JudgeContext) -> bool:
    """A workspace file that was there before the agent ran, byte for byte the same now."""
    relative = _relative(path, context)
    if relative is None or context.baseline is None or relative not in context.baseline:
        return False
    digest = hashlib.sha256()
    try:
        with Path(path).open("rb") as stream:
            while block := stream.read(1 << 20):
                digest.update(block)
    except OSError:
        return False
    return digest.hexdigest() == context.baseline[relative]


def _is_data(relative: str) -> bool:
    name = os.path.basename(relative)
    return name in DATA_FILES or name.endswith(DATA_SUFFIXES) or bool(_REQUIREMENTS.match(name))


def _nested_script(argv: list[str]) -> str | None:
    """The script of a shell started with one (`sh -c TEXT`, `bash -lc TEXT`, `sh -ec TEXT`)."""
    if len(argv) < 3 or os.path.basename(argv[0]) not in TRACED_SHELLS:
        return None
    for index, flag in enumerate(argv[1:-1], start=1):
        if flag.startswith("-") and not flag.startswith("--") and "c" in flag:
            return argv[index + 1]
        if not flag.startswith("-"):
            return None
    return None


def _shown(path: str, context: JudgeContext) -> str:
    return _relative(path, context) or path


def _shown_text(text: str) -> str:
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= 80 else flat[:77] + "...")
