"""`file_read`: the agent saw a file's content (path or glob, workspace-relative)."""

from __future__ import annotations

from evaluator.contract.models import FileReadCheck
from evaluator.judge.base import JudgeContext
from evaluator.judge.checks.registry import register_check
from evaluator.judge.verdict import CheckVerdict, failed, passed

KIND = "file_read"


@register_check(KIND)
def file_read(check: FileReadCheck, context: JudgeContext) -> CheckVerdict:
    hits = context.matching(context.reads(), check.path)
    if hits:
        return passed(
            KIND,
            f"{check.path} read by {hits[0].detail or hits[0].source}",
            [context.ref(r) for r in hits],
        )
    touched = context.matching(context.evidence.of_kind("file_read_observed"), check.path)
    if touched:
        # Touching a file (`stat`, `wc -l`, a listing) never showed its content to the agent.
        accesses = ", ".join(sorted({r.access or "?" for r in touched}))
        return failed(
            KIND,
            f"{check.path} was touched ({accesses}) but its content never reached the agent",
            [context.ref(r) for r in touched],
        )
    return failed(KIND, f"no read of {check.path} was observed")
