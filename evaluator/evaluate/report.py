"""`eval-report.md`: the sections the public contract names for an evaluation (`Evaluation
Summary`, `Scoring Table`, `Head-to-Head`, `Detailed Findings`, `Recommendations`), filled with
the statistics of `evaluation.json`: each variant's pass rate with its Wilson interval, per case
the difference with its Newcombe interval and the Holm-corrected exact p (the cases the compared
variant hurts first), the mean per-case difference with its bootstrap interval and the sign-flip
p, the cost of the difference, and per variant whether and how contamination was checked. With a
rubric: each variant's mean score per dimension with its spread, and (ab, comparison; the public
contract omits `Head-to-Head` for subjective) the cases each variant scores higher."""

from __future__ import annotations

from evaluator.artifacts.markdown_text import prose
from evaluator.evaluate.model import (
    Bounds,
    EvaluationResult,
    OverallDifference,
    RubricScores,
    VariantComparison,
    VariantSummary,
)
from evaluator.stats.paired import fewest_cases_to_call


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 100:.1f}%"


def _pp(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 100:+.1f} pp"


def _interval(bounds: Bounds | None, points: bool = False) -> str:
    if bounds is None:
        return "n/a"
    show = _pp if points else _pct
    return f"[{show(bounds.low)}, {show(bounds.high)}]"


def _overall_interval(overall: OverallDifference) -> str:
    """The case-bootstrap interval of the mean difference, or why there is none: it comes from
    drawing the cases again at random, which with fewer than two cases can only draw the same
    one (`stats.paired.bootstrap_mean`)."""
    if overall.interval is None:
        return (
            f"no 95% interval ({overall.cases} case(s) compared: the interval comes from"
            " resampling the cases, and one case cannot say how much another would differ;"
            " add cases for one)"
        )
    shown = _interval(overall.interval, points=True)
    return f"95% case-bootstrap interval {shown} ({overall.interval_method})"


def _p(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.4f}"


def _num(value: float | None, digits: int = 0) -> str:
    if value is None:
        return "n/a"
    shown = f"{value:,.{digits}f}"
    # A figure that rounds to zero is zero: "-0.0 extra seconds" reads as a saving.
    return shown.lstrip("-") if float(shown.replace(",", "")) == 0 else shown


def _more_or_fewer(value: float | None, digits: int, unit: str) -> str:
    """An extra cost as a reader says it: "18 fewer tokens", never "-18 extra tokens"."""
    shown = _num(value, digits)
    if shown.startswith("-"):
        return f"{shown[1:]} fewer {unit}"
    return f"{shown} extra {unit}"


# The advice names this many cases, then says how many more the Head-to-Head table holds.
NAMED_CASES = 5


def _cases(ids: list[str]) -> str:
    named = ", ".join(ids[:NAMED_CASES])
    more = len(ids) - NAMED_CASES
    return f"{named} and {more} more (Head-to-Head)" if more > 0 else named


def _contamination(variant: VariantSummary) -> str:
    check = variant.contamination
    if check is None:
        return "not applicable (the variant has a skill)"
    layers = ", ".join(check.layers) or "none"
    found = len(check.contaminated_attempts)
    return (
        f"checked on {check.attempts_checked} attempt(s) by layers: {layers};"
        f" {found} contaminated"
        + (f", cases blocked: {', '.join(check.blocked_cases)}" if check.blocked_cases else "")
    )


def render_eval_report(result: EvaluationResult) -> str:
    lines = [f"# Evaluation {result.eval_id}", ""]
    if result.title:
        lines += [result.title, ""]
    lines += ["## Evaluation Summary", ""]
    lines.append(
        f"- mode `{result.mode}`, target `{result.target_id}`, {len(result.case_ids)} case(s),"
        f" agent `{result.agent}`, {result.attempts} attempt(s) per case and variant"
    )
    if result.interleaved and len(result.variants) > 1:
        lines.append(
            "- attempts of all variants ran interleaved through one executor (A1, B1, A2, ...)"
        )
    for comparison in result.comparisons:
        lines.append(
            f"- **{comparison.compared} vs {comparison.reference}**: {comparison.headline.text}"
        )
        if comparison.hurt_cases:
            lines.append(
                f"  - hurts {len(comparison.hurt_cases)} case(s) significantly:"
                f" {', '.join(comparison.hurt_cases)}"
            )
    if result.noise_floor is not None:
        lines.append(f"- A/A noise floor: ±{result.noise_floor * 100:.1f} pp")
    for variant in result.variants:
        lines.append(f"- contamination, `{variant.label}`: {_contamination(variant)}")
    lines += ["", "## Scoring Table", ""]
    lines.append(
        "| variant | what | pass rate | 95% CI (Wilson) | passed/counted | cases pass/fail/blocked"
        " | tokens/attempt | s/attempt |"
    )
    lines.append("|---|---|---|---|---|---|---|---|")
    for v in result.variants:
        s = v.statuses
        lines.append(
            f"| {v.label} | {v.description} | {_pct(v.pass_rate)} | {_interval(v.interval)}"
            f" | {v.passed}/{v.counted} | {s.get('pass', 0)}/{s.get('fail', 0)}/{s.get('blocked', 0)}"
            f" | {_num(v.cost.tokens_per_attempt)} | {_num(v.cost.seconds_per_attempt, 1)} |"
        )
    rubrics = [(v.label, v.rubric) for v in result.variants if v.rubric is not None]
    if rubrics:
        lines += ["", *_rubric_table(rubrics)]
    if result.mode != "subjective":
        lines += ["", "## Head-to-Head", ""]
        for comparison in result.comparisons:
            lines += _head_to_head(comparison)
    else:
        lines.append("")
    lines += ["## Detailed Findings", ""]
    lines += _findings(result)
    lines += ["", "## Recommendations", ""]
    lines += [f"{i}. {text}" for i, text in enumerate(_recommendations(result), 1)]
    return "\n".join(lines) + "\n"


