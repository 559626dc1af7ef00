"""What each command prints on stdout with `--json`, as models: the source of the
`schemas/output-*.schema.json` files that tools reading the output (SkillOpt, CodexOpt, CI
scripts) can validate against.

The commands build their objects by hand; these models describe them and are not used to build
them, so `tests/cli/test_json_outputs.py` validates every command's real output against its schema.
An object is closed (`extra="forbid"`): a key added or renamed fails that test, and is then
added here on purpose, where a reader sees the change.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, RootModel

from evaluator.artifacts.models import RunState
from evaluator.artifacts.trigger_files import TriggerRunFile
from evaluator.compare.model import Comparison
from evaluator.history.trends import CaseTrend
from evaluator.judge.verdict import Provenance
from evaluator.pipeline.selftest import EntryCoverage, GoldenOutcome
from evaluator.vocabulary import Call, Status

CaseStatus = Status


class Closed(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Envelope(Closed):
    """The keys every `--json` object has, the error object's included (docs/cli.md, "The
    envelope"): `ok` is true exactly when `exit_code` is 0."""

    ok: bool = Field(description="the exit code is 0")
    exit_code: int


# --------------------------------------------------------------------------- errors


class Problem(Closed):
    """One problem, located when it is an input error (as `validate --json` lists them)."""

    path: str | None
    line: int | None
    col: int | None
    field: str | None
    message: str
    text: str = Field(description="the problem as the one line on stderr says it")


class ErrorOutput(Closed):
    """What any command given `--json` prints when an error stops it before its own object."""

    ok: Literal[False]
    exit_code: int
    errors: list[Problem]


# --------------------------------------------------------------------------- repo commands


class Deferred(Closed):
    target: str
    suite: str
    case: str
    problem: str | None = Field(default=None, description="why a deferred draft cannot load")


class Need(Closed):
    target: str
    suite: str
    case: str
    needs: list[str]
    missing_here: list[str]


class ValidateOutput(Envelope):
    repo: str
    targets: list[str]
    cases: int = Field(description="how many cases were loaded (a count, unlike `list`)")
    trigger_prompts: int
    errors: list[Problem]
    warnings: list[Problem]
    deferred: list[Deferred]
    needs: list[Need]


class ListedSuite(Closed):
    suite_id: str
    title: str | None
    default: bool
    cases: list[str]


class ListedCase(Closed):
    case_id: str
    suite_id: str
    title: str | None
    split: str | None
    path: str


class ListOutput(Envelope):
    default_target: str | None
    targets: list[str]
    target: str | None = Field(description="null when several targets and none is the default")
    entry_skill: str | None = Field(default=None, description="the listed target's entry skill")
    entry_skills: dict[str, str | None] | None = Field(
        default=None,
        description="instead of entry_skill when no target is chosen: per target",
    )
    suites: list[ListedSuite]
    selected_suites: list[str]
    cases: list[ListedCase]
    deferred_cases: list[str]


class RefusedSentence(Closed):
    sentence: str
    role: str | None
    why: str
    instead: str | None


class EntryPart(Closed):
    sentence: str
    role: str | None
    rules_fail_when: str | None = None
    decides_nothing_alone: str | None = None


class ExplainedEntry(Closed):
    entry_id: str
    polarity: str
    description: str
    decided_by: str
    checks: list[str]
    provenance: list[Provenance]
    model_prompt: str | None
    refused: list[RefusedSentence]
    parts: list[EntryPart] | None = None


class ExplainedCase(Closed):
    case_id: str
    needs: list[str]
    env_vars_missing: list[str] = Field(
        default_factory=list,
        description="`setup.env_vars_required` variables not set where the command ran: a run"
        " here would block the case (environment) unless a required entry fails",
    )
    setup_free_form: dict[str, Any] = Field(
        default_factory=dict,
        description="The case's free-form `setup` facts (keys of the public contract's shape,"
        " not ours) with their values: none can be reproduced here, so a run blocks the case"
        " (environment) without starting the agent",
    )
    intent: str | None = Field(
        default=None,
        description="The case's `expected_output`: shown to the model judge only, never to the"
        " agent, and no assertion",
    )
    verification: list[str] = Field(
        default_factory=list,
        description="The case's `verification` lines: for the model judge only",
    )
    entries: list[ExplainedEntry]


