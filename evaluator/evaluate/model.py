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


class AttemptScore(_Model):
    """One attempt's score on one rubric dimension, after verification."""

    attempt: int
    score: str | None  # a scale value, or null: no verified majority (see `note`)
    value: float | None  # the verified votes' mean on the numeric scale
    votes: list[float | None]  # each vote's verified value, null where discarded
    refs: list[str]  # the records the score cites
    record: str | None  # the judge record, relative to the variant's run dir
    note: str | None = None


class CaseDimensionScore(_Model):
    """One case's scores on one dimension, over its scored attempts."""

    case_id: str
    attempts: list[AttemptScore]
    scored: int  # attempts with a score
    nulls: int  # attempts whose score is null
    mean: float | None
    sd: float | None  # across attempts (sample); null below two scores
    low: float | None
    high: float | None
    vote_sd: float | None  # mean within-attempt sd of the votes; null with one vote


class DimensionSummary(_Model):
    """One rubric dimension for one variant: the mean over cases (each case weighs the same)."""

    name: str
    scale: list[str]
    cases: list[CaseDimensionScore]
    cases_scored: int
    mean: float | None  # of the case means
    sd: float | None  # across case means (sample)
    low: float | None
    high: float | None
    attempts_scored: int
    attempts_null: int


class RubricScores(_Model):
    """A variant's rubric scores (rubric modes): `scores` is the public `rubric_scores`."""

    rubric_id: str
    scores: dict[str, float | None]  # dimension -> mean score, null when nothing was scored
    notes: list[str]  # the public `rubric_notes`: why scores are null, discarded votes
    dimensions: list[DimensionSummary]


class DimensionHeadToHead(_Model):
    """Per rubric dimension: on how many cases the compared variant's mean score is higher."""

    name: str
    wins: int
    losses: int
    ties: int
    untested: int  # cases without a score on one side or both
    mean_difference: float | None  # compared minus reference, over the cases both scored


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
    rubric: RubricScores | None = None  # rubric modes only


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
    dimensions: list[DimensionHeadToHead] = Field(default_factory=list)  # with a rubric


class EvaluationResult(_Model):
    eval_id: str
    mode: str  # ab | comparison | aa | subjective
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
    rubric_id: str | None = None  # the rubric every variant was scored on
    notes: list[str] = Field(default_factory=list)
