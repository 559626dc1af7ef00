"""`file_written`: the agent wrote (created, changed, moved or deleted) a file."""

from __future__ import annotations

from evaluator.contract.models import FileWrittenCheck
from evaluator.judge.base import CheckOutcome, JudgeContext
from evaluator.judge.checks.registry import register_check


@register_check("file_written")
def file_written(check: FileWrittenCheck, context: JudgeContext) -> CheckOutcome:
    writes = [r for r in context.evidence.of_kind("file_write_observed") if r.path]
    hits = context.matching(writes, check.path)
    if hits:
        return CheckOutcome(
            "file_written",
            "pass",
            f"{check.path} written ({hits[0].detail or hits[0].source})",
            [context.ref(r) for r in hits],
        )
    return CheckOutcome("file_written", "fail", f"no write to {check.path} was observed")
