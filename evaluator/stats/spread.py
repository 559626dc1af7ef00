"""Rubric scores: a mean with its spread, and head-to-head wins, for `evaluate` (docs/subjective.md).

Scores are ordinal ratings from a judge, not proportions: they get a mean, a sample standard
deviation and a range, never a significance test here (a few cases rated on a 1-5 scale do not
carry one honestly; the head-to-head reports counts of wins, losses and ties per case).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Spread:
    n: int  # values counted (nulls excluded)
    nulls: int  # values that were null
    mean: float | None
    sd: float | None  # sample standard deviation; None below two values
    low: float | None
    high: float | None


def spread(values: Sequence[float | None]) -> Spread:
    present = [v for v in values if v is not None]
    nulls = len(values) - len(present)
    if not present:
        return Spread(0, nulls, None, None, None, None)
    sd = statistics.stdev(present) if len(present) > 1 else None
    return Spread(len(present), nulls, statistics.fmean(present), sd, min(present), max(present))


@dataclass(frozen=True)
class WinCount:
    wins: int  # cases where the compared variant's mean is higher
    losses: int
    ties: int
    untested: int  # cases without a mean on one side or both
    mean_difference: float | None  # compared minus reference, over the cases both scored


def head_to_head(reference: Sequence[float | None], compared: Sequence[float | None]) -> WinCount:
    """Per case (the two sequences are aligned by case), who scored higher on average."""
    wins = losses = ties = untested = 0
    differences = []
    for a, b in zip(reference, compared, strict=True):
        if a is None or b is None:
            untested += 1
            continue
        differences.append(b - a)
        if b > a:
            wins += 1
        elif b < a:
            losses += 1
        else:
            ties += 1
    mean = statistics.fmean(differences) if differences else None
    return WinCount(wins, losses, ties, untested, mean)
