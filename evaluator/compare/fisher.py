"""The one-sided Fisher exact test on two pass counts, computed exactly from the hypergeometric law.

With K attempts per case, a pass count that drops between two runs is a regression only when the
drop is unlikely under "both runs pass with the same probability". For a 2x2 table of small
counts the exact test is a sum over at most K+1 hypergeometric terms, so we compute it with
`math.comb` in exact rationals instead of depending on scipy (a large compiled dependency for ten
lines); tests/test_compare_fisher.py checks it against published values of
`scipy.stats.fisher_exact(..., alternative="greater")`.
"""

from __future__ import annotations

from fractions import Fraction
from math import comb


def _check(passed: int, total: int) -> None:
    if total < 0 or not 0 <= passed <= total:
        raise ValueError(f"a pass count must lie in 0..total (got {passed} of {total})")


def p_drop(base_passed: int, base_total: int, cand_passed: int, cand_total: int) -> float:
    """P-value of the one-sided test that the candidate passes less often than the base.

    The table is [[base_passed, base_failed], [cand_passed, cand_failed]]; with the margins fixed,
    `base_passed` follows a hypergeometric law, and the p-value is the probability of a base pass
    count at least as large as the one observed (scipy's `alternative="greater"`)."""
    _check(base_passed, base_total)
    _check(cand_passed, cand_total)
    passes = base_passed + cand_passed
    total = base_total + cand_total
    if total == 0:
        return 1.0
    ways = comb(total, passes)
    upper = min(base_total, passes)
    tail = sum(
        comb(base_total, k) * comb(cand_total, passes - k) for k in range(base_passed, upper + 1)
    )
    return float(Fraction(tail, ways))


def p_rise(base_passed: int, base_total: int, cand_passed: int, cand_total: int) -> float:
    """P-value of the one-sided test that the candidate passes more often than the base."""
    return p_drop(cand_passed, cand_total, base_passed, base_total)
