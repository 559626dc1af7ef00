"""`not`, `any_of`, `all_of`: checks over checks, in three-valued logic.

A blocked operand (evidence that cannot decide it) blocks the result unless another operand
already decides it: `any_of` with one passing operand passes, `all_of` with one failing fails.
"""

from __future__ import annotations

from evaluator.contract.models import AllOfCheck, AnyOfCheck, NotCheck
from evaluator.judge.base import JudgeContext
from evaluator.judge.checks.registry import register_check, run_check
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
        return _result(kind, "blocked", gap.detail, [gap], verdicts, gap)
    return _result(kind, "pass", "; ".join(v.detail for v in verdicts), verdicts, verdicts)


def combine_any(kind: str, verdicts: list[CheckVerdict]) -> CheckVerdict:
    """Holds when one operand holds; only when none can, a gap blocks and otherwise it fails."""
    holding = [v for v in verdicts if v.status == "pass"]
    if holding:
        return _result(kind, "pass", holding[0].detail, holding, verdicts)
    if any(v.status == "blocked" for v in verdicts):
        gap = _first_reason(verdicts)
        return _result(kind, "blocked", gap.detail, [gap], verdicts, gap)
    return _result(kind, "fail", "; ".join(v.detail for v in verdicts), verdicts, verdicts)


def negate(kind: str, verdict: CheckVerdict) -> CheckVerdict:
    opposite: dict[CheckStatus, CheckStatus] = {
        "pass": "fail",
        "fail": "pass",
        "blocked": "blocked",
    }
    status = opposite[verdict.status]
    gap = verdict if verdict.status == "blocked" else None
    # Said plainly, so a forbidden entry's note never reads as a double negative.
    detail = {
        "pass": f"{verdict.detail}, as `not` requires",
        "fail": f"{verdict.detail}, which `not` rules out",
        "blocked": verdict.detail,
    }[status]
    return _result(kind, status, detail, [verdict], [verdict], gap)


def _result(
    kind: str,
    status: CheckStatus,
    detail: str,
    deciding: list[CheckVerdict],
    operands: list[CheckVerdict],
    gap: CheckVerdict | None = None,
) -> CheckVerdict:
    return CheckVerdict(
        kind=kind,
        status=status,
        detail=detail,
        evidence=_refs(deciding),
        blocked_reason=gap.blocked_reason if gap else None,
        checks=operands,
    )


@register_check("not")
def not_check(check: NotCheck, context: JudgeContext) -> CheckVerdict:
    return negate("not", run_check(check.operand, context))


@register_check("any_of")
def any_of(check: AnyOfCheck, context: JudgeContext) -> CheckVerdict:
    return combine_any("any_of", [run_check(c, context) for c in check.operands])


@register_check("all_of")
def all_of(check: AllOfCheck, context: JudgeContext) -> CheckVerdict:
    return combine_all("all_of", [run_check(c, context) for c in check.operands])
