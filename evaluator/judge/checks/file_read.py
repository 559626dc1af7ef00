"""`file_read`: the agent read a file (path or glob, workspace-relative)."""

from __future__ import annotations

from evaluator.contract.models import FileReadCheck
from evaluator.judge.base import CheckOutcome, JudgeContext
from evaluator.judge.checks.registry import register_check


@register_check("file_read")
def file_read(check: FileReadCheck, context: JudgeContext) -> CheckOutcome:
    hits = context.matching(context.reads(), check.path)
    if hits:
        return CheckOutcome(
            "file_read",
            "pass",
            f"{check.path} read by {hits[0].detail or hits[0].source}",
            [context.ref(r) for r in hits],
        )
    return CheckOutcome("file_read", "fail", f"no read of {check.path} was observed")
