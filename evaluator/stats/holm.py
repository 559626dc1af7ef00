"""Holm's step-down correction of p-values across cases.

With 20 cases tested at alpha 0.05, one case is expected to differ by chance alone. Holm's
method controls the family-wise error rate (the chance of calling even one case wrongly) like
Bonferroni's, makes no assumption about how the cases depend on each other, and is uniformly
more powerful than Bonferroni. scipy has no Holm (only false-discovery-rate control), and the
method is a sort and a running maximum.
"""

from __future__ import annotations

from collections.abc import Sequence


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm-adjusted p-values in the order given: reject where adjusted <= alpha."""
    m = len(pvalues)
    for p in pvalues:
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"a p-value lies in [0, 1] (got {p})")
    adjusted = [0.0] * m
    running = 0.0
    for rank, index in enumerate(sorted(range(m), key=lambda i: pvalues[i])):
        running = max(running, min(1.0, (m - rank) * pvalues[index]))
        adjusted[index] = running
    return adjusted


def holm_optional(pvalues: Sequence[float | None]) -> list[float | None]:
    """`holm` over the values present (a case with no test is no member of the family), None
    where there was none."""
    present = [p for p in pvalues if p is not None]
    adjusted = iter(holm(present))
    return [None if p is None else next(adjusted) for p in pvalues]
