"""The `checks` judge: an entry's structured checks, run through the check registry."""

from __future__ import annotations

from evaluator.contract.models import AssertionEntry
from evaluator.judge import checks as _checks  # registers every check kind
from evaluator.judge.base import CheckOutcome, JudgeContext
from evaluator.judge.checks.registry import run_check
from evaluator.judge.registry import register_judge

del _checks


@register_judge
class StructuredChecksJudge:
    name = "checks"

    def judge(self, entry: AssertionEntry, context: JudgeContext) -> list[CheckOutcome] | None:
        if not entry.checks:
            return None
        return [run_check(check, context) for check in entry.checks]
