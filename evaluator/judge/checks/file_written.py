"""`file_written`: the agent wrote (created, changed, moved or deleted) a file, and it took.

A write a command's text names where its shell may not have reached it (`true || touch f`, an
`if` branch, a loop's body, the background, after `exit`: `PathAccess.surely_done`) proves
nothing by the call's exit code (red team, round 12b). The access trace decides it when it saw
that tool call whole: a process of it wrote the path, or none did. Without such a trace it is
`blocked`, never a pass, as an unsure run is for `command_ran`.
"""

from __future__ import annotations

from evaluator.contract.models import FileWrittenCheck
from evaluator.evidence.records import EvidenceRecord
from evaluator.evidence.shell import analyze_command
from evaluator.judge.base import JudgeContext
from evaluator.judge.checks.registry import register_check
from evaluator.judge.verdict import CheckVerdict, blocked, failed, passed

KIND = "file_written"


def _unsure(record: EvidenceRecord, context: JudgeContext) -> bool:
    """Whether the shell of the record's call may not have reached the write (judged from the
    command's text with the call's exit code, known only once the call ended). A write the
    command's own text does not show (one in a script it ran) keeps the old rule."""
    command = next(
        (
            c
            for c in context.evidence.of_kind("command_observed")
            if c.call_id == record.call_id and c.command
        ),
        None,
    )
    if command is None or command.command is None or record.call_id is None:
        return False
    analysis = analyze_command(command.command, command.workdir or "/")
    writes = [a for a in analysis.accesses if a.kind == "write" and a.path == record.path]
    # A call that answered while its command went on (`run_in_background`, `is_background`)
    # shows no write done by its text (red team 13).
    detached = record.call_id in context.evidence.detached_calls
    return bool(writes) and (detached or not any(a.surely_done(command.exit_code) for a in writes))


def _traced_write(record: EvidenceRecord, context: JudgeContext) -> bool | None:
    """Whether the trace shows a process of the record's call writing its path: None when the
    trace did not see the call whole."""
    call = context.traced_call(record)
    if call is None or not call.complete or record.path is None:
        return None
    return any(path in call.written for path in context.expand(record.path))


@register_check(KIND)
def file_written(check: FileWrittenCheck, context: JudgeContext) -> CheckVerdict:
    hits = context.matching(context.writes(), check.path)
    # A write counts only when the action took effect: a failed patch wrote nothing.
    took = [r for r in hits if context.outcome(r) == "ok"]
    unsure = {r.id for r in took if _unsure(r, context)}
    done = [r for r in took if r.id not in unsure]
    traced = {r.id: _traced_write(r, context) for r in took if r.id in unsure}
    done += [r for r in took if traced.get(r.id)]
    if done:
        return passed(
            KIND,
            f"{check.path} written ({done[0].detail or done[0].source})",
            [context.ref(r) for r in done],
        )
    undecided = [r for r in took if r.id in unsure and traced[r.id] is None]
    if undecided:
        return blocked(
            KIND,
            f"a write to {check.path} may not have run (after `||` or a failed `&&`, in a"
            f" branch, a loop or the background) and no trace saw its call whole:"
            f" {undecided[0].detail or undecided[0].source}",
            [context.ref(r) for r in undecided],
            by="agent",
        )
    unknown = [r for r in hits if context.outcome(r) == "unknown"]
    if unknown:
        return blocked(
            KIND,
            f"a write to {check.path} was attempted but whether it took effect was not recorded",
            [context.ref(r) for r in unknown],
        )
    if took:
        return failed(
            KIND,
            f"no write to {check.path} ran: the shell text may not have reached it and the"
            f" trace shows no process of its call writing it ({took[0].detail or took[0].source})",
            [context.ref(r) for r in took],
        )
    if hits:
        return failed(
            KIND,
            f"every write to {check.path} failed, nothing was written",
            [context.ref(r) for r in hits],
        )
    return failed(KIND, f"no write to {check.path} was observed")