def _score(value: float | None) -> str:
    return "null" if value is None else f"{value:.2f}"


def _rubric_table(rubrics: list[tuple[str, RubricScores]]) -> list[str]:
    lines = [
        f"Rubric `{rubrics[0][1].rubric_id}`, scored by the model judge: per dimension the mean of"
        " the case means (each case the mean of its attempts' verified scores), the spread across"
        " cases and the attempts scored. A score without valid citations, or off the scale, is"
        " null and never counted.",
        "",
        "| variant | dimension | scale | mean | sd across cases | range of case means"
        " | cases scored | attempts scored/null |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for label, rubric in rubrics:
        for d in rubric.dimensions:
            spread = "n/a" if d.low is None else f"{_score(d.low)}..{_score(d.high)}"
            lines.append(
                f"| {label} | {d.name} | {', '.join(d.scale)} | {_score(d.mean)}"
                f" | {_num(d.sd, 2)} | {spread} | {d.cases_scored}/{len(d.cases)}"
                f" | {d.attempts_scored}/{d.attempts_null} |"
            )
    return lines


def _dimension_lines(c: VariantComparison) -> list[str]:
    if not c.dimensions:
        return []
    lines = [
        f"Rubric, per dimension: the cases where {c.compared}'s mean score is higher (wins),"
        " lower (losses) or equal; counts, not a significance test.",
        "",
        "| dimension | wins | losses | ties | cases without a score | mean difference |",
        "|---|---|---|---|---|---|",
    ]
    for d in c.dimensions:
        difference = "n/a" if d.mean_difference is None else f"{d.mean_difference:+.2f}"
        lines.append(
            f"| {d.name} | {d.wins} | {d.losses} | {d.ties} | {d.untested} | {difference} |"
        )
    return [*lines, ""]


def _head_to_head(c: VariantComparison) -> list[str]:
    o = c.overall
    lines = [
        f"### {c.compared} vs {c.reference}",
        "",
        f"Mean per-case difference {_pp(o.mean_difference)}, {_overall_interval(o)}, paired sign-flip"
        f" p = {_p(o.p)} (one-sided, {c.compared} better), {o.cases} case(s);"
        f" {'significant' if o.significant else 'not significant'} at alpha {c.alpha:g}.",
        "",
        f"Per case (the cases {c.compared} hurts first): exact test (Boschloo), one-sided,"
        " Holm-corrected across cases; the hurt test asks the other way, its own Holm family.",
        "",
        f"| case | {c.reference} | {c.compared} | difference | 95% CI (Newcombe) | p | p (Holm)"
        " | p hurt (Holm) | verdict |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for case in c.cases:
        verdict = (
            "**hurt**"
            if case.hurt
            else "better"
            if case.significant
            else "untestable"
            if case.difference is None
            else "no significant difference"
        )
        lines.append(
            f"| {case.case_id} | {case.passed_a}/{case.total_a} | {case.passed_b}/{case.total_b}"
            f" | {_pp(case.difference)} | {_interval(case.interval, points=True)} | {_p(case.p)}"
            f" | {_p(case.p_holm)} | {_p(case.p_hurt_holm)} | {verdict} |"
        )
    cost = c.cost
    lines += [
        "",
        f"Cost of the difference: {_more_or_fewer(cost.extra_tokens_per_attempt, 0, 'tokens')}"
        f" and {_more_or_fewer(cost.extra_seconds_per_attempt, 1, 'agent seconds')} per attempt"
        + (
            f"; {_num(cost.tokens_per_point)} tokens and {_num(cost.seconds_per_point, 2)} s per"
            " point of pass rate gained."
            if c.headline.call == "better"
            and (cost.tokens_per_point is not None or cost.seconds_per_point is not None)
            # A price per point of a gain inside the noise would read as a gain.
            else " (no significant overall gain, so no price per point)."
        ),
        "",
    ]
    return lines + _dimension_lines(c)


def _findings(result: EvaluationResult) -> list[str]:
    lines: list[str] = []
    for c in result.comparisons:
        for case in c.cases:
            if case.hurt:
                lines.append(
                    f"- `{case.case_id}`: {c.compared} passes {case.passed_b}/{case.total_b}"
                    f" against {case.passed_a}/{case.total_a} under {c.reference}"
                    f" (p hurt, Holm = {_p(case.p_hurt_holm)})"
                )
        if c.untestable:
            lines.append(
                f"- no counted attempt under a variant ({c.compared} vs {c.reference}):"
                f" {', '.join(c.untestable)}"
            )
    for variant in result.variants:
        if variant.rubric is not None:
            for d in variant.rubric.dimensions:
                per_case = ", ".join(
                    f"{c.case_id} {_score(c.mean)}"
                    + (f" (sd {_score(c.sd)})" if c.sd is not None else "")
                    + (f" (vote sd {_score(c.vote_sd)})" if c.vote_sd is not None else "")
                    for c in d.cases
                )
                lines.append(f"- `{variant.label}` {d.name} per case: {per_case or 'none'}")
            # A judge's reply and the agent's commands may be quoted in a note: literal (`prose`).
            lines += [f"- `{variant.label}` rubric: {prose(note)}" for note in variant.rubric.notes]
        check = variant.contamination
        if check is not None:
            for item in check.contaminated_attempts:
                counted = "counted as not passed" in item
                lines.append(
                    f"- `{variant.label}` contaminated{'' if counted else ' (not counted)'}:"
                    f" {prose(item)}"
                )
        lines.append(f"- `{variant.label}` run: `{variant.run_dir}` ({variant.run_state})")
    lines += [f"- {prose(note)}" for note in result.notes]
    return lines or ["- nothing to report"]


def _no_gain_advice(c: VariantComparison) -> str:
    needed = fewest_cases_to_call(c.alpha, c.alternative)
    gains = [case.case_id for case in c.cases if case.significant]
    # Only when no case moved up at all: a gain the per-case tests cannot call with few
    # attempts (1/1 against 0/1) is a reason to add attempts, not a finding of no good.
    no_case_gained = all(case.difference is None or case.difference <= 0 for case in c.cases)
    if c.overall.cases < needed and not gains and no_case_gained:
        return (
            f"{c.compared} is significantly better than {c.reference} on no case (mean"
            f" per-case difference {_pp(c.overall.mean_difference)}): on this evidence it does"
            f" no good. With {c.overall.cases} case(s) no overall gain could be shown either (at"
            f" least {needed} are needed): add cases before judging the whole skill."
        )
    if c.overall.cases < needed:
        shown = f"; per case it is significantly better on {_cases(gains)}" if gains else ""
        return (
            f"Add cases: with {c.overall.cases} case(s) no overall gain of {c.compared} over"
            f" {c.reference} can be shown at alpha {c.alpha:g}, however large (at least"
            f" {needed} cases are needed; more attempts only sharpen the per-case tests){shown}."
        )
    return (
        f"{c.compared} shows no significant gain over {c.reference}: more cases or"
        " attempts narrow the interval; a skill that does no good is not worth its tokens."
    )


def _recommendations(result: EvaluationResult) -> list[str]:
    out: list[str] = []
    for c in result.comparisons:
        if c.headline.call == "no-data":
            out.append(
                f"Nothing was compared: no case has a counted attempt under both {c.reference}"
                f" and {c.compared}. Read why in each variant's `report.md` (its Blocked"
                " cases): an expectation no rule decides is `blocked: unclear-rule` without a"
                " judge model (`--judge-model M`; `agentic-eval explain` shows each entry's"
                " route)."
            )
        if c.hurt_cases:
            out.append(
                f"Look at what {c.compared} changes for {_cases(c.hurt_cases)}: it is"
                " significantly worse there."
            )
        if c.headline.call in ("no-difference", "inside-noise") and result.mode != "aa":
            out.append(_no_gain_advice(c))
    nulls = [v.label for v in result.variants if v.rubric is not None and v.rubric.notes]
    if nulls:
        out.append(
            f"Read the judge records behind the null rubric scores of {', '.join(nulls)}"
            " (`case-artifacts/<case>/attempts/attempt-NN/rubric/`): a score the judge could not"
            " support with the session's records is not counted."
        )
    if any(v.contamination and v.contamination.contaminated_attempts for v in result.variants):
        out.append("Remove the copies of the skill the no-skill baseline could reach.")
    return out[:3] or ["Nothing to change on this evidence."]
