"""The per-case exact test: are the attempts of variant B more (or less) often passed than A's?

On one case the attempts of two variants are independent binomials (attempt i of B has nothing
to do with attempt i of A), so the table is 2x2 with fixed group sizes. Boschloo's test is exact
(its size never exceeds alpha) and uniformly more powerful than Fisher's, which conditions on
both margins and is conservative at small K: at 5 attempts each, 5/5 against 2/5 gives
p = 0.035 under Boschloo and p = 0.083 under Fisher.
"""

from __future__ import annotations

from math import isnan
from typing import Literal

Alternative = Literal["greater", "less"]


def one_sided_p(
    passed_b: int, total_b: int, passed_a: int, total_a: int, alternative: Alternative
) -> float | None:
    """P-value of "B passes more often than A" (`greater`) or less often (`less`).

    None when a side has no attempt (nothing to test); 1.0 when every attempt on both sides
    passed or none did (scipy gives nan there: a table with an empty margin is no evidence)."""
    for passed, total in ((passed_b, total_b), (passed_a, total_a)):
        if total < 0 or not 0 <= passed <= total:
            raise ValueError(f"a pass count must lie in 0..total (got {passed} of {total})")
    if total_a == 0 or total_b == 0:
        return None
    table = [[passed_b, total_b - passed_b], [passed_a, total_a - passed_a]]
    from scipy.stats import boschloo_exact  # (stats/__init__.py: scipy loads when first used)

    # scipy's `greater` is "the first row's first-column share is the larger": B passes more.
    found = float(boschloo_exact(table, alternative=alternative).pvalue)
    return 1.0 if isnan(found) else min(1.0, found)
