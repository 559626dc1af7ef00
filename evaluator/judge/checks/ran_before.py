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
from evaluator.judge.checks.command_ran import CommandHits, call_command, call_refs, command_hits
from evaluator.judge.checks.indirect_runs import traced_runs, unseen_scripts
from evaluator.judge.checks.program_match import own_runs, runs_program
from evaluator.judge.checks.registry import register_check
from evaluator.judge.checks.trace_proof import invocation_proof
from evaluator.judge.verdict import CheckVerdict, blocked, failed, passed
from evaluator.patterns import Pattern, compile_pattern

KIND = "ran_before"


def result_lines(context: JudgeContext) -> dict[str, int]:
    """The session line of each tool call's result (the first one recorded), by call id."""
    lines: dict[str, int] = {}
    for record in context.evidence.iter_records():
        if record.get("kind") == "tool_result" and record.get("call_id"):
            lines.setdefault(str(record["call_id"]), int(record.get("line") or 0))
    return lines


@register_check(KIND)
def ran_before(check: RanBeforeCheck, context: JudgeContext) -> CheckVerdict:
    commands = context.evidence.of_kind("command_observed")
    firsts = command_hits(compile_pattern(check.first), commands, context)
    thens = command_hits(compile_pattern(check.then), commands, context)
    verdict = _by_command_lines(check, context, firsts, thens)
    return _with_indirect_runs(check, context, firsts, thens, verdict)


def _with_indirect_runs(
    check: RanBeforeCheck,
    context: JudgeContext,
    firsts: CommandHits,
    thens: CommandHits,
    verdict: CheckVerdict,
) -> CheckVerdict:
    """The verdict once the runs no command line names are counted (a script of the agent's or
    the skill's ran `A` or `B` as a process of the agent's tool call: indirect_runs.py): a `B`
    the trace saw start before `A` ended breaks the order; one a script may have run unseen
    leaves a pass undecided (`blocked`, whose gap the script's owner says); an `A` only a
    script ran is a run of `A`, ordered by the trace."""
    first_pattern, then_pattern = compile_pattern(check.first), compile_pattern(check.then)
    then_runs = traced_runs(then_pattern, context, thens.call_ids())
    hidden = unseen_scripts(then_pattern, context, thens.call_ids())
    first_runs = [
        r
        for r in traced_runs(first_pattern, context, firsts.call_ids())
        if r.program.exit_code is not None and r.program.ended_line is not None
    ]
    a_by_text = bool(firsts.ran)
    if a_by_text:
        # A script whose call began after the run of `A` was shown to end ran nothing before it.
        first = min((run.record for run in firsts.ran), key=lambda r: r.line)
        ended = result_lines(context).get(str(first.call_id)) if first.call_id else None
        if ended is not None:
            hidden = [h for h in hidden if h.record.line <= ended]
    if verdict.status == "fail" and (a_by_text or not first_runs):
        return verdict  # an order already broken, or no `A` at all: more runs change nothing
    if verdict.status == "blocked" and not a_by_text:
        return verdict  # `A` may not have run by its own command line: undecided as it was
    if not a_by_text and not first_runs:
        return verdict
    if not then_runs and not hidden and a_by_text:
        return verdict
    a_ends = [r.program.ended_line for r in first_runs if r.program.ended_line is not None]
    for record in [run.record for run in firsts.ran]:
        traced = _traced_runs(first_pattern, record, context)
        a_ends += [p.ended_line for p in traced or [] if p.ended_line is not None]
    a_end = min(a_ends, default=None)
    refs = call_refs(context, [r.call_id for r in first_runs + then_runs])
    a_what = first_runs[0].describe() if first_runs and not a_by_text else f"/{check.first}/"
    if then_runs:
        b = then_runs[0]
        where = f"as a process of the tool call that ran {call_command(context, b.call_id)}"
        if a_end is None:
            return blocked(
                KIND,
                f"the trace shows {b.describe()} ran {where}, and the end of the run of"
                f" /{check.first}/ is not in the trace: their order is not shown",
                refs,
            )
        assert b.program.started_line is not None
        if b.program.started_line < a_end:
            return failed(
                KIND,
                f"the trace shows {b.describe()} started (log line {b.program.started_line})"
                f" {where}, before the run of {a_what} ended (log line {a_end})",
                refs,
            )
    if hidden:
        script = hidden[0].record
        return blocked(
            KIND,
            f"{script.path} names /{check.then}/ and ran in a tool call the trace did not see"
            f" whole (or no trace ran): whether it ran it before /{check.first}/ ended is not"
            " shown",
            [context.ref(h.record) for h in hidden],
            by="agent" if any(h.by == "agent" for h in hidden) else "eval",
        )
    if a_by_text:
        if verdict.status == "pass" and then_runs and a_end is not None:
            b = then_runs[0]
            return passed(
                KIND,
                f"the trace shows the run of /{check.first}/ ended (log line {a_end}) before"
                f" {b.describe()} started (log line {b.program.started_line}) as a process of"
                f" the tool call that ran {call_command(context, b.call_id)}",
                [*verdict.evidence, *refs],
            )
        return verdict  # every `B` a script ran started after `A` ended: the lines decide
    # `A` ran only as a process of a script: every run of `B` must be ordered by the trace.
    direct_b = [run.record for run in thens.ran] + [r for r, _ in thens.maybe + thens.killed]
    starts = [b.program.started_line for b in then_runs]
    for record in direct_b:
        traced = _traced_runs(then_pattern, record, context)
        if traced is None:
            return blocked(
                KIND,
                f"the trace shows {a_what} ran (log line {a_end}) as a process of a tool call,"
                f" and {record.command} is not in the trace whole: their order is not shown",
                [*refs, context.ref(record)],
            )
        starts += [p.started_line for p in traced]
    known = [line for line in starts if line is not None]
    assert a_end is not None
    if any(line < a_end for line in known):
        return failed(
            KIND,
            f"a run of /{check.then}/ started (log line {min(known)}) before the run of"
            f" {a_what} ended (log line {a_end})",
            refs,
        )
    return passed(
        KIND,
        f"the trace shows {a_what} ended (log line {a_end}) as a process of the tool call that"
        f" ran {call_command(context, first_runs[0].call_id)}"
        + (
            f", before any run of /{check.then}/ started (log line {min(known)})"
            if known
            else f"; no command matching /{check.then}/ ran"
        ),
        refs,
    )


def _by_command_lines(
    check: RanBeforeCheck, context: JudgeContext, firsts: CommandHits, thens: CommandHits
) -> CheckVerdict:
    """The order as the calls whose command lines name `A` and `B` show it (with their trace)."""
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
    ended = result_lines(context).get(str(first.call_id)) if first.call_id else None
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
