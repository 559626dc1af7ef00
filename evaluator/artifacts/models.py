"""Shapes of the run artifacts: `manifest.json`, `attempt.json` and `case-results/<case_id>.json`.

Verdicts are the judge's own models (`judge/verdict.py`): what the judge returns is written as is.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from evaluator.judge.verdict import AssertionResult, CheckVerdict, ShownFile
from evaluator.vocabulary import (
    BlockCause,
    BlockedBy,
    BlockedReason,
    BlockSide,
    IsolationVerdict,
    JudgeMode,
    Split,
    Status,
    TraceLayer,
)

__all__ = ["AssertionResult", "CheckVerdict"]

RunState = Literal["planned", "running", "interrupted", "completed"]
# A run in these states is still going (or died without closing): not a result to read.
UNFINISHED_STATES: tuple[RunState, ...] = ("planned", "running")


class ArtifactModel(BaseModel):
    # Readers of our artifacts may add fields; we keep them on re-write.
    model_config = ConfigDict(extra="allow")


class VariantRole(ArtifactModel):
    """The variant of an `evaluate` comparison a run is."""

    label: str
    evaluation_id: str
    compared: list[str] = Field(default_factory=list, description="every variant's label")

    def title(self) -> str:
        others = [label for label in self.compared if label != self.label]
        against = f" (against {', '.join(others)})" if others else ""
        return f"variant {self.label} of evaluation {self.evaluation_id}{against}"


# How a no-skill run's manifest says it (pipeline/run.py writes the note; `evaluate` reads it).
NO_SKILL_NOTE = "no skill:"
ScratchPlace = Literal["memory", "disk"]


class JudgeSettings(ArtifactModel):
    """The judge options a run was given (`--judge`, `--judge-model`, ...): what
    `run --rerun-failed` judges with again unless the user names another judge."""

    mode: JudgeMode = "auto"
    model: str | None = None
    agent: str | None = None
    votes: int | None = None
    base_url: str | None = Field(default=None, description="--judge-base-url, without user-info")
    api_key_env: str | None = None


class Manifest(ArtifactModel):
    run_mode: Literal["single-run"] = "single-run"
    run_id: str
    target_id: str
    suite_ids: list[str]
    target_skill_path: str
    started_at: str
    model: str | None = None
    workspace_mode: Literal["isolated-per-case"] = "isolated-per-case"
    case_workspace_root: str
    evidence_mode: str = "codex-local-session-store"
    notes: list[str] = Field(default_factory=list)
    # ours
    selected_case_ids: list[str] = Field(default_factory=list)
    resolved_case_ids: list[str] = Field(default_factory=list)
    source_workspace: str | None = None
    repo: str | None = None
    run_state: RunState = "planned"
    finished_at: str | None = None
    agent: str | None = None
    agent_version: str | None = Field(default=None, description="what the agent CLI reports")
    codex_version: str | None = Field(
        default=None, description="older runs' agent version (agent_version in newer ones)"
    )
    attempts: int = 1
    case_attempts: dict[str, int] = Field(
        default_factory=dict,
        description="case_id -> K where a case's own `attempts:` set it (no --attempts given)",
    )
    workers: int = 1
    timeout_s: float | None = None
    timeout_explicit: bool = Field(
        default=False,
        description="--timeout was given: it applies to every case, over a case's own timeout_s"
        " (a resume keeps it so)",
    )
    lenient: bool = Field(
        default=False, description="unknown keys were warnings (--lenient); re-judging reads alike"
    )
    behaviors_dir: str | None = None
    model_base_url: str | None = Field(
        default=None,
        description="--base-url: the endpoint the agent's model was reached at (no user-info)",
    )
    model_key_env: str | None = Field(
        default=None, description="--api-key-env: the variable that held the endpoint's key"
    )
    judge: JudgeSettings | None = Field(
        default=None,
        description="the judge options of the run (--judge, --judge-model, --judge-agent,"
        " --judge-votes, --judge-base-url, --judge-api-key-env) that `run --rerun-failed`"
        " takes; absent in older runs and in those `evaluate`, `selftest`, `triggers` make",
    )
    evaluator_version: str | None = None
    runner_pid: int | None = None
    sandbox: str | None = Field(default=None, description="jail around the agent: bwrap or none")
    trace: TraceLayer | None = Field(
        default=None,
        description="syscall trace of the agent: ebpf (where it loads, --tracer auto), strace, or off"
        " (evidence alone)",
    )
    scratch: ScratchPlace | None = Field(
        default=None,
        description="where the attempts' workspaces and agent homes were: memory (a tmpfs in the"
        " evaluator's own mount namespace, --scratch-memory) or disk. Absent in older runs.",
    )
    candidate_skill: str | None = Field(
        default=None,
        description="run-dir file holding the candidate entry skill every workspace got (score)",
    )
    environment_mismatches: dict[str, list[str]] = Field(
        default_factory=dict, description="case_id -> setup facts that could not be reproduced"
    )
    skill_hash: str | None = Field(
        default=None,
        description="sha256 of the skill files every workspace got (entry skill, the candidate"
        " text in its place when one is scored, and the roots): the skill as evaluated",
    )
    source_commit: str | None = Field(
        default=None, description="git HEAD of the source workspace, when it is a git checkout"
    )
    case_splits: dict[str, Split] | None = Field(
        default=None,
        description="case_id -> the split it belonged to when the run was planned (`list"
        " --split`): `gate` refuses a run holding held-out `test` cases. Absent in older runs.",
    )
    variant: VariantRole | None = Field(
        default=None,
        description="the variant of an `evaluate` comparison this run is (its run id is `run`,"
        " the same for every variant): its label, the evaluation, the variants compared",
    )

    def is_no_skill(self) -> bool:
        """Whether the run gave the agent no skill (an evaluation's no-skill baseline)."""
        return any(note.startswith(NO_SKILL_NOTE) for note in self.notes)

    def title(self) -> str:
        """What a report calls the run: its id, or the variant of the evaluation it is."""
        if self.variant is None:
            return self.run_id
        return self.variant.title()

    def agent_label(self) -> str:
        """The agent and its CLI's version, as every report names them."""
        version = self.agent_version or self.codex_version or "unknown version"
        return f"{self.agent or 'unknown agent'} ({version})"


class AttemptRecord(ArtifactModel):
    attempt: int
    workspace_root: str
    valid: bool
    status: Status | None = None
    blocked_reason: BlockedReason | None = None
    blocked_by: BlockedBy | None = Field(
        default=None,
        description="For a blocked attempt: `agent` when the agent's own acts blocked it (it"
        " left its workspace: an isolation violation) or its judgement (its own gaps: one"
        " blocked entry may hide a failure), `eval` otherwise. Absent in older artifacts, and"
        " `eval` on a violation before 29 November 2026: the score reads the violation itself.",
    )
    reason: str | None = None
    thread_id: str | None = None
    session_path: str | None = None
    isolation: IsolationVerdict | None = None
    isolation_reason: str | None = None
    retry_of: int | None = None
    mismatches: list[str] = Field(default_factory=list)
    exit_code: int | None = None
    timed_out: bool = False
    # Facts that say who caused a `blocked` (see artifacts/attribution.py).
    killed: bool = False
    agent_error: str | None = None
    model_unreachable: bool = Field(
        default=False,
        description="killed while still waiting for a model endpoint that never answered",
    )
    unmet_needs: list[str] | None = Field(
        default=None,
        description="What the case `needs` and the agent's jail lacked (`program soffice`), or"
        " a setup fact not reproduced here (`setup: env_vars_required: X is not set in the"
        " environment`): the attempt was not run, `blocked (environment)`, the eval's.",
    )
    session_complete: bool | None = None
    duration_s: float | None = None
    tokens: dict[str, int] | None = Field(
        default=None,
        description="the agent's own token counts (input, cached_input, output, reasoning_output,"
        " total), as its session recorded them",
    )
    artifacts_dir: str | None = None
    shown: list[ShownFile] | None = Field(
        default=None,
        description="The workspace files whose content reached the agent, in the order it first"
        " saw them (`judge/consultation.py`); computed for a failed attempt or when its checks"
        " needed it, else absent.",
    )
    interrupted: bool = Field(
        default=False,
        description="the run stopped before this attempt's case finished: listed, not counted",
    )
    entry_share: float | None = Field(
        default=None,
        ge=0.0,
        le=1.0,
        description="For a judged attempt: the share of its decided assertion entries that"
        " passed (the case's `soft` is their mean over its K tries). Absent in older artifacts.",
    )


class IsolationViolation(ArtifactModel):
    ref: str
    kind: str
    path: str
    detail: str


class IsolationSummary(ArtifactModel):
    """The isolation report of an attempt, offending records included."""

    verdict: IsolationVerdict
    workspace: str
    reason: str = ""
    reliable_signals: int = 0
    checked: int = 0
    violations: list[IsolationViolation] = Field(default_factory=list)
    allowed_outside: list[str] = Field(default_factory=list)
    opaque: list[dict[str, str]] = Field(default_factory=list)


class IsolationLayers(ArtifactModel):
    """Which isolation layers watched the attempt beside the session evidence."""

    sandbox: str = Field(description="The jail the agent ran in: `bwrap` or `none`.")
    trace: TraceLayer = Field(
        description="The access trace, as in the manifest: `strace` or `ebpf` (its findings are the"
        " attempt's `trace_report`) or `off`."
    )

    @field_validator("trace", mode="before")
    @classmethod
    def _from_bool(cls, value: Any) -> Any:
        # attempt.json files written before the trace was one named layer held a bool.
        return ("strace" if value else "off") if isinstance(value, bool) else value


class AttemptFile(AttemptRecord):
    """`case-artifacts/<case>/attempts/attempt-NN/attempt.json`: one attempt, in full."""

    isolation_report: IsolationSummary | None = None
    isolation_layers: IsolationLayers | None = None
    trace_report: dict[str, Any] | None = Field(
        default=None, description="The access trace's findings (`isolation/trace.py`), if traced."
    )
    assertions: list[AssertionResult] | None = Field(
        default=None, description="Present when the attempt was judged."
    )


class CaseStats(ArtifactModel):
    attempts: int
    judged: int
    passed: int
    failed: int
    blocked: int
    pass_rate: float | None
    pass_at_k: float | None
    pass_pow_k: float | None
    flaky: bool


class CaseResult(ArtifactModel):
    case_id: str
    workspace_root: str | None
    thread_id: str | None
    session_path: str | None
    status: Status
    blocked_reason: BlockedReason | None = None
    assertions: list[AssertionResult] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    suggested_fix_files: list[str] = Field(default_factory=list)
    # ours
    blocked_by: BlockSide | None = Field(
        default=None,
        description="For a blocked case: whose doing it is, as the score counts it"
        " (artifacts/attribution.py): `agent` (counted as not passed), `eval` (left out of the"
        " pass rate, lowers the coverage) or `outage` (no score). Absent in another evaluator's"
        " or an older file: read from `attempts` when it has them, else the old rule (a"
        " `blocked_reason` of `insufficient-evidence`, or none, is the agent's; any other the"
        " eval's).",
    )
    blocked_cause: BlockCause | None = Field(
        default=None,
        description="With `blocked_by`: what blocked it (a timeout, an isolation violation,"
        " the agent's own unverifiable commands, an unclear rule, ...).",
    )
    suite_id: str | None = None
    title: str | None = None
    case_file: str | None = Field(
        default=None, description="the case file, relative to the source workspace"
    )
    case_digest: str | None = Field(
        default=None,
        description="fingerprint of the case definition (contract/digest.py): `compare` refuses"
        " runs whose same case was defined differently",
    )
    definition_digest: str | None = Field(
        default=None,
        description="fingerprint of the case definition without its `case_id`: `compare` takes"
        " a case of the base missing from the candidate and a case of the candidate missing from"
        " the base with the same one for one case renamed",
    )
    judged_digest: str | None = Field(
        default=None,
        description="fingerprint of what the case judges, whatever its file's dialect"
        " (contract/digest.py): its prompt, setup with each fixture's content, assertions; not"
        " its id, title, notes or split. `compare` reads it when both runs recorded it",
    )
    attempts: list[AttemptRecord] = Field(default_factory=list)
    stats: CaseStats | None = None
    environment_mismatches: list[str] = Field(default_factory=list)
