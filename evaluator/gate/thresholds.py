"""A pass-rate threshold set just above a rate K attempts can reach.

`--min-pass-rate 0.67` with `--attempts 3` reads as "2 of 3" but compares exactly: 2 of 3 is
0.667 and fails it. Nothing is changed (the threshold is the user's); they are told."""

from __future__ import annotations

import math

from evaluator.gate.metrics.base import TOLERANCE

# How far above a reachable rate a threshold must be to be a rounding of it (0.67 vs 0.667).
ROUNDING = 0.01


def near_miss(threshold: float, attempts: int | None) -> str | None:
    """Why `threshold` refuses a per-case rate it was probably written for; None if it does not."""
    if not attempts or attempts < 2:
        return None
    for passed in range(attempts, 0, -1):
        rate = passed / attempts
        if rate + TOLERANCE < threshold <= rate + ROUNDING:
            lower = math.floor(rate * 100) / 100
            return (
                f"--min-pass-rate {threshold:g} with --attempts {attempts} refuses a case that"
                f" passed {passed} of {attempts} ({rate:.3f}); to accept it write {lower:g}"
            )
    return None
