"""`evaluation.json`: the variants of an evaluation and how each compares with the reference.

Its schema is `schemas/evaluation-result.schema.json`. Differences are always the compared
variant minus the reference (the first variant), as shares (0.1 is 10 points); intervals are 95%.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

EVALUATION_JSON = "evaluation.json"
EVAL_REPORT_MD = "eval-report.md"
VARIANTS_DIR = "variants"
VARIANT_RUN = "run"  # each variant's run dir: variants/<label>/run (the public contract's shape)
SOURCE_MANIFEST = "source-manifest.json"


class _Model(BaseModel):
    model_config = ConfigDict(extra="allow")


class Bounds(_Model):
    low: float
    high: float


class ContaminationCheck(_Model):
    """For a no-skill variant: every attempt was checked for the skill reaching it."""

    skill_dir: str  # the skill the variant must never see
    layers: list[str]  # every layer that checked at least one attempt
    attempts_checked: int
    contaminated_attempts: list[str] = Field(default_factory=list)  # `<case>/attempt-NN: why`
    blocked_cases: list[str] = Field(default_factory=list)  # contaminated again on the rerun


class VariantCostSummary(_Model):
    attempts: int
    tokens_per_attempt: float | None
    seconds_per_attempt: float | None


class VariantSummary(_Model):
    label: str
    kind: str  # current | none | dir | file | rev
    source: str  # as the user or the evaluation file named it
    description: str
    run_dir: str  # relative to the evaluation directory
    commit: str | None = None  # for a revision
    skill_hash: str | None = None
    run_state: str
    cases: int
    passed: int  # counted attempts that passed, over every case
    counted: int  # attempts counted (judged, or blocked by the agent's own fault)
    pass_rate: float | None
    interval: Bounds | None  # Wilson
    statuses: dict[str, int]  # case statuses: pass, fail, blocked
    cost: VariantCostSummary
    contamination: ContaminationCheck | None = None  # None: the variant had the skill


class CaseDifference(_Model):
    case_id: str
    passed_a: int
    total_a: int
    passed_b: int
    total_b: int
    difference: float | None
    interval: Bounds | None  # Newcombe
    p: float | None  # exact test (Boschloo), one-sided in the asked direction
    p_holm: float | None
    significant: bool
    p_hurt: float | None  # one-sided "B passes less often"
    p_hurt_holm: float | None
    hurt: bool


class OverallDifference(_Model):
    cases: int
    mean_difference: float | None
    interval: Bounds | None  # case bootstrap
    interval_method: str | None
    p: float | None  # sign-flip permutation over cases
    significant: bool


class CostDifference(_Model):
    extra_tokens_per_attempt: float | None
    extra_seconds_per_attempt: float | None
    tokens_per_point: float | None
    seconds_per_point: float | None


class Headline(_Model):
    call: str  # better | worse | no-difference | inside-noise | no-data
    text: str


class VariantComparison(_Model):
    reference: str  # label A
    compared: str  # label B
    alternative: str  # greater: "does B help?"; two-sided A/A asks both ways
    alpha: float
    seed: int
    overall: OverallDifference
    cases: list[CaseDifference]  # the cases B hurts first
    hurt_cases: list[str]
    untestable: list[str]
    headline: Headline
    cost: CostDifference


class EvaluationResult(_Model):
    eval_id: str
    mode: str  # ab | comparison | aa
    title: str | None = None
    evaluation_file: str | None = None
    target_id: str
    suite_ids: list[str]
    case_ids: list[str]
    agent: str
    attempts: int
    started_at: str
    finished_at: str | None = None
    interleaved: bool  # attempts of all variants ran interleaved through one executor
    variants: list[VariantSummary]
    comparisons: list[VariantComparison]
    noise_floor: float | None = None  # from an A/A evaluation (--aa)
    notes: list[str] = Field(default_factory=list)
