"""Classify every observed access against the attempt workspace and reach a verdict."""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from evaluator.evidence.records import RELIABLE_CWD_SOURCES, EvidenceRecord, SessionEvidence
from evaluator.isolation.allowlist import SYSTEM_ALLOWLIST, AllowRule, allowed
from evaluator.kernelpaths import KernelPath, Readlink, disk_readlink, resolve_kernel_path
from evaluator.vocabulary import ACCESS_RECORD_KINDS, IsolationVerdict

Verdict = IsolationVerdict
GLOB_CHARS = "*?["
NAMED_PATHS_KEPT = 4096


@dataclass
class Violation:
    ref: str
    kind: str
    path: str
    detail: str
    line: int = 0
    # A lexical guess of the session analysis (evidence/shell/ `PathAccess.guess`): the
    # complete trace of its tool call may contradict it (isolation/trace.py).
    guess: bool = False
    call_id: str | None = None
    # Not recorded in the evidence yet: an access in the attempt's home, which the trace
    # arbitrates first (`trace.combine` records it if it stands).
    pending: bool = False
    # The shell glob the access named below `path` (`ls ~/.gemini/tmp/*/chats/`: `path` is the
    # folder the shell lists, `*/chats/` what it matches there), or "": where it looked.
    glob: str = ""

    def to_json(self) -> dict[str, str]:
        return {"ref": self.ref, "kind": self.kind, "path": self.path, "detail": self.detail}


@dataclass
class IsolationReport:
    verdict: Verdict
    workspace: str
    violations: list[Violation] = field(default_factory=list)
    reliable_signals: int = 0
    checked: int = 0
    allowed_outside: list[str] = field(default_factory=list)
    opaque: list[tuple[str, str]] = field(default_factory=list)
    reason: str = ""
    # False when guess violations were left for `trace.combine` to record (or clear).
    guesses_recorded: bool = True

    def to_json(self) -> dict[str, object]:
        return {
            "verdict": self.verdict,
            "workspace": self.workspace,
            "reason": self.reason,
            "reliable_signals": self.reliable_signals,
            "checked": self.checked,
            "violations": [v.to_json() for v in self.violations],
            "allowed_outside": self.allowed_outside,
            "opaque": [{"ref": ref, "reason": reason} for ref, reason in self.opaque],
        }


_GLOB_CHAR = re.compile(f"[{re.escape(GLOB_CHARS)}]")


def _glob_base(path: str) -> str:
    glob = _GLOB_CHAR.search(path)  # called for every access: no loop over characters here
    if glob is None:
        return path
    return os.path.dirname(path[: glob.start()]) or "/"


def _glob_rest(path: str) -> str:
    """The part of `path` from its glob base on (`*/chats/` of `/h/.gemini/tmp/*/chats/`)."""
    base = _glob_base(path)
    return "" if base == path else path[len(base) :].lstrip("/")


def _named(path: str, readlink: Readlink = disk_readlink) -> KernelPath:
    # Symlinks on disk are followed (one planted inside the workspace that points outside is
    # outside) in the same walk that resolves the kernel's doors (`/proc/self/root/...` is `/...`):
    # one walk, because either can lead to the other. `/proc/self` and `/dev/fd` are never
    # looked up on disk: here they would name the evaluator's process, not the agent's.
    return resolve_kernel_path(path, None, readlink)


def _link_written(path: str, links: set[str], readlink: Readlink) -> bool:
    """Whether a write of `path` is a write of one of `links` itself: its folder resolved, its
    last name not followed (a write of `link/x` goes through the link into the skill)."""
    parent, name = os.path.split(os.path.normpath(path))
    return bool(name) and os.path.join(_named(parent, readlink).path, name) in links


# Where the kernel's doors are (`/proc/<pid>/...`, `/dev/fd`, the standard streams): a path
# under these is always walked whole.
_DOORS = ("/proc", "/dev")


def _named_known(path: str, readlink: Readlink, known: dict[str, KernelPath]) -> KernelPath:
    """`_named(path, readlink)`, from what `known` holds (the paths resolved so far, with the
    same cached `readlink`; at most NAMED_PATHS_KEPT of them). A canonical absolute path whose
    directory resolved to itself (no link, door, `.` or `..` on the way: a link taken can never
    lead back to the same place, it would be taken again) is its directory's walk plus one
    component: it is itself unless that component is a link. Anything else is walked whole;
    a walk that gives back the path itself shows the same of its directory."""
    named = known.get(path)
    if named is not None:
        return named
    head, _, last = path.rpartition("/")
    parent = known.get(head) if head.startswith("/") and last not in ("", ".", "..") else None
    if (
        parent is not None
        and parent.kind == "plain"
        and not parent.foreign
        and parent.path == head
        and not head.startswith(_DOORS)
        and readlink(path) is None
    ):
        named = KernelPath(path)
    else:
        named = _named(path, readlink)
        if (
            head.startswith("/")
            and not path.startswith(_DOORS)
            and named == KernelPath(path)
            and len(known) < NAMED_PATHS_KEPT
        ):
            known.setdefault(head, KernelPath(head))
    if len(known) < NAMED_PATHS_KEPT:
        known[path] = named
    return named


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


