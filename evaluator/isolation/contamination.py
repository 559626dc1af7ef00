"""Did a no-skill attempt see the skill anyway? A baseline that read the skill is no baseline.

An attempt meant to run without the skill is `contaminated` when any layer saw the skill reach
it (docs/statistics.md, "A baseline that never saw the skill"):

- `discovery`: a same-name skill sits where the agent discovers skills (the adapter's
  `discovery_dirs`: in the workspace, in the agent's home, in the user's home); the agent CLI
  loads it without any tool call, so its mere presence is enough;
- `session`: an access the session recorded (a read, a listing, a working directory) is at or
  under any copy of the skill (its source directory, its path in a workspace, a discovery place),
  or reads a file byte for byte equal to one of the skill's files wherever it lies; under the
  source directory any access counts (reaching for it is the leak), under the other places only
  a path that exists (an agent probing where a skill would be, and finding nothing, saw nothing);
- `trace`: the same for every file the tool calls' processes touched, from the strace log; and
  a tool call's connection to this machine (a loopback address, or one of its own) on a port no
  process of the attempt bound: the variants of an evaluation run side by side on one host and
  share its network, so a with-skill attempt can serve the skill there, in a form no other
  layer recognises (red team 15);
- `content`: the skill's own text reached the agent: a window of 8 consecutive words of one of
  its files in a tool output (`evidence/content.py`), also once the output is read back from
  base64, reversed lines or rot13 (`evidence/decoded.py`), whatever the source (a copy, a
  package, a download, an attempt beside it), unless the agent already had those words (the prompt, its own typing, a
  workspace file that says the same).

Call it while the attempt's workspace and agent home still exist: discovery places are looked at
on disk, and accessed files are compared with the skill's by content.
"""

from __future__ import annotations

import functools
import ipaddress
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from evaluator.clipping import clip
from evaluator.evidence.content import SourceText, ToolText, find_shown
from evaluator.evidence.decoded import decoded_views
from evaluator.evidence.records import SessionEvidence
from evaluator.evidence.tool_texts import ToolTextSource, session_texts
from evaluator.sandbox.strace_log import ObservedTrace
from evaluator.vocabulary import ACCESS_RECORD_KINDS

Layer = Literal["discovery", "session", "trace", "content"]
# Skill files larger than this are not compared by content (a skill is text, a few KB).
MAX_SKILL_FILE_BYTES = 1024 * 1024


@dataclass(frozen=True)
class SkillCopies:
    """Every place a copy of the skill could be, and the skill's own files."""

    name: str
    places: tuple[str, ...]  # real paths: the source dir, its workspace path, discovery places
    discovery: tuple[str, ...]  # the places the agent discovers skills from (a subset)
    files: tuple[SourceText, ...]  # the skill's text files, by path relative to the skill
    contents: dict[bytes, str] = field(default_factory=dict)  # file bytes -> relative path
    source: str = ""  # the real path of the source directory (also `places[0]`)


def _real(path: str | Path) -> str:
    return os.path.realpath(os.path.expanduser(str(path)))


def skill_copies(
    source_dir: Path,
    *,
    workspace: Path,
    workspace_skill_dir: str,
    discovery_dirs: Sequence[str],
    agent_home: Path | None,
    user_home: Path | None = None,
    left_out: Sequence[Path] = (),
) -> SkillCopies:
    """`workspace_skill_dir`: where the skill would be in the workspace (relative), and
    `discovery_dirs` as an adapter declares them: relative to the workspace, `$AGENT_HOME/...`
    or `~/...`; each gets the skill's directory name appended. `left_out`: folders of the
    source directory a with-skill agent is not given (a skill-creator skill's `evals/`, whose
    inputs the eval copies into every variant's workspace): their files are not the skill's."""
    name = source_dir.name
    home = user_home if user_home is not None else Path.home()
    discovery: list[str] = []
    for folder in discovery_dirs:
        if folder.startswith("$AGENT_HOME/"):
            if agent_home is None:
                continue
            base = agent_home / folder.removeprefix("$AGENT_HOME/")
        elif folder.startswith("~/"):
            base = home / folder.removeprefix("~/")
        else:
            base = workspace / folder
        discovery.append(_real(base / name))
    places = [_real(source_dir), _real(workspace / workspace_skill_dir), *discovery]
    files: list[SourceText] = []
    contents: dict[bytes, str] = {}
    skipped = {_real(path) for path in left_out}
    for directory, subdirs, names in os.walk(source_dir):
        subdirs[:] = sorted(d for d in subdirs if _real(Path(directory) / d) not in skipped)
        for file_name in sorted(names):
            path = Path(directory) / file_name
            relative = path.relative_to(source_dir).as_posix()
            try:
                if not path.is_file() or path.stat().st_size > MAX_SKILL_FILE_BYTES:
                    continue
                data = path.read_bytes()
            except OSError:
                continue
            if data.strip():  # empty or blank bytes identify nothing of the skill
                contents.setdefault(data, relative)
            try:
                files.append(SourceText(f"{name}/{relative}", data.decode("utf-8")))
            except UnicodeDecodeError:
                continue  # compared by bytes only
    return SkillCopies(
        name,
        tuple(dict.fromkeys(places)),
        tuple(dict.fromkeys(discovery)),
        tuple(files),
        contents,
        source=places[0],
    )