class ExplainOutput(Envelope):
    target: str
    companion_skills: list[str] = Field(
        description="The target's companion skills' folders, installed beside it in every"
        " attempt (`target.yaml` `companion_skills`)"
    )
    cases: list[ExplainedCase]
    deferred_not_explained: list[str]
    counts: dict[str, int] = Field(description="entries per route")
    total: int
    rules_coverage: float | None
    decided_without_model: int
    rules_can_fail: int


class ConvertOutput(Envelope):
    out: str
    files: list[str]
    skill: str
    skill_path: str


# --------------------------------------------------------------------------- runs


class RunCase(Closed):
    case_id: str
    status: CaseStatus
    blocked_reason: str | None
    pass_rate: float | None


class RunOutput(Envelope):
    run_id: str
    run_dir: str
    run_state: RunState
    counts: dict[str, int] = Field(description="cases per status")
    pass_rate: float | None
    report: str
    cases: list[RunCase]
    exit_reason: str | None


class MetricValue(Closed):
    metric: str
    value: float
    interval: list[float] | None = Field(default=None, description="[low, high], 95%")
    p: float | None = None
    cases: int | None = None


class ScoredCase(Closed):
    case_id: str
    status: CaseStatus
    hard: float | None
    soft: float | None


class ScoreOutput(Envelope):
    """One line, followed by the VERDICT line (the last line of stdout)."""

    verdict: Literal["PASS", "FAIL", "ERROR"]
    reason: str
    metric: MetricValue | None = Field(description="the deciding metric beside hard and soft")
    hard: float | None
    soft: float | None
    coverage: float | None
    cases: int = Field(description="how many cases were selected (a count)")
    judged: int
    passed: int
    failed: int
    blocked: int
    blocked_causes: dict[str, int] = Field(description="`side:cause` -> blocked cases")
    per_case: list[ScoredCase]
    run_id: str
    run_dir: str


class Regression(Closed):
    case_id: str
    current: str
    candidate: str


class GateOutput(Envelope):
    action: Literal["accept_new_best", "accept", "reject"]
    metric: str = Field(description="the metric's name (score's `metric` is an object)")
    candidate_score: float
    candidate_metric: MetricValue | None
    current_score: float
    best_score: float
    regressions: list[Regression]
    reason: str
    differences: list[str]


class JudgedCase(Closed):
    case_id: str
    status: CaseStatus
    blocked_reason: str | None


class JudgeOutput(Envelope):
    run_id: str
    run_dir: str
    cases: list[JudgedCase]


class SelftestOutput(Envelope):
    run_id: str = Field(description="the selftest's id, as `selftest_id`")
    run_dir: str = Field(description="its directory, as `directory`")
    selftest_id: str
    directory: str
    target_id: str
    runs: dict[str, str]
    goldens: list[GoldenOutcome]
    entries: list[EntryCoverage]
    cases_without_golden: list[str]
    interrupted: bool
    mismatched_goldens: int
    vacuous_entries: int
    non_separating_cases: list[str]
    misscripted_goldens: int


class NoTriggers(Closed):
    """No triggers.json was written (the run stopped before it)."""


class TriggersOutput(Envelope):
    run_id: str
    run_dir: str
    interrupted: bool
    triggers: TriggerRunFile | NoTriggers = Field(description="triggers.json, or {}")


class VariantSummary(Closed):
    pass_rate: float | None
    passed: int
    counted: int
    rubric_scores: dict[str, float | None] | None


class VariantComparison(Closed):
    reference: str
    compared: str
    call: Call
    mean_difference: float | None
    p: float | None
    hurt_cases: list[str]


class EvaluateOutput(Envelope):
    run_id: str = Field(description="the evaluation's id, as `eval_id`")
    run_dir: str = Field(description="its directory, as `directory`")
    eval_id: str
    directory: str
    variants: dict[str, VariantSummary] = Field(description="by variant label")
    comparisons: list[VariantComparison]


