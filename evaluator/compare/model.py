"""`comparison.json`: what `agentic-eval compare` found between a base run and a candidate run.

Field names are part of the artifact (the HTML report renders them, CI reads them): add fields,
never rename them. The schema is exported to `schemas/comparison.schema.json`.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from evaluator.vocabulary import (
    BlockedReason,
    BlockSide,
    ComparisonClass,
    Polarity,
    Status,
)

COMPARISON_VERSION = 1
# How a case's change was decided: the exact test over K attempts (Boschloo's since the
# statistics module; Fisher's in comparisons written before, still read), the single-attempt
# rule, or no test at all (the same outcome on both sides, a blocked side, a case on one side).
Decision = Literal["boschloo-one-sided", "fisher-one-sided", "single-attempt", "none"]
FlipDirection = Literal["broke", "fixed", "changed"]


class ComparisonModel(BaseModel):
    # Readers of our artifacts may add fields; we keep them on re-write.
    model_config = ConfigDict(extra="allow")


class CaseSide(ComparisonModel):
    """One side's result of a case, as the comparison counts it."""

    status: Status
    blocked_reason: BlockedReason | None = None
    blocked_by: BlockSide | None = Field(
        default=None,
        description="For a blocked case: whose doing it is, as the score counts it (the case"
        " result's `blocked_by`, or the migration rule for a file without it).",
    )
    attempts: int = Field(description="The K tries of the case (a retried attempt counts once).")
    passed: int = Field(description="Tries that passed.")
    counted: int = Field(
        description="Tries with a verdict: judged ones, and blocked ones the agent caused"
        " (a timeout, an isolation violation, a crash: counted as not passed, as in the score)."
    )
    blocked: int = Field(description="Tries blocked by the eval or the machine (not counted).")
    pass_rate: float | None = Field(description="passed / counted; None when nothing counted.")
    case_result: str = Field(description="The case result file, relative to the run directory.")

    def blocked_text(self) -> str:
        """A side no try of which counts: blocked, why, and whose doing (never the agent's,
        whose blocks count as not passed)."""
        whose = {"eval": "; the eval's", "outage": "; an outage"}.get(self.blocked_by or "", "")
        return f"blocked ({self.blocked_reason or 'no verdict'}{whose})"


class AssertionFlip(ComparisonModel):
    """An assertion entry whose verdict differs between the runs."""

    entry_id: str = Field(description='e.g. "required[0]"; the entry\'s summary when it has none.')
    summary: str
    polarity: Polarity = "required"
    base_status: Status | None = Field(description="None: the entry is not in the base run.")
    candidate_status: Status | None = Field(description="None: not in the candidate run.")
    base_passed: int = Field(default=0, description="Attempts of the base that passed the entry.")
    base_judged: int = Field(default=0, description="Attempts of the base that judged the entry.")
    candidate_passed: int = 0
    candidate_judged: int = 0
    direction: FlipDirection = Field(
        description="`broke` (was pass), `fixed` (now pass), `changed` (anything else)."
    )
    base_evidence: list[str] = Field(
        default_factory=list, description="Evidence refs, relative to the base run directory."
    )
    candidate_evidence: list[str] = Field(
        default_factory=list, description="Evidence refs, relative to the candidate run directory."
    )


