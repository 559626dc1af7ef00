"""`file_written`: the agent wrote (created, changed, moved or deleted) a file, and it took."""

from __future__ import annotations

from evaluator.contract.models import FileWrittenCheck
from evaluator.judge.base import JudgeContext
from evaluator.judge.checks.registry import register_check
from evaluator.judge.verdict import CheckVerdict, blocked, failed, passed

KIND = "file_written"


@register_check(KIND)
def file_written(check: FileWrittenCheck, context: JudgeContext) -> CheckVerdict:
    hits = context.matching(context.writes(), check.path)
    # A write counts only when the action took effect: a failed patch wrote nothing.
    done = [r for r in hits if context.outcome(r) == "ok"]
    if done:
        return passed(
            KIND,
            f"{check.path} written ({done[0].detail or done[0].source})",
            [context.ref(r) for r in done],
        )
    unknown = [r for r in hits if context.outcome(r) == "unknown"]
    if unknown:
        return blocked(
            KIND,
            f"a write to {check.path} was attempted but whether it took effect was not recorded",
            [context.ref(r) for r in unknown],
        )
    if hits:
        return failed(
            KIND,
            f"every write to {check.path} failed, nothing was written",
            [context.ref(r) for r in hits],
        )
    return failed(KIND, f"no write to {check.path} was observed")
