"""What a difference costs: tokens and agent time per attempt under each variant, and the extra
cost per percentage point of pass rate gained.

A skill that gains 10 points by doubling every attempt's tokens is a different proposition from
one that gains 10 points for free. Costs are means per attempt (the variants may have counted
different numbers of attempts); the price of a point is the extra mean cost per attempt divided
by the gain in points, and there is no price without a gain (a skill that does not help has no
cost per point, only a cost).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class VariantCost:
    attempts: int  # attempts whose cost was recorded
    tokens: int | None  # total over those attempts; None: the agent recorded none
    seconds: float | None  # total agent wall time over those attempts

    def tokens_per_attempt(self) -> float | None:
        return self.tokens / self.attempts if self.tokens is not None and self.attempts else None

    def seconds_per_attempt(self) -> float | None:
        return self.seconds / self.attempts if self.seconds is not None and self.attempts else None


@dataclass(frozen=True)
class CostOfDifference:
    extra_tokens_per_attempt: float | None  # B - A
    extra_seconds_per_attempt: float | None
    tokens_per_point: float | None  # extra tokens per attempt per point of pass rate gained
    seconds_per_point: float | None


def _extra(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else b - a


def _per_point(extra: float | None, points: float | None) -> float | None:
    return None if extra is None or points is None or points <= 0 else extra / points


def cost_of_difference(
    a: VariantCost, b: VariantCost, difference: float | None
) -> CostOfDifference:
    """`difference`: B's pass rate minus A's, as a share (0.1 is 10 points)."""
    tokens = _extra(a.tokens_per_attempt(), b.tokens_per_attempt())
    seconds = _extra(a.seconds_per_attempt(), b.seconds_per_attempt())
    points = None if difference is None else difference * 100
    return CostOfDifference(
        tokens, seconds, _per_point(tokens, points), _per_point(seconds, points)
    )
