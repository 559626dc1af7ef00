"""The A/A noise floor, and the headline that refuses to call a difference inside it.

Running the same variant twice shows how far two runs differ with nothing changed: the agent's
sampling, the machine, the judge. The floor is the largest mean per-case difference that A/A
comparison leaves plausible: the larger end, in absolute value, of its bootstrap interval (the
observed A/A difference itself when there are too few cases for an interval). A difference
between two real variants is called only when the paired test is significant, its interval
excludes zero, and it exceeds the floor.
"""

from __future__ import annotations

from dataclasses import dataclass

from evaluator.stats.paired import fewest_cases_to_call
from evaluator.stats.variants import CaseDifference, Overall, VariantComparison
from evaluator.vocabulary import Call


def noise_floor(aa: VariantComparison) -> float | None:
    """The noise floor an A/A comparison measured; None when it had no testable case."""
    overall = aa.overall
    if overall.mean_difference is None:
        return None
    if overall.bootstrap is None:
        return abs(overall.mean_difference)
    interval = overall.bootstrap.interval
    return max(abs(interval.low), abs(interval.high))


@dataclass(frozen=True)
class Headline:
    call: Call
    text: str


def _pp(value: float) -> str:
    return f"{value * 100:+.1f} pp"


def _figures(overall: Overall) -> str:
    assert overall.mean_difference is not None
    parts = [f"mean per-case difference {_pp(overall.mean_difference)}"]
    if overall.bootstrap is not None:
        interval = overall.bootstrap.interval
        parts.append(f"95% CI [{_pp(interval.low)}, {_pp(interval.high)}]")
    if overall.p is not None:
        parts.append(f"paired p={overall.p:.4f}")
    parts.append(f"{overall.cases} case" + ("" if overall.cases == 1 else "s"))
    return ", ".join(parts)


def _no_call_text(comparison: VariantComparison, figures: str) -> str:
    overall = comparison.overall
    direction = "better" if comparison.alternative == "greater" else "worse"
    needed = fewest_cases_to_call(comparison.alpha, comparison.alternative)
    if overall.cases < needed:
        why = (
            f"no overall call: {overall.cases} case(s) are too few for the paired sign-flip test"
            f" to reach alpha {comparison.alpha:g}: it needs at least {needed}, and more attempts"
            " do not change that"
        )
    else:
        why = "no significant difference"
    # The overall figures stand with the overall clause and each case called has its own: after
    # the list of cases, the overall sign-flip p read as theirs.
    why += f" ({figures}, alpha {comparison.alpha:g})"
    called = [case for case in comparison.cases if case.significant]
    if called:
        named = ", ".join(_case_figures(case) for case in called)
        why += f"; per case, significantly {direction} on {len(called)}: {named}"
    elif overall.cases < needed:
        # Without this, "too few cases" reads as the only reason: the per-case tests found
        # nothing either.
        why += f"; per case, significantly {direction} on none"
    return why


def _case_figures(case: CaseDifference) -> str:
    """`eval-3 (+100.0 pp, Holm p=0.0156)`: a case called significant, with what called it."""
    figures = [_pp(case.difference)] if case.difference is not None else []
    if case.p_holm is not None:
        figures.append(f"Holm p={case.p_holm:.4f}")
    return f"{case.counts.case_id} ({', '.join(figures)})" if figures else case.counts.case_id


def headline(comparison: VariantComparison, floor: float | None) -> Headline:
    """B against A in one sentence; `floor` from `noise_floor` (None: not measured, said so)."""
    overall = comparison.overall
    if overall.mean_difference is None:
        return Headline("no-data", "no case has counted attempts under both variants")
    figures = _figures(overall)
    direction: Call = "better" if comparison.alternative == "greater" else "worse"
    interval = overall.bootstrap.interval if overall.bootstrap else None
    if not overall.significant or interval is None or interval.contains(0.0):
        return Headline("no-difference", _no_call_text(comparison, figures))
    if floor is not None and abs(overall.mean_difference) <= floor:
        return Headline(
            "inside-noise",
            f"not called: the difference is inside the A/A noise floor of ±{floor * 100:.1f} pp"
            f" ({figures})",
        )
    caveat = "" if floor is not None else "; no A/A noise floor was measured"
    return Headline(direction, f"B is {direction} than A ({figures}){caveat}")