class CaseComparison(ComparisonModel):
    case_id: str
    renamed_from: str | None = Field(
        default=None,
        description="The case's id in the base run, when it was renamed and is otherwise the"
        " same definition (the same `definition_digest`): compared as one case.",
    )
    suite_id: str | None = None
    title: str | None = None
    classification: ComparisonClass
    reason: str = Field(description="One sentence: why this class.")
    decision: Decision
    p_drop: float | None = Field(
        default=None, description="One-sided exact (Boschloo) p-value for a drop in pass count."
    )
    p_rise: float | None = Field(
        default=None, description="One-sided exact (Boschloo) p-value for a rise in pass count."
    )
    p_drop_holm: float | None = Field(
        default=None,
        description="`p_drop` Holm-corrected over every case with a `p_drop` (as `evaluate`"
        " corrects): shown, not what classifies (docs/statistics.md, `compare`).",
    )
    p_rise_holm: float | None = Field(
        default=None, description="`p_rise` Holm-corrected over every case with a `p_rise`."
    )
    difference: float | None = Field(
        default=None,
        description="Candidate pass rate minus base pass rate (None: a side has no counted try).",
    )
    difference_interval: tuple[float, float] | None = Field(
        default=None,
        description="Newcombe's 95% hybrid score interval of the difference (docs/statistics.md).",
    )
    base: CaseSide | None = Field(description="None: the case is not in the base run.")
    candidate: CaseSide | None = Field(description="None: the case is not in the candidate run.")
    assertion_flips: list[AssertionFlip] = Field(default_factory=list)


class RunSummary(ComparisonModel):
    """One of the two runs."""

    run_id: str
    variant: str | None = Field(
        default=None,
        description="For a variant run of `evaluate` (whose run id is `run`, the same for every"
        " variant): its label and evaluation, `old_skill of eval-7`.",
    )
    path: str
    target_id: str | None = None
    target_skill_path: str | None = None
    candidate_skill: str | None = None
    attempts: int | None = None
    cases: int
    passed: int
    failed: int
    blocked: int
    pass_rate: float | None = Field(
        description="Verified hard pass rate of the run (as `score`), None without a verdict."
    )
    coverage: float

    @property
    def name(self) -> str:
        """What a comparison calls the run: its id, or the variant it is (every variant of an
        evaluation has the run id `run`, so both sides would read `run`)."""
        return self.variant or self.run_id


class Comparison(ComparisonModel):
    """`comparison.json`, written beside the candidate run's other artifacts."""

    version: int = COMPARISON_VERSION
    created_at: str
    base: RunSummary
    candidate: RunSummary
    alpha: float = Field(description="Significance level of the one-sided exact test.")
    method: str = Field(description="How regressions are decided, in words (shown in the output).")
    allow_different_cases: bool = False
    differences: list[str] = Field(
        default_factory=list,
        description="Ways the runs are not alike that --allow-different-cases let through.",
    )
    setting_differences: list[str] = Field(
        default_factory=list,
        description="How the runs' agent, agent version, model, model endpoint or sandbox differ"
        " (compared all the same: a change may be theirs, not the skill's).",
    )
    counts: dict[ComparisonClass, int] = Field(
        description="How many cases fell in each class (every class is listed)."
    )
    regressions: list[str] = Field(description="Case ids classed `regression`, in case order.")
    coverage: float | None = Field(
        default=None,
        description="Of the cases in both runs, the share with a verdict on both sides (not"
        " `same-blocked`, not `environment-divergence`): what was compared. None: no case in"
        " both runs (or a comparison written before the field).",
    )
    min_coverage: float | None = Field(
        default=None,
        description="The least `coverage` that makes a comparison (`--min-coverage`); below it"
        " the comparison decides nothing (exit 3).",
    )
    cases: list[CaseComparison]

    @property
    def has_regression(self) -> bool:
        return bool(self.regressions)

    @property
    def compared(self) -> tuple[int, int]:
        return compared_cases(self.cases)

    @property
    def below_coverage(self) -> bool:
        """Too few cases decided on both sides for the comparison to say there is no regression
        (an outage or a machine that blocked one side reads as `environment-divergence`)."""
        if self.min_coverage is None:
            return False
        return (self.coverage or 0.0) < self.min_coverage


# The classes of a case in both runs without a verdict on both sides: not compared.
UNDECIDED: tuple[ComparisonClass, ...] = ("same-blocked", "environment-divergence")


def compared_cases(cases: list[CaseComparison]) -> tuple[int, int]:
    """Cases with a verdict on both sides, and the cases in both runs."""
    both = [c for c in cases if c.classification not in ("added", "removed")]
    return sum(1 for c in both if c.classification not in UNDECIDED), len(both)
