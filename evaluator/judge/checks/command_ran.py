"""`command_ran`: a command matching a regular expression ran (optionally with an exit code)."""

from __future__ import annotations

from evaluator.contract.models import CommandRanCheck
from evaluator.judge.base import CheckOutcome, JudgeContext
from evaluator.judge.checks.registry import register_check
from evaluator.patterns import compile_pattern


@register_check("command_ran")
def command_ran(check: CommandRanCheck, context: JudgeContext) -> CheckOutcome:
    pattern = compile_pattern(check.pattern)  # RE2: linear time on any agent output
    hits = [
        r
        for r in context.evidence.of_kind("command_observed")
        if r.command and pattern.search(r.command) is not None
    ]
    if not hits:
        return CheckOutcome("command_ran", "fail", f"no command matching /{check.pattern}/ ran")
    if check.exit_code is None:
        return CheckOutcome(
            "command_ran", "pass", f"ran: {hits[0].command}", [context.ref(r) for r in hits]
        )
    exact = [r for r in hits if r.exit_code == check.exit_code]
    if exact:
        return CheckOutcome(
            "command_ran",
            "pass",
            f"ran with exit code {check.exit_code}: {exact[0].command}",
            [context.ref(r) for r in exact],
        )
    if all(r.exit_code is None for r in hits):
        return CheckOutcome(
            "command_ran",
            "blocked",
            "matching command ran but its exit code was not recorded",
            [context.ref(r) for r in hits],
            "insufficient-evidence",
        )
    codes = ", ".join(str(r.exit_code) for r in hits)
    return CheckOutcome(
        "command_ran",
        "fail",
        f"matching command exited with {codes}, expected {check.exit_code}",
        [context.ref(r) for r in hits],
    )
