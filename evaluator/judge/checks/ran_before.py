"""`ran_before`: a command ran, and no command matching `then` started before that run ended.

"Runs `A` before `B`": the first run of `A` (a run as `command_ran` proves it: by the shell
text, or by the trace) must have ended before any run of `B` began. Ended means the session
holds its tool call's result at an earlier line than `B`'s call: two calls of one turn (Claude
Code's and Codex's parallel calls, Gemini CLI's calls of one message) may run at once, so their
order in the file is no order of the runs, and the check is `blocked` for them. A `B` that never
ran leaves the order unbroken (as `read_before`); a run of `B` that may not have happened, or
one in the same tool call as `A` (`a && b`: the order inside one command line is not judged),
before `A` ended, is `blocked`, never a pass.

Where the access trace saw every matching tool call whole, it decides instead: the attempt's
one log orders every process of every call as the kernel ran them, so `A`'s process must have
exited at an earlier line than any process of `B` was started. This is the order of the runs
themselves: a run of `A` in the background (`A &`, whose call returns before it ends), `B; A` on
one line, and calls of one turn are decided by it (red team, round 5).
"""

from __future__ import annotations

from evaluator.contract.models import RanBeforeCheck
from evaluator.evidence.records import EvidenceRecord
from evaluator.evidence.shell import analyze_command
from evaluator.evidence.traced import ExecutedProgram
from evaluator.judge.base import JudgeContext
from evaluator.judge.checks.command_ran import _hits, own_runs, runs_program
from evaluator.judge.checks.registry import register_check
from evaluator.judge.checks.trace_proof import invocation_proof
from evaluator.judge.verdict import CheckVerdict, blocked, failed, passed
from evaluator.patterns import Pattern, compile_pattern

KIND = "ran_before"


def _result_lines(context: JudgeContext) -> dict[str, int]:
    """The session line of each tool call's result (the first one recorded), by call id."""
    lines: dict[str, int] = {}
    for record in context.evidence.iter_records():
        if record.get("kind") == "tool_result" and record.get("call_id"):
            lines.setdefault(str(record["call_id"]), int(record.get("line") or 0))
    return lines


@register_check(KIND)
def ran_before(check: RanBeforeCheck, context: JudgeContext) -> CheckVerdict:
    commands = context.evidence.of_kind("command_observed")
    firsts = _hits(compile_pattern(check.first), commands, context)
    thens = _hits(compile_pattern(check.then), commands, context)
    if not firsts.ran:
        unsure = [r for r, _ in firsts.maybe + firsts.killed]
        if unsure:
            # The agent's: it ran the first command where it may not run (after `||`, in a
            # branch, in the background, which Codex's sandbox kills) and nothing else did.
            return blocked(
                KIND,
                f"a command matching /{check.first}/ may not have run: {unsure[0].command}",
                [context.ref(r) for r in unsure],
                by=firsts.unsure_by([r for r, _ in firsts.maybe]) if firsts.maybe else "agent",
            )
        return failed(KIND, f"no command matching /{check.first}/ ran")
    first = min((run.record for run in firsts.ran), key=lambda r: r.line)
    sure_then = [run.record for run in thens.ran]
    unsure_then = [r for r, _ in thens.maybe + thens.killed]
    started = sure_then + unsure_then
    if not started:
        return passed(
            KIND,
            f"ran: {first.command}; no command matching /{check.then}/ ran",
            [context.ref(first)],
        )
    by_trace = _by_trace(
        check, context, [run.record for run in firsts.ran], sure_then + unsure_then
    )
    if by_trace is not None:
        return by_trace
    ended = _result_lines(context).get(str(first.call_id)) if first.call_id else None
    if ended is None:
        return blocked(
            KIND,
            f"the session holds no result of the call that ran {first.command}: when it ended"
            " is not shown",
            [context.ref(first)],
        )
    early = [r for r in started if r.line <= ended]
    if not early:
        then = min(started, key=lambda r: r.line)
        return passed(
            KIND,
            f"{first.command} (ended at session line {ended}) before {then.command}"
            f" (started at line {then.line})",
            [context.ref(first), context.ref(then)],
        )
    unsure_first = [r for r, _ in firsts.maybe + firsts.killed]
    before = [r for r in sure_then if r.line < first.line and r.call_id != first.call_id]
    if before and not any(r.line <= before[0].line for r in unsure_first):
        then = min(before, key=lambda r: r.line)
        return failed(
            KIND,
            f"{then.command} (line {then.line}) started before {first.command} (line {first.line})",
            [context.ref(then), context.ref(first)],
        )
    # The eval's: `A && B` in one call is ordinary, and only our view of it lacks the order.
    return blocked(KIND, _overlap(first, early), [context.ref(first), *map(context.ref, early)])


