"""`not`, `any_of`, `all_of`: checks over checks, in three-valued logic.

A blocked operand (evidence that cannot decide it) blocks the result unless another operand
already decides it: `any_of` with one passing operand passes, `all_of` with one failing fails.

Whose doing a blocked result is (`blocked_by`) follows what the agent's own gaps may hide, per
outcome: an agent that would fail must not turn its failure into a gap (docs/security.md). A
gap of the agent's may hide either outcome of its check. `all_of` may hide a failure when one
blocked operand may (one failure decides it), a pass only when every blocked operand may;
`any_of` the reverse (one pass decides it, a failure needs them all); `not` swaps the two. A
blocked result is the agent's when its gaps may hide some outcome; the entry (entry.py) asks
for the one outcome that matters, its failure.
"""

from __future__ import annotations

from evaluator.contract.models import AllOfCheck, AnyOfCheck, NotCheck
from evaluator.judge.base import JudgeContext
from evaluator.judge.checks.attempt_sessions import run_check
from evaluator.judge.checks.registry import register_check
from evaluator.judge.verdict import CheckVerdict
from evaluator.vocabulary import CheckStatus


def _refs(verdicts: list[CheckVerdict]) -> list[str]:
    return list(dict.fromkeys(ref for v in verdicts for ref in v.evidence))


def _first_reason(verdicts: list[CheckVerdict]) -> CheckVerdict:
    return next(v for v in verdicts if v.status == "blocked")


def combine_all(kind: str, verdicts: list[CheckVerdict]) -> CheckVerdict:
    """Holds when every operand holds; one failure decides, otherwise one gap blocks."""
    failing = [v for v in verdicts if v.status == "fail"]
    if failing:
        return _result(kind, "fail", "; ".join(v.detail for v in failing), failing, verdicts)
    if any(v.status == "blocked" for v in verdicts):
        gap = _first_reason(verdicts)
        hidden = _hidden(verdicts, one_decides="fail")
        return _result(kind, "blocked", gap.detail, [gap], verdicts, gap, hidden)
    return _result(kind, "pass", "; ".join(v.detail for v in verdicts), verdicts, verdicts)


def combine_any(kind: str, verdicts: list[CheckVerdict]) -> CheckVerdict:
    """Holds when one operand holds; only when none can, a gap blocks and otherwise it fails."""
    holding = [v for v in verdicts if v.status == "pass"]
    if holding:
        return _result(kind, "pass", holding[0].detail, holding, verdicts)
    if any(v.status == "blocked" for v in verdicts):
        gap = _first_reason(verdicts)
        hidden = _hidden(verdicts, one_decides="pass")
        return _result(kind, "blocked", gap.detail, [gap], verdicts, gap, hidden)
    return _result(kind, "fail", "; ".join(v.detail for v in verdicts), verdicts, verdicts)


def _hidden(verdicts: list[CheckVerdict], one_decides: CheckStatus) -> frozenset[CheckStatus]:
    """What the agent's gaps may hide of a combination blocked by these operands' gaps:
    `one_decides` when any gap may hide it, the other outcome only when every gap may."""
    gaps = [v.agent_may_hide() for v in verdicts if v.status == "blocked"]
    other: CheckStatus = "pass" if one_decides == "fail" else "fail"
    hidden: set[CheckStatus] = set()
    if any(one_decides in gap for gap in gaps):
        hidden.add(one_decides)
    if all(other in gap for gap in gaps):
        hidden.add(other)
    return frozenset(hidden)


def negate(kind: str, verdict: CheckVerdict) -> CheckVerdict:
    opposite: dict[CheckStatus, CheckStatus] = {
        "pass": "fail",
        "fail": "pass",
        "blocked": "blocked",
    }
    status = opposite[verdict.status]
    gap = verdict if verdict.status == "blocked" else None
    swapped: dict[CheckStatus, CheckStatus] = {"pass": "fail", "fail": "pass"}
    hidden = frozenset(swapped[o] for o in verdict.agent_may_hide())
    # Said plainly, so a forbidden entry's note never reads as a double negative.
    detail = {
        "pass": f"{verdict.detail}, as `not` requires",
        "fail": f"{verdict.detail}, which `not` rules out",
        "blocked": verdict.detail,
    }[status]
    if verdict.kind == kind and verdict.checks and status != "blocked":
        # not(not(x)) is x (a fail signal "never reads X" kept as a required entry's check):
        # said as x's own detail, not as "..., as `not` requires, which `not` rules out".
        detail = verdict.checks[0].detail
    return _result(kind, status, detail, [verdict], [verdict], gap, hidden)


def _result(
    kind: str,
    status: CheckStatus,
    detail: str,
    deciding: list[CheckVerdict],
    operands: list[CheckVerdict],
    gap: CheckVerdict | None = None,
    hidden: frozenset[CheckStatus] = frozenset(),
) -> CheckVerdict:
    verdict = CheckVerdict(
        kind=kind,
        status=status,
        detail=detail,
        evidence=_refs(deciding),
        blocked_reason=gap.blocked_reason if gap else None,
        blocked_by=("agent" if hidden else "eval") if gap else None,
        checks=operands,
    )
    if gap:
        verdict._agent_may_hide = hidden
    return verdict


@register_check("not")
def not_check(check: NotCheck, context: JudgeContext) -> CheckVerdict:
    operand = run_check(check.operand, context)
    if check.if_seen == "undecided" and operand.status == "pass":
        # "rather than X" beside a session that did X as well: which one the work rested on is
        # a judgement no rule makes (docs/criteria.md, "Rather than").
        verdict = CheckVerdict(
            kind="not",
            status="blocked",
            detail=f"{operand.detail}; {check.note or 'no rule decides what that means here'}",
            evidence=operand.evidence,
            blocked_reason="unclear-rule",
            blocked_by="eval",
            checks=[operand],
        )
        verdict._agent_may_hide = frozenset()
        return verdict
    return negate("not", operand)


@register_check("any_of")
def any_of(check: AnyOfCheck, context: JudgeContext) -> CheckVerdict:
    return combine_any("any_of", [run_check(c, context) for c in check.operands])


@register_check("all_of")
def all_of(check: AllOfCheck, context: JudgeContext) -> CheckVerdict:
    return combine_all("all_of", [run_check(c, context) for c in check.operands])
