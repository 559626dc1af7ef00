"""Intervals for a pass rate (Wilson) and for the difference of two pass rates (Newcombe).

Wilson's score interval stays inside [0, 1] and keeps close to its nominal coverage at the small
counts a case has (K = 3..10), where the Wald interval collapses to a point at 0/K and K/K.
Newcombe's hybrid score interval (his method 10, 1998) combines the two Wilson intervals; it is
the one his comparison of eleven methods recommends for independent proportions.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import sqrt

CONFIDENCE = 0.95


@dataclass(frozen=True)
class Interval:
    low: float
    high: float

    def contains(self, value: float) -> bool:
        return self.low <= value <= self.high


def _check(passed: int, total: int) -> None:
    if total < 0 or not 0 <= passed <= total:
        raise ValueError(f"a pass count must lie in 0..total (got {passed} of {total})")


def wilson(passed: int, total: int, confidence: float = CONFIDENCE) -> Interval | None:
    """The Wilson score interval of `passed / total`; None without a single attempt."""
    _check(passed, total)
    if total == 0:
        return None
    from scipy.stats import binomtest  # (stats/__init__.py: scipy loads when first used)

    found = binomtest(passed, total).proportion_ci(confidence_level=confidence, method="wilson")
    # Clamp the float noise at the ends: 0/n must give exactly 0, n/n exactly 1.
    low = 0.0 if passed == 0 else float(found.low)
    high = 1.0 if passed == total else float(found.high)
    return Interval(low, high)


def newcombe(
    passed_b: int, total_b: int, passed_a: int, total_a: int, confidence: float = CONFIDENCE
) -> Interval | None:
    """Newcombe's hybrid score interval for rate_b - rate_a; None when a side has no attempt."""
    b, a = wilson(passed_b, total_b, confidence), wilson(passed_a, total_a, confidence)
    if a is None or b is None:
        return None
    rate_b, rate_a = passed_b / total_b, passed_a / total_a
    diff = rate_b - rate_a
    low = diff - sqrt((rate_b - b.low) ** 2 + (a.high - rate_a) ** 2)
    high = diff + sqrt((b.high - rate_b) ** 2 + (rate_a - a.low) ** 2)
    return Interval(max(-1.0, low), min(1.0, high))