def _traced_runs(
    pattern: Pattern, record: EvidenceRecord, context: JudgeContext
) -> list[ExecutedProgram] | None:
    """The processes that ran the call's commands matching `pattern`, as its trace shows them
    started (and ended), or None when the trace cannot show them all."""
    call = context.traced_call(record)
    if call is None or not call.complete or not record.command:
        return None
    own = own_runs(context, record.call_id)
    invocations = analyze_command(record.command, record.workdir or "/").invocations
    programs: list[ExecutedProgram] = []
    for invocation in invocations:
        if not runs_program(pattern, invocation, own):
            continue
        proof = invocation_proof(
            invocation, call, lambda program: pattern.search(" ".join(program.argv)) is not None
        )
        if proof.finding == "never":
            continue
        found = proof.program
        if found is None or found.started_line is None:
            return None
        programs.append(found)
    return programs


def _by_trace(
    check: RanBeforeCheck,
    context: JudgeContext,
    firsts: list[EvidenceRecord],
    thens: list[EvidenceRecord],
) -> CheckVerdict | None:
    """The order of the runs as the trace shows them, when it shows every one; else None."""
    first_runs: list[tuple[ExecutedProgram, EvidenceRecord]] = []
    then_runs: list[tuple[ExecutedProgram, EvidenceRecord]] = []
    for pattern, records, into in (
        (compile_pattern(check.first), firsts, first_runs),
        (compile_pattern(check.then), thens, then_runs),
    ):
        for record in records:
            programs = _traced_runs(pattern, record, context)
            if programs is None:
                return None
            into.extend((program, record) for program in programs)
    if not first_runs and firsts:
        # Every call the text says ran it was traced whole, and no process started it (a
        # program not found, a command killed before it began): it never ran.
        return failed(
            KIND,
            f"the trace shows no process started a command matching /{check.first}/"
            f" ({firsts[0].command})",
            [context.ref(r) for r in firsts],
        )
    ended = [(p, r) for p, r in first_runs if p.ended_line is not None and p.exit_code is not None]
    if not ended or not then_runs:
        return None
    first, first_record = min(ended, key=lambda run: run[0].ended_line or 0)
    then, then_record = min(then_runs, key=lambda run: run[0].started_line or 0)
    refs = [context.ref(first_record), context.ref(then_record)]
    what_first, what_then = " ".join(first.argv), " ".join(then.argv)
    assert first.ended_line is not None and then.started_line is not None
    if first.ended_line < then.started_line:
        return passed(
            KIND,
            f"the trace shows {what_first!r} ended (log line {first.ended_line}) before"
            f" {what_then!r} started (log line {then.started_line})",
            refs,
        )
    return failed(
        KIND,
        f"the trace shows {what_then!r} started (log line {then.started_line}) before"
        f" {what_first!r} ended (log line {first.ended_line})",
        refs,
    )


def _overlap(first: EvidenceRecord, early: list[EvidenceRecord]) -> str:
    return (
        f"a command matching the later pattern ({early[0].command}) began before the run of"
        f" {first.command} was shown to end (the same tool call, calls of one turn, or a run"
        " that may not have happened): their order is not shown"
    )
