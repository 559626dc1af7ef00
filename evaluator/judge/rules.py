"""The `rules` judge: entries whose every prose sentence compiles to checks (`criteria.py`)."""

from __future__ import annotations

from evaluator.judge.base import JudgeContext, PendingEntry
from evaluator.judge.checks.registry import run_check
from evaluator.judge.criteria import compile_entry
from evaluator.judge.entry import entry_result
from evaluator.judge.registry import register_judge
from evaluator.judge.verdict import AssertionResult


@register_judge
class CompiledRulesJudge:
    name = "rules"

    def decide(
        self, entries: list[PendingEntry], context: JudgeContext
    ) -> dict[str, AssertionResult]:
        decided = {}
        for pending in entries:
            compiled = compile_entry(
                pending.entry, pending.polarity, pending.vocabulary(context.skill_vocabulary)
            )
            if compiled is None:
                continue
            verdicts = [run_check(check, context) for check in compiled.checks]
            decided[pending.entry_id] = entry_result(
                pending, "rules", verdicts, compiled.provenance
            )
        return decided
