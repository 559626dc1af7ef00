"""Two variants on the same cases: per case, overall, per variant; the hurt cases first.

Variant A is the reference (no skill, the old version), B the one under review; a difference is
always B - A, so a negative one means B hurts the case. `alternative` is the question asked:
`greater` ("does B help?") or `less` ("is B worse?"). Per case the exact test answers it,
Holm-corrected across cases; the cases B hurts are tested apart (one-sided `less`, their own Holm
family) whatever was asked, so a skill that helps on average cannot hide the cases it breaks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

from evaluator.stats.exact import Alternative, one_sided_p
from evaluator.stats.holm import holm_optional
from evaluator.stats.paired import SEED, BootstrapInterval, bootstrap_mean, sign_flip_p
from evaluator.stats.proportion import Interval, newcombe, wilson

ALPHA = 0.05


@dataclass(frozen=True)
class CaseCounts:
    """One case's counted attempts and passes under each variant."""

    case_id: str
    passed_a: int
    total_a: int
    passed_b: int
    total_b: int

    @property
    def testable(self) -> bool:
        return self.total_a > 0 and self.total_b > 0

    @property
    def difference(self) -> float | None:
        if not self.testable:
            return None
        return self.passed_b / self.total_b - self.passed_a / self.total_a


@dataclass(frozen=True)
class CaseDifference:
    counts: CaseCounts
    difference: float | None
    interval: Interval | None  # Newcombe, of B - A
    p: float | None  # one-sided, in the asked direction
    p_holm: float | None
    significant: bool
    p_hurt: float | None  # one-sided "B passes less often", every time
    p_hurt_holm: float | None
    hurt: bool  # B is significantly worse on this case (Holm-corrected)


@dataclass(frozen=True)
class VariantRate:
    passed: int
    total: int
    interval: Interval | None  # Wilson

    @property
    def rate(self) -> float | None:
        return self.passed / self.total if self.total else None


@dataclass(frozen=True)
class Overall:
    cases: int  # cases with attempts counted under both variants
    mean_difference: float | None
    bootstrap: BootstrapInterval | None
    p: float | None  # paired sign-flip test over cases, in the asked direction
    significant: bool


@dataclass(frozen=True)
class VariantComparison:
    alternative: Alternative
    alpha: float
    seed: int
    rate_a: VariantRate
    rate_b: VariantRate
    overall: Overall
    cases: list[CaseDifference]  # the hurt cases first (see `order_cases`)
    untestable: list[str]  # cases without a counted attempt under a variant

    def to_json(self) -> dict[str, Any]:
        """Plain JSON values (intervals as {low, high}), in the order of the fields."""
        return asdict(self)


def variant_rate(counts: Sequence[CaseCounts], variant: Literal["a", "b"]) -> VariantRate:
    """A variant's pass rate over its counted attempts on `counts`, with the Wilson interval."""
    if variant == "a":
        passed, total = sum(c.passed_a for c in counts), sum(c.total_a for c in counts)
    else:
        passed, total = sum(c.passed_b for c in counts), sum(c.total_b for c in counts)
    return VariantRate(passed, total, wilson(passed, total))


def order_cases(cases: Sequence[CaseDifference]) -> list[CaseDifference]:
    """Significantly hurt cases first (smallest corrected p first), then the other cases B did
    worse on (largest drop first), then the rest (smallest gain first), untestable last."""

    def key(case: CaseDifference) -> tuple[int, float, str]:
        if case.difference is None:
            return (3, 0.0, case.counts.case_id)
        if case.hurt:
            return (0, case.p_hurt_holm or 0.0, case.counts.case_id)
        return (1 if case.difference < 0 else 2, case.difference, case.counts.case_id)

    return sorted(cases, key=key)


def compare_variants(
    counts: Sequence[CaseCounts],
    alternative: Alternative = "greater",
    *,
    alpha: float = ALPHA,
    seed: int = SEED,
) -> VariantComparison:
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie strictly between 0 and 1 (got {alpha})")
    ids = [c.case_id for c in counts]
    if len(set(ids)) != len(ids):
        raise ValueError("each case appears once")
    testable = [c for c in counts if c.testable]
    asked = [one_sided_p(c.passed_b, c.total_b, c.passed_a, c.total_a, alternative) for c in counts]
    hurt = [one_sided_p(c.passed_b, c.total_b, c.passed_a, c.total_a, "less") for c in counts]
    asked_holm, hurt_holm = holm_optional(asked), holm_optional(hurt)
    cases = [
        CaseDifference(
            counts=c,
            difference=c.difference,
            interval=newcombe(c.passed_b, c.total_b, c.passed_a, c.total_a),
            p=p,
            p_holm=p_holm,
            significant=p_holm is not None and p_holm <= alpha,
            p_hurt=p_hurt,
            p_hurt_holm=p_hurt_holm,
            hurt=p_hurt_holm is not None and p_hurt_holm <= alpha,
        )
        for c, p, p_holm, p_hurt, p_hurt_holm in zip(
            counts, asked, asked_holm, hurt, hurt_holm, strict=True
        )
    ]
    return VariantComparison(
        alternative=alternative,
        alpha=alpha,
        seed=seed,
        # Both rates over the same cases, those with counted attempts under both variants.
        rate_a=variant_rate(testable, "a"),
        rate_b=variant_rate(testable, "b"),
        overall=overall_difference(
            [c.passed_b / c.total_b - c.passed_a / c.total_a for c in testable],
            alternative,
            alpha=alpha,
            seed=seed,
        ),
        cases=order_cases(cases),
        untestable=[c.case_id for c in counts if not c.testable],
    )


def overall_difference(
    differences: Sequence[float],
    alternative: Alternative,
    *,
    alpha: float = ALPHA,
    seed: int = SEED,
) -> Overall:
    """The mean per-case difference, its case-bootstrap interval and the paired test."""
    p = sign_flip_p(differences, alternative, seed=seed)
    return Overall(
        cases=len(differences),
        mean_difference=sum(differences) / len(differences) if differences else None,
        bootstrap=bootstrap_mean(differences, seed=seed),
        p=p,
        significant=p is not None and p <= alpha,
    )
