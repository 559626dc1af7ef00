"""`comparison.md`: the comparison for a reader, regressions first, each with what flipped."""

from __future__ import annotations

from evaluator.compare.model import (
    UNDECIDED,
    AssertionFlip,
    CaseComparison,
    CaseSide,
    Comparison,
    RunSummary,
)
from evaluator.vocabulary import ComparisonClass

# The order a reviewer wants: what blocks the merge, then what changed, then what did not.
SECTION_ORDER: tuple[ComparisonClass, ...] = (
    "regression",
    "improvement",
    "flaky",
    "environment-divergence",
    "added",
    "removed",
)


def _rate(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.0%}"


def side_text(side: CaseSide | None) -> str:
    if side is None:
        return "—"
    if side.counted == 0:
        return side.blocked_text()
    blocked = f", {side.blocked} blocked" if side.blocked else ""
    # A case blocked by the agent (timeout, escape, crash) has a verdict: not passed.
    status = "blocked by the agent" if side.status == "blocked" else side.status
    return f"{status} {side.passed}/{side.counted}{blocked}"


def _run_line(label: str, run: RunSummary) -> str:
    return (
        f"- **{label}** `{run.name}` ({run.path}): pass rate {_rate(run.pass_rate)},"
        f" coverage {_rate(run.coverage)}; {run.passed} pass, {run.failed} fail,"
        f" {run.blocked} blocked of {run.cases}"
    )


def _verdict(status: str | None, passed: int, judged: int) -> str:
    if status is None:
        return "absent"
    # With several attempts, how many passed the entry says more than the aggregate.
    return f"{status} {passed}/{judged}" if judged > 1 else status


def flip_line(flip: AssertionFlip) -> str:
    refs = flip.candidate_evidence or flip.base_evidence
    cited = f"; evidence: {', '.join(refs)}" if refs else ""
    was = _verdict(flip.base_status, flip.base_passed, flip.base_judged)
    now = _verdict(flip.candidate_status, flip.candidate_passed, flip.candidate_judged)
    # An entry's description often ends a sentence: "mentions `#7`.; evidence" reads as a typo.
    summary = flip.summary.rstrip(".") if cited else flip.summary
    return f"`{flip.entry_id}` ({flip.polarity}) {was} → {now}: {summary}{cited}"


def _case_block(case: CaseComparison) -> list[str]:
    lines = [
        f"### {case.case_id}: {case.classification}",
        "",
        f"{case.reason}. Base {side_text(case.base)}, candidate {side_text(case.candidate)}.",
    ]
    if case.renamed_from:
        lines[-1] += f" Renamed from `{case.renamed_from}`, otherwise the same definition."
    if case.difference is not None and case.difference_interval is not None:
        low, high = case.difference_interval
        lines[-1] += (
            f" Difference {case.difference * 100:+.0f} pp, 95% CI"
            f" [{low * 100:+.0f}, {high * 100:+.0f}] pp (Newcombe)."
        )
    corrected = {"regression": case.p_drop_holm, "improvement": case.p_rise_holm}
    holm = corrected.get(case.classification)
    if holm is not None:
        lines[-1] += f" Holm-corrected across the cases tested: p={holm:.4f}."
    if case.assertion_flips:
        lines += ["", "Assertion entries that flipped:", ""]
        lines += [f"- {flip_line(f)}" for f in case.assertion_flips]
    return [*lines, ""]


def headline(comparison: Comparison) -> str:
    n = len(comparison.regressions)
    if n:
        return f"{n} regression(s): {', '.join(comparison.regressions)}"
    if comparison.below_coverage:
        return f"no comparison: {coverage_text(comparison)}{_undecided_text(comparison)}"
    return "no regression"


def _undecided_text(comparison: Comparison) -> str:
    """Which cases were not compared, and the two ways on: a user whose three-case target had
    one case blocked by its environment on both sides read only `2 of 3 ... (below the
    minimum)`, and the `same-blocked` case was not among the lines printed above it."""
    undecided = [c for c in comparison.cases if c.classification in UNDECIDED]
    if not undecided:
        return ""
    by_reason: dict[str, list[str]] = {}
    for case in undecided:
        by_reason.setdefault(_blocked_reason(case), []).append(case.case_id)
    groups = []
    for reason, ids in by_reason.items():
        shown = ", ".join(ids[:5]) + (", ..." if len(ids) > 5 else "")
        groups.append(f"{shown} blocked by {reason}" if reason else shown)
        if reason == "unclear-rule":
            # A suite of prose expectations run without a judge model is blocked so on every
            # run: the cure is one option of both runs, not in the case (sixth-round new user).
            groups[-1] += (
                " (prose no rule decides: give both runs a judge model, --judge-model M;"
                " docs/model-judge.md)"
            )
    return (
        f"; not decided on both sides: {' and '.join(groups)} (each run's report.md says what"
        " blocked them): fix that, or compare with a lower --min-coverage"
    )


def _blocked_reason(case: CaseComparison) -> str:
    """Why a case was not decided: its blocked sides' reason when they give one, else ""."""
    reasons = {
        side.blocked_reason
        for side in (case.base, case.candidate)
        if side is not None and side.status == "blocked" and side.blocked_reason
    }
    return " and ".join(sorted(reasons))


def coverage_text(comparison: Comparison) -> str:
    """What was compared: the cases of both runs with a verdict on both sides."""
    decided, both = comparison.compared
    share = f"{comparison.coverage:.2f}" if comparison.coverage is not None else "none"
    minimum = (
        f", minimum {comparison.min_coverage:.2f}" if comparison.min_coverage is not None else ""
    )
    below = " (below the minimum)" if comparison.below_coverage else ""
    return (
        f"{decided} of {both} case(s) in both runs decided on both sides: coverage"
        f" {share}{minimum}{below}"
    )


def render_markdown(comparison: Comparison) -> str:
    lines = [
        f"# Comparison: {comparison.base.name} → {comparison.candidate.name}",
        "",
        f"**{headline(comparison)}**",
        "",
        _run_line("base", comparison.base),
        _run_line("candidate", comparison.candidate),
        "",
        f"Compared: {coverage_text(comparison)}.",
        "",
        comparison.method,
        "",
    ]
    if comparison.differences:
        lines += ["Compared despite (--allow-different-cases):", ""]
        lines += [f"- {d}" for d in comparison.differences]
        lines.append("")
    if comparison.setting_differences:
        lines += ["Run with different settings (a change may be theirs, not the skill's):", ""]
        lines += [f"- {d}" for d in comparison.setting_differences]
        lines.append("")
    lines += ["| class | cases |", "|---|---|"]
    lines += [f"| {name} | {count} |" for name, count in comparison.counts.items() if count]
    lines.append("")
    for name in SECTION_ORDER:
        for case in comparison.cases:
            if case.classification == name:
                lines += _case_block(case)
    lines += ["## Every case", "", "| case | class | base | candidate |", "|---|---|---|---|"]
    lines += [
        f"| {c.case_id} | {c.classification} | {side_text(c.base)} | {side_text(c.candidate)} |"
        for c in comparison.cases
    ]
    return "\n".join(lines) + "\n"
