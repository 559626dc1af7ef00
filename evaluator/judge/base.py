"""What a judge sees (the attempt's evidence) and what a step of the judge chain looks like."""

from __future__ import annotations

import glob
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from evaluator.contract.models import AssertionEntry
from evaluator.contract.paths import path_matches as path_matches  # shared with validate
from evaluator.evidence.records import EvidenceRecord, SessionEvidence
from evaluator.evidence.tool_texts import ToolTextSource
from evaluator.evidence.traced import TracedCall
from evaluator.evidence.triggers import Trigger
from evaluator.judge.grading import ModelGrader
from evaluator.judge.skill_vocabulary import SkillVocabulary, with_variables
from evaluator.judge.verdict import AssertionResult
from evaluator.vocabulary import Outcome, Polarity


def _id_number(record_id: str) -> int:
    """The place of a record in its session (`msg-12` -> 12)."""
    return int(record_id.rsplit("-", 1)[-1])


class Placeholders(Protocol):
    """The redaction placeholders (`[REDACTED:NAME]`) a run wrote into its workspace snapshot,
    by workspace-relative path (`workspace/snapshot.py` reads them from its manifest)."""

    def in_content(self, relative: str) -> set[str]:
        """The names whose placeholder the run wrote into the file's content."""
        ...

    def in_path(self, relative: str) -> set[str]:
        """The names whose placeholder the run wrote into the file's path."""
        ...


@dataclass(frozen=True)
class CheckExec:
    """A program a process of a check's command started: the file exec'd and its argv."""

    path: str
    argv: tuple[str, ...]


@dataclass(frozen=True)
class CheckAccess:
    """A file a process of a check's command opened or changed (`access`: read, write, list,
    exec, ...), at `line` of the trace log, by a process running `image` (a base name)."""

    path: str
    access: str
    ok: bool
    line: int
    image: str = ""


@dataclass(frozen=True)
class CommandTrace:
    """What the access trace saw a check's command do, below its own shell (the pipeline reads
    the strace log into these neutral records): the programs its processes started and the
    files they opened; `complete` when the log shows all of it (`ObservedTrace.complete`)."""

    execs: tuple[CheckExec, ...]
    accesses: tuple[CheckAccess, ...]
    complete: bool
    # Where its processes tried to reach the network (`host:port` of each internet `connect`,
    # or a name service's socket), whatever came of it.
    network: tuple[str, ...] = ()


@dataclass(frozen=True)
class CommandOutcome:
    """A check's command as it ran: exit code (None when it did not finish) and its output."""

    exit_code: int | None
    output: str
    where: str  # "bwrap jail" or "no jail": what confined it
    timed_out: bool = False
    error: str | None = None  # why it could not start
    # What its processes did, from an access trace whose log they could not reach; None: not
    # traced, and `untraced` says why (then no output can prove that the machine stopped it).
    trace: CommandTrace | None = None
    untraced: str | None = None


class CommandRunner(Protocol):
    """Runs a `command` check's shell text in a workspace, confined like the attempt's agent
    (the pipeline supplies it; the judge never chooses a jail)."""

    def __call__(self, command: str, workspace: Path, timeout_s: float) -> CommandOutcome: ...


@dataclass(frozen=True)
class SkillTriggers:
    """Which skills fired in the attempt's session, read as `agentic-eval triggers` reads them
    (`AgentAdapter.skill_triggers`), for the target skill `skill` (its declared name). `read`
    may raise `TriggerUndecidable` (a session that records no tool outputs)."""

    skill: str
    read: Callable[[], list[Trigger]]