@dataclass(frozen=True)
class Finding:
    layer: Layer
    ref: str  # the session record (`msg-N`), the trace line (`trace:N`) or the place
    path: str | None
    detail: str
    # False: the finding is only the agent's own reach or making, which brought it nothing of
    # the skill (a same-name folder it made where skills are found, holding none of the skill's
    # files; a path under a directory the jail hid, which is empty there).
    reached: bool = True

    def to_json(self) -> dict[str, str | bool | None]:
        out: dict[str, str | bool | None] = {
            "layer": self.layer,
            "ref": self.ref,
            "path": self.path,
            "detail": self.detail,
        }
        if not self.reached:
            out["reached"] = False
        return out


@dataclass(frozen=True)
class Contamination:
    findings: list[Finding]
    layers: list[Layer]  # the layers that were checked (`trace` only with a trace, `content`
    # only when the session records tool outputs)

    @property
    def contaminated(self) -> bool:
        return bool(self.findings)

    @property
    def agents_own(self) -> bool:
        """Every finding is the agent's own reach or making and none shows the skill reaching
        it: an attempt that made itself look contaminated (red team 8). Its block is the
        agent's, counted as not passed, never a failure dropped from the baseline."""
        return bool(self.findings) and not any(f.reached for f in self.findings)

    def reason(self) -> str:
        if not self.findings:
            return f"no sign of the skill (checked: {', '.join(self.layers)})"
        first = self.findings[0]
        more = f" (and {len(self.findings) - 1} more)" if len(self.findings) > 1 else ""
        if self.agents_own:
            return (
                "the agent reached for the skill or made a same-name one itself, and nothing of"
                f" the skill reached it: {first.layer} {first.ref}: {first.detail}{more}"
            )
        return f"the skill reached the no-skill attempt: {first.layer} {first.ref}: {first.detail}{more}"

    def to_json(self) -> dict[str, object]:
        return {
            "contaminated": self.contaminated,
            "layers": list(self.layers),
            "findings": [f.to_json() for f in self.findings],
        }


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


class _Matcher:
    def __init__(self, copies: SkillCopies, user_home: Path | None) -> None:
        self.copies = copies
        self.home = str(user_home) if user_home is not None else None
        self.sizes = {len(data) for data in copies.contents}
        self._seen: dict[str, str | None] = {}

    def why(self, path: str) -> str | None:
        """Why an accessed path is a copy of the skill, or None."""
        if path not in self._seen:
            self._seen[path] = self._why(path)
        return self._seen[path]

    def _why(self, path: str) -> str | None:
        if self.home is not None and (path == "~" or path.startswith("~/")):
            path = self.home + path[1:]
        real = _real(path)
        for place in self.copies.places:
            if _inside(real, place) and (place == self.copies.source or os.path.lexists(real)):
                return f"{real} is a copy of the skill ({place})"
        try:
            if os.path.isfile(real) and os.path.getsize(real) in self.sizes:
                with open(real, "rb") as handle:
                    same = self.copies.contents.get(handle.read())
                if same is not None:
                    return f"{real} holds the same bytes as the skill's {same}"
        except OSError:
            return None
        return None


