"""`command_ran`: a command matching a regular expression ran (optionally with an exit code)."""

from __future__ import annotations

from evaluator.contract.models import CommandRanCheck
from evaluator.judge.base import JudgeContext
from evaluator.judge.checks.registry import register_check
from evaluator.judge.verdict import CheckVerdict, blocked, failed, passed
from evaluator.patterns import compile_pattern

KIND = "command_ran"


@register_check(KIND)
def command_ran(check: CommandRanCheck, context: JudgeContext) -> CheckVerdict:
    pattern = compile_pattern(check.pattern)  # RE2: linear time on any agent output
    hits = [
        r
        for r in context.evidence.of_kind("command_observed")
        if r.command and pattern.search(r.command) is not None
    ]
    if not hits:
        return failed(KIND, f"no command matching /{check.pattern}/ ran")
    refs = [context.ref(r) for r in hits]
    if check.exit_code is None:
        return passed(KIND, f"ran: {hits[0].command}", refs)
    exact = [r for r in hits if r.exit_code == check.exit_code]
    if exact:
        return passed(
            KIND,
            f"ran with exit code {check.exit_code}: {exact[0].command}",
            [context.ref(r) for r in exact],
        )
    if all(r.exit_code is None for r in hits):
        return blocked(KIND, "matching command ran but its exit code was not recorded", refs)
    codes = ", ".join(str(r.exit_code) for r in hits)
    return failed(KIND, f"matching command exited with {codes}, expected {check.exit_code}", refs)