@dataclass
class JudgeContext:
    evidence: SessionEvidence
    workspace: Path
    ref_prefix: str  # e.g. "case-artifacts/<case>/accepted-session.json"
    workspace_available: bool = True
    # Where the workspace's files are read from when it is not `workspace` itself: a snapshot
    # restored after the scratch space is gone. Observed paths still name `workspace`.
    files_root: Path | None = None
    # Workspace-relative files known to exist whose content was not kept (over size limits).
    without_content: frozenset[str] = frozenset()
    # With `files_root`: the placeholders (`[REDACTED:NAME]`) the run's redaction wrote into
    # those files, which alone stand for a secret; None: not recorded (a snapshot saved before
    # they were, a kept scratch workspace), so any placeholder text there may be one.
    placeholders: Placeholders | None = None
    record_dir: Path | None = None  # where the model judge keeps its records
    grader: ModelGrader | None = None
    # The session file the evidence was read from, with its agent's reader (whole tool outputs,
    # for what reached the agent); None: only the records' excerpts are there.
    session_texts: ToolTextSource | None = None
    # Runs `command` checks after the agent; None: they are blocked (nothing may run them).
    commands: CommandRunner | None = None
    # The target skill's own commands, for compiled prose that names them by bare word
    # (`judge/skill_vocabulary.py`), with the agents' names a caller hands in; None: no skill
    # and no names known, bare words stay words.
    skill_vocabulary: SkillVocabulary | None = None
    # What the access trace saw each session tool call (by call id) run, and how its processes
    # ended: proof of a run the shell text cannot prove (`judge/checks/trace_proof.py`). None:
    # no trace (evidence only); a call id absent: the trace did not match that call.
    traced_calls: dict[str, TracedCall] | None = None
    # Each workspace file's sha256 before the agent ran (workspace-relative): a file the check
    # runs as code is the session's unless it is there unchanged. None: not known, every file
    # is taken for the session's (`judge/checks/stop_proof.py`).
    baseline: dict[str, str] | None = None
    # The values of the case's declared variables (`CaseSetup.declared_variables`) as the agent
    # got them, for `workspace_env_value`; a variable absent has no value known here.
    variables: dict[str, str] = field(default_factory=dict, repr=False)
    # The target skill's firing, by the agent's own trigger signal, for `skill_invoked`; None:
    # no target skill, or an agent without a trigger signal (the check is blocked).
    skill_triggers: SkillTriggers | None = None
    # The sessions the attempt spawned (its helpers'), each as a context of its own: an act
    # one of them records is the attempt's (`judge/checks/registry.py` `run_check`).
    spawned: tuple[JudgeContext, ...] = ()
    # What judges compute once per attempt (e.g. `judge/consultation.py`), by name.
    cache: dict[str, Any] = field(default_factory=dict, repr=False)

    def helper(
        self, evidence: SessionEvidence, ref_prefix: str, session_texts: ToolTextSource | None
    ) -> JudgeContext:
        """A spawned session's context: the same workspace and run, its own records, outputs
        and references; the trace matched only the attempt's own session (`traced_calls`
        empty: no call of the helper's is proven by it), and no helper of its own."""
        return replace(
            self,
            evidence=evidence,
            ref_prefix=ref_prefix,
            session_texts=session_texts,
            traced_calls={} if self.traced_calls is not None else None,
            skill_triggers=None,
            spawned=(),
            cache={},
        )

    @property
    def file_root(self) -> Path:
        return self.files_root or self.workspace

    def redacted_names(self, relative: str) -> set[str] | None:
        """The names whose placeholder the run's redaction wrote into this file's content
        (where the run's judge saw their secret); None when that cannot be told. Judged live,
        the workspace holds no placeholder of the run's: whatever looks like one is text."""
        if self.files_root is None:
            return set()
        return None if self.placeholders is None else self.placeholders.in_content(relative)

    def on_disk(self, path: str) -> str:
        """Where an observed workspace path's file is now (inside `file_root`)."""
        relative = self.relative(path)
        if self.files_root is None or relative is None:
            return path
        return str(self.files_root / relative) if relative != "." else str(self.files_root)

    def ref(self, record: EvidenceRecord) -> str:
        return f"{self.ref_prefix}#{record.id}"

    def relative(self, path: str) -> str | None:
        """Workspace-relative form of an absolute observed path, or None if outside."""
        root = str(self.workspace)
        if path == root:
            return "."
        if path.startswith(root.rstrip("/") + "/"):
            return path[len(root.rstrip("/")) + 1 :]
        return None

    def expand(self, path: str) -> list[str]:
        """An observed path that is itself a glob (`cat refs/*.md`) stands for what it matched."""
        if not any(ch in path for ch in "*?[") or not self.workspace_available:
            return [path]
        local = self.on_disk(path)
        matched = sorted(glob.glob(local))
        if self.files_root is not None:
            root = str(self.files_root)
            matched = [str(self.workspace) + m[len(root) :] for m in matched if m.startswith(root)]
        return matched or [path]

    def traced_call(self, record: EvidenceRecord) -> TracedCall | None:
        """The trace's facts about the tool call of `record`, None when there are none."""
        if self.traced_calls is None or record.call_id is None:
            return None
        return self.traced_calls.get(record.call_id)

    def agents_startup(self, record: EvidenceRecord) -> tuple[str, ...]:
        """The shell start-up files the tool call of `record` read that the attempt wrote (red
        team 17): its command ran after the agent's own definitions, so a word of it naming a
        program need not run that program, and only the trace can tell what ran."""
        call = self.traced_call(record)
        return call.agents_startup if call is not None else ()

    def agents_code(self, record: EvidenceRecord) -> tuple[str, ...]:
        """The files the attempt wrote that the tool call of `record` mapped as code (red team
        19: `LD_PRELOAD=./e.so python3 x.py`): a program named by its text may have run the
        agent's code and ended as it said, so neither its text nor the call's exit code proves
        a run; the trace decides, and a process that ran that code proves nothing by its end."""
        call = self.traced_call(record)
        return call.agents_code if call is not None else ()

    def changed_before_run(self, record: EvidenceRecord) -> str | None:
        """Whether the trace shows a tool call of the session, up to the one of `record` (a
        run of a workspace file), writing that file or changing a folder above it in the
        workspace (a file made, renamed or linked there, a folder renamed, removed or made):
        a program the shell analysis cannot follow (computed paths) swapped the file, so what
        ran at its path need not be what the target shipped (red team 13). "before": an
        earlier call; "same": the call that ran it, in an order this does not tell; None: no
        such write seen (or no trace), or a file the eval did not provide (`baseline`)."""
        if record.path is None or record.call_id is None:
            return None
        return self.changed_before(record.path, record.call_id)

    def changed_before(self, path: str, call_id: str) -> str | None:
        """`changed_before_run` of the workspace file `path` run by the tool call `call_id`."""
        if self.traced_calls is None:
            return None
        relative = self.relative(path)
        if relative is None or relative == ".":
            return None
        if self.baseline is not None and relative not in self.baseline:
            # Not a file the eval provided (`npm install`'s `node_modules/.bin/jest`): no
            # target's file was swapped there; what the session made is judged as before.
            return None
        root = str(self.workspace).rstrip("/")
        parts = relative.split("/")
        places = {root + "/" + "/".join(parts[:n]) for n in range(1, len(parts) + 1)}
        commands = list(self.evidence.of_kind("command_observed"))
        own = next((c for c in commands if c.call_id == call_id), None)
        for command in commands:
            if own is not None and _id_number(command.id) >= _id_number(own.id):
                break
            traced = self.traced_calls.get(command.call_id or "")
            if traced is not None and traced.written & places:
                return "before"
        traced = self.traced_calls.get(call_id)
        if traced is not None and traced.written & places:
            return "same"
        return None

    def reads(self) -> list[EvidenceRecord]:
        """Records of content that reached the agent: what "consulted X" means. A `stat`, a
        `wc -l` or a listing touches a file without showing it, so it is not a read."""
        return [
            r for r in self.evidence.of_kind("file_read_observed") if r.access == "read" and r.path
        ]

    def writes(self) -> list[EvidenceRecord]:
        return [r for r in self.evidence.of_kind("file_write_observed") if r.path]

    def outcome(self, record: EvidenceRecord) -> Outcome:
        """Whether the action behind a record took effect. Evidence that does not carry the
        outcome itself falls back on the exit code of the command of the same tool call."""
        if record.outcome is not None:
            return record.outcome
        if record.call_id is None:
            return "unknown"
        for command in self.evidence.of_kind("command_observed"):
            if command.call_id == record.call_id and command.exit_code is not None:
                return "ok" if command.exit_code == 0 else "failed"
        return "unknown"

    def matching(self, records: list[EvidenceRecord], pattern: str) -> list[EvidenceRecord]:
        hits = []
        for record in records:
            assert record.path is not None
            for concrete in self.expand(record.path):
                relative = self.relative(concrete)
                if relative is not None and path_matches(relative, pattern):
                    hits.append(record)
                    break
        return hits


@dataclass(frozen=True)
class PendingEntry:
    """An assertion entry still waiting for a judge, with its id within the case."""

    entry_id: str  # e.g. "required[2]"
    polarity: Polarity
    entry: AssertionEntry
    # The case's author-side context for the model judge only: its `expected_output` (intent,
    # not a criterion) and upstream's `verification:` instructions. Never sent to the agent.
    intent: str | None = None
    verification: tuple[str, ...] = ()
    # The case's declared environment variables: what its prose may name by words.
    variables: tuple[str, ...] = ()

    def vocabulary(self, skill: SkillVocabulary | None) -> SkillVocabulary | None:
        """What the compiler reads this entry's prose with: the skill's words, the case's
        variables."""
        return with_variables(skill, self.variables)


class EntryJudge(Protocol):
    """One step of the judge chain: decides the entries it can, leaves the others to the next."""

    name: str

    def decide(
        self, entries: list[PendingEntry], context: JudgeContext
    ) -> dict[str, AssertionResult]: ...