class _UnknownWrites:
    """The trees commands changed in ways the session does not show (`tar x`, `git apply`),
    indexed by tree: a session writes thousands of files by redirection, and each access asks
    only about the trees above its own path."""

    def __init__(self, evidence: SessionEvidence) -> None:
        self.by_tree: dict[str, list[tuple[int, int, str]]] = {}
        for index, (line, tree) in enumerate(evidence.unknown_writes):
            key = tree.rstrip("/") or "/"
            self.by_tree.setdefault(key, []).append((index, line, tree))

    def vanished(self, record: EvidenceRecord) -> str | None:
        """The first component of `record.path`, at or below a tree an earlier command changed
        that way, that no longer exists. Symlinks on disk after the run are followed; one such
        a command made and the session then removed is not, so a path through it cannot be
        judged."""
        if not self.by_tree:
            return None
        path = _glob_base(record.path or "")
        earliest: tuple[int, str] | None = None
        # Every tree strictly above the path (and the path with a trailing slash, under itself).
        at = path.find("/")
        while at != -1:
            above, at = path[:at] or "/", path.find("/", at + 1)
            for index, line, tree in self.by_tree.get(above, ()):
                # The same line may be the same command (`tar x && cat lk/x`): it counts.
                if line <= record.line and path != tree:
                    if earliest is None or index < earliest[0]:
                        earliest = (index, tree)
                    break
        if earliest is None:
            return None
        tree = earliest[1]
        current = tree.rstrip("/")
        for part in path[len(current) + 1 :].split("/"):
            current = f"{current}/{part}"
            if not os.path.lexists(current):
                return current
        return None


def assess_isolation(
    evidence: SessionEvidence,
    workspace: Path,
    *,
    rules: tuple[AllowRule, ...] = SYSTEM_ALLOWLIST,
    record_violations: bool = True,
    record_guesses: bool = True,
    skill_links: tuple[Path, ...] = (),
    pending_home: str | None = None,
) -> IsolationReport:
    """`record_guesses=False`: violations that are only lexical guesses are not recorded yet;
    the trace may contradict them (`trace.combine` records the ones that stand). Likewise a
    violation inside `pending_home` (a traced attempt's HOME: `trace._arbitrate_home`).
    `skill_links`: the links to the skill under test in the agent's home
    (`agents/base.py` `link_user_skill`). A path through one resolves, on disk as the kernel
    would, to the workspace's skill folder: inside. A write of the link itself (removed,
    replaced) is a violation, as any write to the home is: otherwise, resolved after the run,
    a link the agent pointed elsewhere and put back would hide what it reached meanwhile."""
    links = {os.path.join(_named(str(link.parent)).path, link.name) for link in skill_links}
    # Sessions name the same directories over and over: each is looked up on disk once per
    # assessment (the workspace does not change while it is judged).
    readlink = functools.cache(disk_readlink)
    # For the same reason a path is resolved once (the walk is pure given them), and a file in
    # a directory already resolved is resolved from it (`_named_known`).
    named_paths: dict[str, KernelPath] = {}
    unknown_writes = _UnknownWrites(evidence)
    root = _named(str(workspace), readlink).path
    home = _named(pending_home, readlink).path if pending_home else None
    report = IsolationReport(
        verdict="unverifiable",
        workspace=root,
        opaque=list(evidence.opaque),
        guesses_recorded=record_guesses,
    )
    # A call the agent CLI refused to run (its sandbox or approval policy said no: `tool_denied`)
    # touched nothing: a normaliser that records a command's paths when it is made (Codex's)
    # still has them, and they are no accesses. The trace, where there is one, shows what ran.
    refused = {r.call_id for r in evidence.of_kind("tool_denied") if r.call_id}
    for record in evidence.records:
        if record.kind not in ACCESS_RECORD_KINDS or not record.path:
            continue
        if record.call_id is not None and record.call_id in refused:
            continue
        report.checked += 1
        access = record.access or ("cwd" if record.kind == "tool_workdir_observed" else "read")
        path = record.path
        if path.startswith("~"):
            report.violations.append(
                Violation(
                    record.id,
                    access,
                    path,
                    f"home directory access ({record.detail or ''})",
                    record.line,
                    guess=bool(record.guess),
                    call_id=record.call_id,
                )
            )
            continue
        if access == "write" and links and _link_written(path, links, readlink):
            report.violations.append(
                Violation(
                    record.id,
                    access,
                    path,
                    "changed the skill's link at its user-level path in the home"
                    f" ({record.detail or ''})",
                    record.line,
                    guess=bool(record.guess),
                    call_id=record.call_id,
                )
            )
            continue
        named = _named_known(_glob_base(path), readlink, named_paths)
        real = named.path
        if named.kind in ("unresolved", "other-process"):
            report.opaque.append((record.id, f"{access} {path}: {named.reason}"))
            continue
        if named.foreign and (_inside(real, root) or allowed(real, access, rules) is not None):
            report.opaque.append(
                (record.id, f"{access} {path}: through another process's root, maybe not ours")
            )
            continue
        if (
            named.kind == "plain"
            and _inside(real, root)
            and (gone := unknown_writes.vanished(record))
        ):
            report.opaque.append(
                (
                    record.id,
                    f"{access} {path}: goes through {gone}, made by a command whose output the"
                    " session does not show and gone after the run (it may have been a symlink)",
                )
            )
            continue
        if named.kind == "plain" and _inside(real, root):
            # codex's parsed_cmd is a guess about the command: never proof of containment.
            if (
                record.kind == "tool_workdir_observed" and record.source in RELIABLE_CWD_SOURCES
            ) or record.source == "file-change":
                report.reliable_signals += 1
            continue
        rule = allowed(real, access, rules)
        if rule is not None and access != "cwd":
            report.allowed_outside.append(f"{record.id} {real} ({rule.why})")
            continue
        if named.kind == "own-process":
            # Not a door (those were resolved), but not a file the allowlist names either.
            report.opaque.append(
                (record.id, f"{access} {real}: process information the allowlist does not name")
            )
            continue
        via = f" via symlink {path}" if real != _glob_base(path) and _inside(path, root) else ""
        source = f"{record.source}: {record.detail}" if record.detail else str(record.source)
        report.violations.append(
            Violation(
                record.id,
                access,
                real,
                f"{source}{via}".strip(),
                record.line,
                guess=bool(record.guess),
                call_id=record.call_id,
                pending=home is not None and _inside(real, home),
                glob=_glob_rest(path),
            )
        )
    decide(report)
    if record_violations:
        for violation in report.violations:
            if (violation.guess and not record_guesses) or violation.pending:
                continue
            record_violation(evidence, violation)
    return report