class CompareOutput(Comparison):
    """comparison.json itself with the envelope (`ok`, `exit_code`: 1 on a regression)."""

    ok: bool = Field(description="the exit code is 0")
    exit_code: int


# --------------------------------------------------------------------------- in-session attempts


class AttemptNewOutput(Envelope):
    run_id: str
    run_dir: str
    case_id: str
    attempt: int
    workspace: str | None = Field(default=None, description="absent when blocked")
    prompt: str | None = Field(default=None, description="absent when blocked")
    blocked: Literal["environment"] | None = Field(
        default=None, description="present when the case needs what this machine lacks"
    )
    unmet_needs: list[str] | None = None
    case_status: str | None = None
    created_run: bool


class AttemptCollectOutput(Envelope):
    run_id: str
    run_dir: str
    case_id: str
    attempt: int
    thread_id: str | None
    nickname: str | None
    session_path: str | None
    attempt_status: str
    valid: bool
    isolation: str | None
    reason: str | None
    case_status: str
    run_state: str
    report: str


# --------------------------------------------------------------------------- sessions, history


class LocatedSession(Closed):
    thread_id: str
    path: str
    parent_thread_id: str | None
    nickname: str | None
    created_at: str | None


class SessionLocateOutput(Envelope):
    status: Literal["found", "ambiguous", "not-found"]
    method: str
    reason: str
    sessions: list[LocatedSession]


class ObservedCommand(Closed):
    ref: str
    command: str
    workdir: str | None


class ObservedPath(Closed):
    ref: str
    path: str


class Violation(Closed):
    ref: str
    kind: str
    path: str
    detail: str


class InspectedIsolation(Closed):
    verdict: str
    violations: list[Violation]
    reason: str


class MalformedLine(Closed):
    line: int
    reason: str


class SessionInspectOutput(Envelope):
    thread_id: str | None
    session_path: str
    complete: bool
    final_answer: str | None
    commands: list[ObservedCommand]
    reads: list[ObservedPath]
    writes: list[ObservedPath]
    isolation: InspectedIsolation
    malformed: list[MalformedLine]


class HistoryOutput(RootModel[list[CaseTrend]]):
    """`history --json`: the trends, a list."""


class SkippedRun(Closed):
    path: str
    reason: str


class HistoryImportOutput(Envelope):
    db: str
    recorded: list[str]
    skipped: list[SkippedRun]


class InstalledAgent(Closed):
    agent: str
    package: str
    binary: str
    installed: bool


class InstalledOneAgent(InstalledAgent, Envelope):
    """`setup-agents` for one agent: its object with the envelope."""


class SetupAgentsOutput(RootModel[InstalledOneAgent | list[InstalledAgent]]):
    """One object for one agent, a list for several."""


class SchemasCheckOutput(Envelope):
    directory: str
    stale: list[str]


# The command (as typed after `agentic-eval`) -> the model of its `--json` object; "error" is
# what every one of them prints instead when an error stops it.
OUTPUT_MODELS: dict[str, type[BaseModel]] = {
    "error": ErrorOutput,
    "validate": ValidateOutput,
    "list": ListOutput,
    "explain": ExplainOutput,
    "convert": ConvertOutput,
    "run": RunOutput,
    "score": ScoreOutput,
    "gate": GateOutput,
    "judge": JudgeOutput,
    "selftest": SelftestOutput,
    "triggers": TriggersOutput,
    "evaluate": EvaluateOutput,
    "compare": CompareOutput,
    "attempt new": AttemptNewOutput,
    "attempt collect": AttemptCollectOutput,
    "session locate": SessionLocateOutput,
    "session inspect": SessionInspectOutput,
    "history": HistoryOutput,
    "history import": HistoryImportOutput,
    "setup-agents": SetupAgentsOutput,
    "schemas check": SchemasCheckOutput,
}


def output_kind(command: str) -> str:
    """The schema kind of a command's output: `output-attempt-new` for `attempt new`."""
    return "output-" + command.replace(" ", "-")
