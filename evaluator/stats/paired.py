"""Cases as the pairs: the mean per-case difference, its bootstrap interval and a paired test.

Both variants ran the same cases, and cases differ far more from each other than attempts do,
so overall the unit is the case: d_i = rate_B(i) - rate_A(i). The interval resamples cases
(the question is about cases like these, not about these attempts again); the test flips the
sign of each d_i, which is exact under "the variants are exchangeable on every case" and needs
no normality. Both are seeded, so the same data give the same figures on every machine.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from math import isnan
from typing import Literal

import numpy as np
from numpy.typing import NDArray

from evaluator.stats.proportion import CONFIDENCE, Interval

SEED = 20260126
BOOTSTRAP_RESAMPLES = 10_000
# Every sign pattern is enumerated (an exact test) up to 16 cases; beyond, this many at random.
PERMUTATIONS = 2**16

Alternative = Literal["greater", "less", "two-sided"]


@dataclass(frozen=True)
class BootstrapInterval:
    interval: Interval
    method: Literal["BCa", "percentile", "degenerate"]


def _mean(values: NDArray[np.float64], axis: int = -1) -> NDArray[np.float64]:
    found: NDArray[np.float64] = np.mean(values, axis=axis)
    return found


def bootstrap_mean(
    differences: Sequence[float],
    *,
    seed: int = SEED,
    resamples: int = BOOTSTRAP_RESAMPLES,
    confidence: float = CONFIDENCE,
) -> BootstrapInterval | None:
    """The case-bootstrap interval of the mean difference (BCa); None below two cases.

    Every case equal gives the point itself (no resample can differ). BCa corrects the
    percentile interval for bias and skew, which matter with few cases; where its jackknife
    cannot be computed the percentile interval is given, and the method says so."""
    data = np.asarray(differences, dtype=np.float64)
    if data.size < 2:
        return None
    if np.all(data == data[0]):
        value = float(data[0])
        return BootstrapInterval(Interval(value, value), "degenerate")
    from scipy.stats import bootstrap  # (stats/__init__.py: scipy loads when first used)

    methods: tuple[Literal["BCa", "percentile"], ...] = ("BCa", "percentile")
    for method in methods:
        found = bootstrap(
            (data,),
            _mean,
            n_resamples=resamples,
            confidence_level=confidence,
            method=method,
            vectorized=True,
            rng=np.random.default_rng(seed),
        ).confidence_interval
        low, high = float(found.low), float(found.high)
        if not (isnan(low) or isnan(high)):
            return BootstrapInterval(Interval(low, high), method)
    raise AssertionError("the percentile bootstrap of non-constant data has an interval")


def sign_flip_p(
    differences: Sequence[float], alternative: Alternative, *, seed: int = SEED
) -> float | None:
    """P-value of the paired sign-flip permutation test on the mean difference; None without
    cases. `greater`: B's cases pass more often than A's."""
    data = np.asarray(differences, dtype=np.float64)
    if data.size == 0:
        return None
    if np.all(data == 0):
        return 1.0
    if data.size == 1:
        # scipy wants two observations; one case has two sign patterns, d and -d.
        d = float(data[0])
        if alternative == "two-sided":
            return 1.0
        return 0.5 if (d > 0) == (alternative == "greater") else 1.0
    from scipy.stats import permutation_test  # (stats/__init__.py: scipy loads when first used)

    found = permutation_test(
        (data,),
        _mean,
        permutation_type="samples",
        vectorized=True,
        n_resamples=PERMUTATIONS,
        alternative=alternative,
        rng=np.random.default_rng(seed),
    )
    return min(1.0, float(found.pvalue))


def fewest_cases_to_call(alpha: float, alternative: str) -> int:
    """The fewest cases whose paired sign-flip test can reach `alpha`.

    Over n cases the most extreme sign pattern has p = 1/2^n (2/2^n two-sided), whatever K is:
    below this count an overall call is impossible, and saying only "no significant difference"
    would read as evidence that the variants are alike.
    """
    sides = 2 if alternative == "two-sided" else 1
    cases = 1
    while sides * 0.5**cases > alpha and cases < 64:
        cases += 1
    return cases