def record_violation(evidence: SessionEvidence, violation: Violation) -> None:
    evidence.add(
        "isolation_violation",
        violation.line,
        path=violation.path,
        access=violation.kind,
        ref=violation.ref,
        detail=violation.detail,
    )


def decide(report: IsolationReport) -> None:
    """The verdict of one session's report from what it holds."""
    if report.violations:
        report.verdict = "violation"
        report.reason = f"{len(report.violations)} access(es) outside the workspace"
    elif report.opaque:
        report.verdict = "unverifiable"
        report.reason = "opaque construct(s): " + "; ".join(r for _, r in report.opaque[:3])
    elif report.reliable_signals == 0:
        report.verdict = "unverifiable"
        report.reason = "no reliable working-directory or file evidence was observed"
    else:
        report.verdict = "contained"
        report.reason = f"{report.checked} observed access(es), all inside the workspace"


_SEVERITY: dict[Verdict, int] = {"contained": 0, "unverifiable": 1, "violation": 2}


def assess_attempt(
    evidence: SessionEvidence,
    workspace: Path,
    descendants: list[SessionEvidence],
    *,
    rules: tuple[AllowRule, ...] = SYSTEM_ALLOWLIST,
    record_guesses: bool = True,
    skill_links: tuple[Path, ...] = (),
    pending_home: str | None = None,
) -> IsolationReport:
    """The accepted session and every sub-agent session it spawned (at any depth): the attempt
    takes the worst verdict. A session that touched nothing (a launcher that only spawned and
    waited) neither proves nor disproves anything and is left out of the verdict.
    `record_guesses=False`: the accepted session's guess violations wait for the trace (the
    trace is matched to the accepted session's commands only: a sub-agent's guesses stand).
    `pending_home`: the same for the accepted session's accesses in that home."""
    report = assess_isolation(
        evidence,
        workspace,
        rules=rules,
        record_guesses=record_guesses,
        skill_links=skill_links,
        pending_home=pending_home,
    )
    if not descendants:
        return report
    judged = [("", report)] if (report.checked or report.opaque) else []
    for child in descendants:
        child_report = assess_isolation(
            child, workspace, rules=rules, record_violations=False, skill_links=skill_links
        )
        label = f"sub-agent {child.thread_id}"
        if child_report.checked or child_report.opaque:
            judged.append((label, child_report))
        for violation in child_report.violations:
            moved = Violation(
                f"{child.thread_id}#{violation.ref}",
                violation.kind,
                violation.path,
                f"{label}: {violation.detail}",
                violation.line,
            )
            report.violations.append(moved)
            evidence.add(
                "isolation_violation",
                violation.line,
                path=moved.path,
                access=moved.kind,
                ref=moved.ref,
                detail=moved.detail,
            )
        report.opaque.extend((f"{child.thread_id}#{ref}", why) for ref, why in child_report.opaque)
        report.checked += child_report.checked
        report.reliable_signals += child_report.reliable_signals
        report.allowed_outside.extend(f"{label}: {a}" for a in child_report.allowed_outside)
    if judged:
        label, worst = max(judged, key=lambda item: _SEVERITY[item[1].verdict])
        report.verdict = worst.verdict
        report.reason = f"{label}: {worst.reason}" if label else worst.reason
        if report.verdict == "contained":
            report.reason = (
                f"{report.checked} observed access(es) in {len(judged)} session(s),"
                " all inside the workspace"
            )
    return report
