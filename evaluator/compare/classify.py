"""The class of one case, from its two sides: the rules docs/cli.md ("compare") states.

- `added` / `removed`: the case has a result in one run only.
- `same-blocked`: neither side has a try with a verdict; `environment-divergence`: exactly one
  side has none (it was blocked by the eval or the machine there, not by the agent).
- One counted try on each side (K = 1): pass → fail is a `regression`, fail → pass an
  `improvement`, otherwise `same-pass` / `same-fail`.
- More tries on either side: the one-sided Boschloo exact test on the pass counts decides
  (`stats/exact.py`, docs/statistics.md). A drop
  with p ≤ alpha is a `regression`, a rise with p ≤ alpha an `improvement`; every try passed on
  both sides is `same-pass`, none passed on either side `same-fail`; anything else (the tries
  disagree, within a side or between the sides, and no change is significant) is `flaky`.
"""

from __future__ import annotations

from dataclasses import dataclass

from evaluator.compare.model import CaseSide, Decision
from evaluator.defaults import DEFAULT_ALPHA
from evaluator.stats.exact import one_sided_p
from evaluator.vocabulary import ComparisonClass


@dataclass(frozen=True)
class Classified:
    classification: ComparisonClass
    reason: str
    decision: Decision
    p_drop: float | None = None
    p_rise: float | None = None


def _count(side: CaseSide) -> str:
    return f"{side.passed}/{side.counted}"


def _blocked(side: CaseSide) -> str:
    return side.blocked_text()


def classify(
    base: CaseSide | None, candidate: CaseSide | None, alpha: float = DEFAULT_ALPHA
) -> Classified:
    if base is None and candidate is None:
        raise ValueError("a compared case exists on at least one side")
    if base is None:
        return Classified("added", "the case has a result in the candidate run only", "none")
    if candidate is None:
        return Classified("removed", "the case has a result in the base run only", "none")
    if base.counted == 0 and candidate.counted == 0:
        return Classified(
            "same-blocked", f"{_blocked(base)} in base, {_blocked(candidate)} in candidate", "none"
        )
    if base.counted == 0:
        return Classified(
            "environment-divergence",
            f"{_blocked(base)} in base only; candidate passed {_count(candidate)}",
            "none",
        )
    if candidate.counted == 0:
        return Classified(
            "environment-divergence",
            f"{_blocked(candidate)} in candidate only; base passed {_count(base)}",
            "none",
        )
    if base.counted == 1 and candidate.counted == 1:
        return _single(base, candidate)
    return _exact(base, candidate, alpha)


def _single(base: CaseSide, candidate: CaseSide) -> Classified:
    was, now = base.passed == 1, candidate.passed == 1
    if was and not now:
        return Classified("regression", "pass → fail with one attempt per side", "single-attempt")
    if now and not was:
        return Classified("improvement", "fail → pass with one attempt per side", "single-attempt")
    if now:
        return Classified("same-pass", "passed on both sides", "single-attempt")
    return Classified("same-fail", "failed on both sides", "single-attempt")


def _exact(base: CaseSide, candidate: CaseSide, alpha: float) -> Classified:
    counts = (candidate.passed, candidate.counted, base.passed, base.counted)
    # Both sides have a counted try here, so both p-values exist.
    drop, rise = one_sided_p(*counts, "less"), one_sided_p(*counts, "greater")
    assert drop is not None and rise is not None
    change = f"{_count(base)} → {_count(candidate)} passed"
    if drop <= alpha:
        return Classified(
            "regression",
            f"{change}: significant drop (one-sided Boschloo exact p={drop:.4f} ≤ {alpha:g})",
            "boschloo-one-sided",
            drop,
            rise,
        )
    if rise <= alpha:
        return Classified(
            "improvement",
            f"{change}: significant rise (one-sided Boschloo exact p={rise:.4f} ≤ {alpha:g})",
            "boschloo-one-sided",
            drop,
            rise,
        )
    every_try_passed = base.passed == base.counted and candidate.passed == candidate.counted
    if every_try_passed:
        return Classified("same-pass", f"{change}", "boschloo-one-sided", drop, rise)
    if base.passed == 0 and candidate.passed == 0:
        return Classified("same-fail", f"{change}", "boschloo-one-sided", drop, rise)
    return Classified(
        "flaky",
        f"{change}: the attempts disagree but no change is significant"
        f" (one-sided Boschloo exact p={min(drop, rise):.4f} > {alpha:g})",
        "boschloo-one-sided",
        drop,
        rise,
    )
