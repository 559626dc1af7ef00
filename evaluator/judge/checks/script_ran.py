"""`script_ran`: the agent executed a script (path or glob), optionally with an exit code.

Unlike `command_ran`, the command's text is not enough: `cat scripts/x.py` names the script but
never runs it. The evidence layer records what a command executes (`python3 x.py`, `./x.sh`,
`bash x.sh`, `. x.sh`, `python -m pkg.x` from its directory, scripts run by scripts) as `exec`
accesses; this check reads those. A run the shell text cannot prove (after `||`, in a branch,
the background...) is decided by the access trace when it saw that tool call whole
(judge/checks/trace_proof.py), else it is `blocked`.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Sequence

from evaluator.contract.models import ScriptRanCheck
from evaluator.evidence.records import EvidenceRecord
from evaluator.evidence.shell import analyze_command
from evaluator.evidence.shell.results import Invocation
from evaluator.evidence.traced import ExecutedProgram
from evaluator.judge.base import JudgeContext
from evaluator.judge.checks.command_ran import trace_verdict
from evaluator.judge.checks.program_match import runs_program, words_match
from evaluator.judge.checks.registry import register_check
from evaluator.judge.checks.trace_proof import (
    UNKNOWN_NO_TRACE,
    TraceProof,
    invocation_proof,
    script_proof,
    startup_proof,
)
from evaluator.judge.verdict import CheckVerdict, blocked, failed, passed
from evaluator.patterns import Pattern, compile_pattern

KIND = "script_ran"


def _exit_code(record: EvidenceRecord, context: JudgeContext) -> int | None:
    for command in context.evidence.of_kind("command_observed"):
        if command.call_id == record.call_id and command.exit_code is not None:
            return command.exit_code
    return None


def _present(record: EvidenceRecord, context: JudgeContext) -> bool:
    """The executed file exists in the workspace after the run, or the session wrote it (and
    may have removed it since). Without the workspace nothing can be told: trust the evidence."""
    assert record.path is not None
    if not context.workspace_available or os.path.lexists(context.on_disk(record.path)):
        return True
    return any(w.path == record.path for w in context.writes())


def _command_record(record: EvidenceRecord, context: JudgeContext) -> EvidenceRecord | None:
    for command in context.evidence.of_kind("command_observed"):
        if command.call_id == record.call_id and command.command:
            return command
    return None


def _command_of(record: EvidenceRecord, context: JudgeContext) -> str:
    command = _command_record(record, context)
    if command is not None and command.command:
        return command.command
    return record.detail or record.path or "?"


def _ran_with(
    record: EvidenceRecord, context: JudgeContext, pattern: Pattern, without: Pattern | None
) -> tuple[str | None, TraceProof | None]:
    """How the run matches `pattern` in the simple command that ran the script: "ran" (by its
    text, or by the trace's proof), "maybe" (only after `||` or in a branch, and the trace
    cannot tell), or None; with the trace's proof when it decided. A line beside it that only
    names the script and the words (`python3 x.py a; echo x.py b`) is no run with them."""
    command = _command_record(record, context)
    if command is None or not command.command:
        return None, None
    invocations = analyze_command(command.command, command.workdir or "/").invocations

    def ruled_out(words: Sequence[str]) -> bool:
        return without is not None and words_match(without, words)

    running = [i for i in invocations if runs_program(pattern, i) and not ruled_out(i.words)]
    startup = context.agents_startup(command)
    code = context.agents_code(command)
    if not startup and not code and any(i.surely_ran(command.exit_code) for i in running):
        return "ran", None
    if not running:
        return None, None

    def mentions(program: ExecutedProgram) -> bool:
        return words_match(pattern, program.argv) and not ruled_out(program.argv)

    call = context.traced_call(command)
    proof = trace_verdict([invocation_proof(i, call, mentions) for i in running])
    if startup:
        proof = startup_proof(proof, startup, call)
    if proof.finding == "ran":
        return "ran", proof
    return ("maybe" if proof.finding in ("unknown", "killed") else None), proof


def _beside_only(hits: Sequence[EvidenceRecord], context: JudgeContext, pattern: Pattern) -> str:
    """Why a pattern found in the very command that ran the script did not count: the match
    must cover the script's own word (the contract's `tool\\.py\\s+stats`), so an argument
    alone (`stats`) is searched for in vain. Empty when the pattern is not in that command."""
    for record in hits:
        _, running = _runners(record, context)
        for invocation in running:
            if record.path in invocation.paths and words_match(pattern, invocation.words):
                return (
                    "; the pattern is found there, but only beside the script: a match must"
                    " cover the script's own word too, as /tool\\.py\\s+stats/ does"
                )
    return ""


def _unless(check: ScriptRanCheck) -> str:
    return "" if check.without is None else f" and not /{check.without}/"


def _runners(
    record: EvidenceRecord, context: JudgeContext
) -> tuple[EvidenceRecord | None, list[Invocation]]:
    """The command record of the call that executed the script, and the invocations of it
    that run the script (else every one that runs a file)."""
    command = _command_record(record, context)
    if command is None or not command.command:
        return command, []
    invocations = analyze_command(command.command, command.workdir or "/").invocations
    running = [i for i in invocations if record.path in i.paths]
    return command, running or [i for i in invocations if i.paths]


def _surely_ran(record: EvidenceRecord, context: JudgeContext) -> bool:
    """Whether the command that executed the script surely ran (`true || python3 x.py`,
    `for x in; do ./x.sh; done` did not; nor one in a call that answered before its end). A script run by a script the session wrote is judged
    by its place there (`may_not_run`) and by the scripts its call ran."""
    if record.may_not_run:
        return False  # in a script the session wrote, where its shell may not reach it
    if record.call_id in context.evidence.detached_calls:
        # The call answered while its command went on (Claude Code's `run_in_background`,
        # Gemini CLI's `is_background`): the command may have ended before the run, or been
        # stopped with the attempt (red team 13).
        return False
    command, running = _runners(record, context)
    if command is None:
        return True
    if context.agents_startup(command) or context.agents_code(command):
        # Its shell first read a start-up file the attempt wrote: the interpreter named may
        # be the agent's function or program (red team 17); or a process of it mapped code the
        # attempt wrote, which may have ended it as it pleased (red team 19). Only the trace
        # can tell.
        return False
    return not running or any(i.surely_ran(command.exit_code) for i in running)


def _trace_proof(record: EvidenceRecord, context: JudgeContext) -> TraceProof:
    """What the trace shows of a script run the shell text cannot prove."""
    assert record.path is not None
    command, running = _runners(record, context)
    call = context.traced_call(record)
    proof = script_proof(record.path, running, call)
    startup = context.agents_startup(command) if command is not None else ()
    return startup_proof(proof, startup, call) if startup else proof


def _finding(proof: TraceProof | None) -> str:
    return "sure" if proof is None else proof.finding


def _mentions(context: JudgeContext, path: str) -> list[EvidenceRecord]:
    """Commands whose text names the script (its last path components) without running it."""
    name = posixpath.basename(path.rstrip("/"))
    if not name or any(ch in name for ch in "*?["):
        return []
    return [r for r in context.evidence.of_kind("command_observed") if name in (r.command or "")]


@register_check(KIND)
def script_ran(check: ScriptRanCheck, context: JudgeContext) -> CheckVerdict:
    executed = [
        r for r in context.evidence.of_kind("file_read_observed") if r.access == "exec" and r.path
    ]
    hits = context.matching(executed, check.path)
    own = [r for r in hits if r.own_text]
    hits = [r for r in hits if not r.own_text]
    # What the trace saw a program of the session's write there, or a folder above it, before
    # the run (red team 13: the script swapped by computed paths, run, put back).
    changed = {r.id: context.changed_before_run(r) for r in hits}
    swapped = [r for r in hits if changed[r.id] == "before"]
    unsure = [r for r in hits if changed[r.id] == "same"]
    hits = [r for r in hits if changed[r.id] is None]
    if own and not hits and not unsure:
        # The session wrote what ran there (the target's script overwritten, or a file of that
        # name it made): the agent's own program ran, not the target's.
        return failed(
            KIND,
            f"`{_command_of(own[0], context)}` ran a file at {check.path} holding only text the"
            " agent wrote itself, not the target's script",
            [context.ref(r) for r in own],
        )
    if swapped and not hits and not unsure:
        return failed(
            KIND,
            f"`{_command_of(swapped[0], context)}` ran a file at {check.path} that an earlier"
            " tool call of the session wrote, or whose folder it changed (the trace): not the"
            " target's script",
            [context.ref(r) for r in swapped],
        )
    if unsure and not hits:
        return blocked(
            KIND,
            f"{check.path} was written, or a folder above it changed, in the tool call that ran"
            f" it (the trace), in an order not told: `{_command_of(unsure[0], context)}`",
            [context.ref(r) for r in unsure],
            by="agent",
        )
    present = [r for r in hits if _present(r, context)]
    if hits and not present:
        # `python scripts/x.py` from the wrong directory: the interpreter found nothing to run.
        return failed(
            KIND,
            f"`{_command_of(hits[0], context)}` names {check.path} where the workspace has no"
            " such file: nothing ran",
            [context.ref(r) for r in hits],
        )
    # The trace's proof of each run the shell text cannot prove (None: the text proves it).
    proofs: dict[str, TraceProof | None] = {
        r.id: None if _surely_ran(r, context) else _trace_proof(r, context) for r in present
    }
    hits = [r for r in present if proofs[r.id] is None or _finding(proofs[r.id]) == "ran"]
    if not hits:
        undecided = [r for r in present if _finding(proofs[r.id]) in ("unknown", "killed")]
        if undecided:
            proof = proofs[undecided[0].id]
            why = "" if proof is None or proof is UNKNOWN_NO_TRACE else f"; {proof.reason}"
            return blocked(
                KIND,
                f"{check.path} may not have run (after `||` or a failed `&&`, in a branch, a"
                f" loop or the background){why}: `{_command_of(undecided[0], context)}`",
                [context.ref(r) for r in undecided],
                by="agent",
            )
        if present:
            proof = proofs[present[0].id]
            assert proof is not None
            return failed(
                KIND,
                f"{check.path} did not run: the shell text may not have run it and"
                f" {proof.reason}: `{_command_of(present[0], context)}`",
                [context.ref(r) for r in present],
            )
    if hits and check.command is not None:
        # The command that ran it, not another line naming it: `echo tool.py stats` is no run.
        pattern = compile_pattern(check.command)
        without = compile_pattern(check.without) if check.without is not None else None
        ways = [(r, *_ran_with(r, context, pattern, without)) for r in hits]
        matching = [r for r, way, _ in ways if way == "ran"]
        maybe = [(r, proof) for r, way, proof in ways if way == "maybe"]
        for r, way, proof in ways:
            if way == "ran" and proof is not None:
                proofs[r.id] = proof  # the process that ran it with those words
        if not matching and maybe:
            record, proof = maybe[0]
            why = "" if proof is None or proof is UNKNOWN_NO_TRACE else f"; {proof.reason}"
            return blocked(
                KIND,
                f"{check.path} may not have run with /{check.command}/{_unless(check)} (after `||` or in a"
                f" branch){why}: `{_command_of(record, context)}`",
                [context.ref(r) for r, _ in maybe],
                by="agent",
            )
        if not matching:
            return failed(
                KIND,
                f"{check.path} ran, never by a command matching /{check.command}/{_unless(check)}:"
                f" `{_command_of(hits[0], context)}`{_beside_only(hits, context, pattern)}",
                [context.ref(r) for r in hits],
            )
        hits = matching
    if hits:
        refs = [context.ref(r) for r in hits]

        def how(record: EvidenceRecord) -> str:
            proof = proofs.get(record.id)
            return "" if proof is None else f" ({proof.reason})"

        def code_of(record: EvidenceRecord) -> int | None:
            proof = proofs.get(record.id)
            return _exit_code(record, context) if proof is None else proof.exit_code

        if check.exit_code is None:
            return passed(
                KIND, f"{check.path} ran{how(hits[0])}: {hits[0].detail or hits[0].source}", refs
            )
        codes = [(r, code_of(r)) for r in hits]
        exact = [r for r, code in codes if code == check.exit_code]
        if exact:
            return passed(
                KIND,
                f"{check.path} ran with exit code {check.exit_code}{how(exact[0])}",
                [context.ref(r) for r in exact],
            )
        if all(code is None for _, code in codes):
            return blocked(KIND, f"{check.path} ran but its exit code was not recorded", refs)
        seen = ", ".join(str(code) for _, code in codes if code is not None)
        return failed(KIND, f"{check.path} exited with {seen}, expected {check.exit_code}", refs)
    mentions = _mentions(context, check.path)
    opaque_refs = {ref for ref, _ in context.evidence.opaque}
    unclear = [r for r in mentions if r.id in opaque_refs]
    if unclear:
        # The command names the script in a construct the analysis cannot follow: it may run it.
        return blocked(
            KIND,
            f"cannot tell whether `{unclear[0].command}` runs {check.path}",
            [context.ref(r) for r in unclear],
            by="agent",
        )
    if mentions:
        return failed(
            KIND,
            f"{check.path} was named by `{mentions[0].command}` but never executed",
            [context.ref(r) for r in mentions],
        )
    return failed(KIND, f"no execution of {check.path} was observed")