def check_contamination(
    evidence: SessionEvidence,
    copies: SkillCopies,
    *,
    trace: ObservedTrace | None = None,
    texts: ToolTextSource | None = None,
    workspace_texts: Sequence[SourceText] = (),
    user_home: Path | None = None,
    made_in_run: Callable[[str], bool] | None = None,
    hidden: Sequence[str] = (),
    spawned: Sequence[tuple[SessionEvidence, ToolTextSource | None]] = (),
    host_ports: frozenset[int] = frozenset(),
) -> Contamination:
    """`texts`: the session file with its agent's reader (the records' excerpts otherwise);
    `spawned`: each session the attempt spawned (a sub-agent's), with its reader: what reached
    a helper reached the attempt (red team 10: a helper downloaded the skill and answered its
    parent in its own words), so their records and outputs are checked as the session's;
    `workspace_texts`: the workspace's own files, so that text the skill shares with them does
    not count as the skill's. `made_in_run(place)`: the discovery place was not there when
    the agent started (it lies in a directory the eval made for the attempt without the
    skill); `hidden`: the real paths the jail hid (empty there): what only these explain is
    the agent's own doing, which brought it nothing (`Finding.reached`); `host_ports`: the
    machine's own services (`neighbour_connections`)."""
    matcher = _Matcher(copies, user_home)
    findings: list[Finding] = []
    layers: list[Layer] = ["discovery", "session"]
    # Where a copy of the skill would be, made during the attempt and holding none of its
    # files: the agent's own folder, whatever it named it.
    own = [
        place
        for place in copies.places
        if place != copies.source
        and made_in_run is not None
        and os.path.lexists(place)
        and made_in_run(place)
        and not _holds_skill(place, copies)
    ]
    for place in copies.discovery:
        if os.path.lexists(place):
            detail = "a same-name skill where the agent finds skills"
            if place in own:
                detail += " (made during the attempt, holding none of the skill's files)"
            findings.append(Finding("discovery", place, place, detail, reached=place not in own))

    def reached(path: str) -> bool:
        real = _real(path)
        return not any(_inside(real, root) for root in [*hidden, *own])

    sessions = [
        (evidence, texts, ""),
        *((e, t, f"sub-agent {n}: ") for n, (e, t) in enumerate(spawned, 1)),
    ]
    for session, _, label in sessions:
        for record in session.records:
            if record.kind not in ACCESS_RECORD_KINDS or not record.path:
                continue
            why = matcher.why(record.path)
            if why:
                access = record.access or "cwd"
                findings.append(
                    Finding(
                        "session",
                        f"{label}{record.id}",
                        record.path,
                        f"{access}: {why}",
                        reached=reached(record.path),
                    )
                )
    if trace is not None:
        layers.append("trace")
        findings += [
            replace(f, reached=reached(f.path or "")) for f in _trace_findings(trace, matcher)
        ]
    checked = False
    for session, reader, label in sessions:
        content = _content_findings(session, copies, reader, workspace_texts)
        if content is not None:
            checked = True
            findings += [replace(f, ref=f"{label}{f.ref}") for f in content]
    if checked:
        layers.append("content")
    if trace is not None:
        # Last: a sign that the skill may have reached the attempt, after any that it did.
        findings += neighbour_connections(trace, host_ports)
    return Contamination(findings, layers)


def _holds_skill(place: str, copies: SkillCopies) -> bool:
    """Whether a file under `place` (not through a symlink) holds one of the skill's files'
    bytes: a copy of the skill, whoever put it there."""
    sizes = {len(data) for data in copies.contents}
    if os.path.islink(place) or not os.path.isdir(place):
        return True  # a link may lead anywhere the skill is: never the agent's own making
    for directory, subdirs, names in os.walk(place):
        if any(os.path.islink(os.path.join(directory, d)) for d in subdirs):
            return True
        for name in names:
            path = os.path.join(directory, name)
            try:
                if os.path.islink(path):
                    return True
                if os.path.getsize(path) not in sizes:
                    continue
                with open(path, "rb") as handle:
                    if handle.read() in copies.contents:
                        return True
            except OSError:
                return True
    return False


@functools.cache
def _own_addresses() -> frozenset[str]:
    """This machine's own addresses (a server bound to all of them answers on each), from the
    kernel's local routes (IPv4) and interface list (IPv6); empty where neither can be read."""
    found: set[str] = set()
    try:
        with open("/proc/net/fib_trie", encoding="ascii", errors="replace") as table:
            last = ""
            for line in table:
                text = line.strip()
                if text.startswith(("|--", "+--")):
                    last = text.split()[1]
                elif text == "/32 host LOCAL" and last:
                    found.add(last)
    except OSError:
        pass
    try:
        with open("/proc/net/if_inet6", encoding="ascii", errors="replace") as table:
            for line in table:
                digits = line.split()[0] if line.split() else ""
                if len(digits) == 32:
                    found.add(str(ipaddress.IPv6Address(int(digits, 16))))
    except (OSError, ValueError):
        pass
    return frozenset(found)


