"""The `checks` judge: an entry's structured checks, as its author wrote them, decide it."""

from __future__ import annotations

from evaluator.judge import checks as _checks  # registers every check kind
from evaluator.judge.base import JudgeContext, PendingEntry
from evaluator.judge.checks.registry import run_check
from evaluator.judge.entry import entry_result
from evaluator.judge.registry import register_judge
from evaluator.judge.verdict import AssertionResult

del _checks


@register_judge
class StructuredChecksJudge:
    name = "checks"

    def decide(
        self, entries: list[PendingEntry], context: JudgeContext
    ) -> dict[str, AssertionResult]:
        return {
            p.entry_id: entry_result(p, "checks", [run_check(c, context) for c in p.entry.checks])
            for p in entries
            if p.entry.checks
        }
