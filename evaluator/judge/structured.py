"""The `checks` judge: an entry's structured checks, as its author wrote them, decide it."""

from __future__ import annotations

from evaluator.contract.models import Check
from evaluator.judge import checks as _checks  # registers every check kind
from evaluator.judge.base import JudgeContext, PendingEntry
from evaluator.judge.checks.attempt_sessions import run_check
from evaluator.judge.entry import entry_result
from evaluator.judge.registry import register_judge
from evaluator.judge.verdict import AssertionResult, CheckVerdict

del _checks


@register_judge
class StructuredChecksJudge:
    name = "checks"

    def decide(
        self, entries: list[PendingEntry], context: JudgeContext
    ) -> dict[str, AssertionResult]:
        # `judge_entries` gives the entries that run a command after every other; within an
        # entry, its commands run last too (`_run_all`).
        return {
            p.entry_id: entry_result(p, "checks", _run_all(p.entry.checks, context))
            for p in entries
            if p.entry.checks
        }


def runs_command(check: Check) -> bool:
    """Whether the check, or one of its operands, runs a `command` after the agent."""
    if check.kind == "command":
        return True
    operands = [*getattr(check, "operands", []), *filter(None, [getattr(check, "operand", None)])]
    return any(runs_command(operand) for operand in operands)


def _run_all(checks: list[Check], context: JudgeContext) -> list[CheckVerdict]:
    """The verdicts in the checks' order, the commands run last: a command may run the agent's
    code, which may rewrite the files another check reads (an answer its "test" writes)."""
    verdicts: dict[int, CheckVerdict] = {}
    for index in sorted(range(len(checks)), key=lambda i: runs_command(checks[i])):
        verdicts[index] = run_check(checks[index], context)
    return [verdicts[index] for index in range(len(checks))]