def this_host(host: str) -> bool:
    """Whether a connection to `host` (as the trace prints it: dotted, or `[v6]`) reaches this
    machine: loopback, the unspecified address (which connects to it), or one of its own."""
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_loopback or address.is_unspecified or str(address) in _own_addresses()


def listening_ports() -> frozenset[int]:
    """The ports this machine's servers listen on now (TCP in `LISTEN`, UDP bound), IPv4 and
    IPv6, from the kernel's socket tables; empty where they cannot be read. Taken before an
    evaluation's attempts start, they are the machine's own services (a database a case needs,
    a mirror), never an attempt of that evaluation."""
    found: set[int] = set()
    for table, wanted in (("tcp", "0A"), ("tcp6", "0A"), ("udp", "07"), ("udp6", "07")):
        try:
            with open(f"/proc/net/{table}", encoding="ascii", errors="replace") as rows:
                next(rows, None)  # the header
                for row in rows:
                    fields = row.split()
                    if len(fields) > 3 and fields[3] == wanted and ":" in fields[1]:
                        port = int(fields[1].rsplit(":", 1)[1], 16)
                        if port:
                            found.add(port)
        except (OSError, ValueError):
            continue
    return frozenset(found)


def neighbour_connections(
    trace: ObservedTrace, host_ports: frozenset[int] = frozenset()
) -> Iterable[Finding]:
    """Each tool call's connection to this machine on a port no process of the attempt bound
    by number (a refused one reached nothing): whatever answered is beside the attempt.
    `host_ports`: the ports that were listening before the evaluation's attempts began
    (`listening_ports`): a service of the machine's, not a neighbour attempt."""
    for call in trace.tool_calls:
        for connect in call.connects:
            host, _, port = connect.peer.rpartition(":")
            if not port.isdigit() or not this_host(host):
                continue
            if connect.outcome != "ok" and not connect.pending:
                continue
            if int(port) in trace.ports_bound or int(port) in host_ports:
                continue
            command = clip(call.command.splitlines()[0], 80) if call.command else call.tool
            chosen = (
                " (a process of the attempt bound a port the kernel chose, which the trace"
                " does not show: it may have been that one)"
                if trace.port_chosen_by_kernel
                else ""
            )
            yield Finding(
                "trace",
                f"trace:{connect.line}",
                connect.peer,
                f"`{command}` connected to {connect.peer}, a port of this machine no process"
                " of the attempt bound: what answered runs beside it (an attempt with the skill"
                f" run at the same time can hand it the skill in any form){chosen}",
            )


def _trace_findings(trace: ObservedTrace, matcher: _Matcher) -> Iterable[Finding]:
    for call in trace.tool_calls:
        for access in call.accesses:
            for path in dict.fromkeys(p for p in (access.path, access.requested) if p):
                why = matcher.why(path)
                if why:
                    command = clip(call.command.splitlines()[0], 80) if call.command else call.tool
                    yield Finding(
                        "trace",
                        f"trace:{access.line}",
                        path,
                        f"{access.access} by `{command}` ({access.syscall}): {why}",
                    )
                    break


def _with_decoded(texts: Iterable[ToolText]) -> Iterator[ToolText]:
    """Each text, and after each output its readings in the forms a model reads as well as text
    (base64, reversed lines, rot13): the skill reaches a baseline so from any source, a
    download or an attempt beside it (red team 15), and no file of the skill need be read."""
    for text in texts:
        yield text
        if text.kind == "output":
            for view in decoded_views(text.text):
                yield replace(text, text=view)


def _content_findings(
    evidence: SessionEvidence,
    copies: SkillCopies,
    texts: ToolTextSource | None,
    workspace_texts: Sequence[SourceText],
) -> list[Finding] | None:
    session = session_texts(evidence, texts)
    if not session.outputs_recorded:
        return None
    skill = {f.path for f in copies.files}
    others = [t for t in workspace_texts if t.path not in skill]
    shown = find_shown(
        [*copies.files, *others], _with_decoded(session.texts), evidence.first_user_message or ""
    )
    found = []
    for source in copies.files:
        seen = shown.get(source.path)
        if seen is None or not seen.reached or seen.first is None:
            continue
        ref = seen.first.ref or f"line {seen.first.line}"
        found.append(
            Finding(
                "content",
                ref,
                source.path,
                f"the skill's {source.path} reached the agent in a tool output"
                f" ({seen.share():.0%} of its lines)",
            )
        )
    return found
