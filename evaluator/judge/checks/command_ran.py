"""`command_ran`: a command matching a regular expression ran (optionally with an exit code).

The pattern is searched in each simple command a tool call runs (its words as bash passes them,
from the shell analysis), and the match must cover a program that ran: the command itself or a
script it was given (`python3 x.py`). So `echo 'python3 x.py'`, `grep x.py notes` and
`cat x.py` do not run `x.py`. A command that may not have run (after `||` or `exit`, in an `if`
or `case` branch, a loop's body, the background, `bash -n`; after `&&` or `set -e` unless the
call's exit code 0 shows it) cannot prove it ran by its text. The access trace can, when it saw
that tool call whole (judge/checks/trace_proof.py): the program exec'd with those words and
exited (a run, with that process's exit code), was killed (`blocked`), or never exec'd (no
run). Without such a trace it is `blocked`, never a pass.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from evaluator.contract.models import CommandRanCheck
from evaluator.evidence.records import EvidenceRecord
from evaluator.evidence.shell import analyze_command
from evaluator.evidence.traced import ExecutedProgram
from evaluator.judge.base import JudgeContext
from evaluator.judge.checks.indirect_runs import traced_runs, unseen_scripts
from evaluator.judge.checks.program_match import (
    SWAPPED_IN_CALL,
    own_runs,
    runs_program,
    swapped_in_call,
    words_match,
)
from evaluator.judge.checks.registry import register_check
from evaluator.judge.checks.trace_proof import (
    UNKNOWN_NO_TRACE,
    TraceProof,
    invocation_proof,
    startup_proof,
)
from evaluator.judge.verdict import CheckVerdict, blocked, failed, passed
from evaluator.patterns import Pattern, compile_pattern
from evaluator.vocabulary import BlockedBy

KIND = "command_ran"


@dataclass(frozen=True)
class _Run:
    """A tool call that ran a matching command: surely by its text (`proof` None, the call's
    exit code), or by the trace's proof (the exit code of the process that ran it)."""

    record: EvidenceRecord
    proof: TraceProof | None = None

    @property
    def exit_code(self) -> int | None:
        return self.record.exit_code if self.proof is None else self.proof.exit_code

    @property
    def how(self) -> str:
        return "" if self.proof is None else f" ({self.proof.reason})"


@dataclass
class CommandHits:
    ran: list[_Run] = field(default_factory=list)
    maybe: list[tuple[EvidenceRecord, TraceProof]] = field(default_factory=list)  # undecided
    killed: list[tuple[EvidenceRecord, TraceProof]] = field(default_factory=list)
    never: list[tuple[EvidenceRecord, TraceProof]] = field(default_factory=list)
    named: list[EvidenceRecord] = field(default_factory=list)
    # The undecided calls whose doubt is the command's own form (`||`, a branch, a loop, the
    # background, a failed `&&`), not an exit code the session did not record.
    by_form: set[str] = field(default_factory=set)

    def call_ids(self) -> set[str]:
        """The tool calls whose own command line was judged to run (or not run) the pattern."""
        records = [run.record for run in self.ran] + [
            r for r, _ in self.maybe + self.killed + self.never
        ]
        return {r.call_id for r in records if r.call_id}

    def unsure_by(self, unsure: list[EvidenceRecord]) -> BlockedBy:
        """Whose doing it is that these calls may not have run: the agent's only when each is
        in doubt by its own form (one the eval cannot see leaves the outcome open anyway)."""
        return "agent" if unsure and all(r.id in self.by_form for r in unsure) else "eval"


def trace_verdict(proofs: list[TraceProof]) -> TraceProof:
    """One proof for a tool call's may-not-have-run invocations: a run if any ran; else killed
    if one was; never only if every one never ran; else unknown."""
    for finding in ("ran", "killed"):
        chosen = [p for p in proofs if p.finding == finding]
        if chosen:
            return chosen[0]
    if proofs and all(p.finding == "never" for p in proofs):
        return proofs[0]
    unknown = [p for p in proofs if p.finding == "unknown"]
    return unknown[0] if unknown else TraceProof("unknown", "nothing to look for in the trace")


def command_hits(
    pattern: Pattern, records: list[EvidenceRecord], context: JudgeContext
) -> CommandHits:
    """The tool calls whose command text matches: ran (by text or trace), may not have run
    (the trace cannot tell), killed or never run (as the trace shows), only named."""
    hits = CommandHits()

    def mentions(program: ExecutedProgram) -> bool:
        return words_match(pattern, program.argv)

    for record in records:
        if not record.command or pattern.search(record.command) is None:
            continue
        invocations = analyze_command(record.command, record.workdir or "/").invocations
        own = own_runs(context, record.call_id)
        running = [i for i in invocations if runs_program(pattern, i, own)]
        swapped = own | swapped_in_call(context, record.call_id)
        if running and not any(runs_program(pattern, i, swapped) for i in running):
            # Each match runs a file the same call wrote (or changed a folder above), by the
            # trace, in an order it does not tell: the target's program, or the agent's.
            hits.maybe.append((record, TraceProof("unknown", SWAPPED_IN_CALL)))
            hits.by_form.add(record.id)
            continue
        # A call that answered while its command went on running (Claude Code's Bash with
        # `run_in_background`, a Codex exec still running) shows no run by its text: the
        # command may still have been waiting, or been killed, when the agent ended.
        detached = record.call_id in context.evidence.detached_calls
        startup = context.agents_startup(record)
        code = context.agents_code(record)
        if (
            not detached
            and not startup
            and not code
            and any(i.surely_ran(record.exit_code) for i in running)
        ):
            hits.ran.append(_Run(record))
            continue
        if not running:
            hits.named.append(record)
            continue
        call = context.traced_call(record)
        proof = trace_verdict([invocation_proof(i, call, mentions) for i in running])
        if startup:
            proof = startup_proof(proof, startup, call)
            hits.by_form.add(record.id)
        if code:
            hits.by_form.add(record.id)  # the agent's code ran in the call: its doing
        if proof.finding == "ran":
            hits.ran.append(_Run(record, proof))
        elif proof.finding == "killed":
            hits.killed.append((record, proof))
        elif proof.finding == "never":
            hits.never.append((record, proof))
        else:
            hits.maybe.append((record, proof))
        if detached or record.exit_code is not None or any(i.conditional for i in running):
            hits.by_form.add(record.id)
    return hits


@register_check(KIND)
def command_ran(check: CommandRanCheck, context: JudgeContext) -> CheckVerdict:

    pattern = compile_pattern(check.pattern)  # RE2: linear time on any agent output
    found = command_hits(pattern, context.evidence.of_kind("command_observed"), context)
    verdict = _by_text(check, context, found)
    if verdict.status == "pass":
        return verdict
    # Not run by a command line the session shows: a script or a program of the agent's tool
    # call may have run it (indirect_runs.py).
    judged = found.call_ids()
    indirect = [r for r in traced_runs(pattern, context, judged) if r.program.exit_code is not None]
    exact = [r for r in indirect if check.exit_code in (None, r.program.exit_code)]
    if exact:
        run = exact[0]
        code = "" if check.exit_code is None else f" with exit code {check.exit_code}"
        return passed(
            KIND,
            f"ran{code}: the trace shows {run.describe()} {run.program.ended} as a process of the"
            f" tool call that ran {call_command(context, run.call_id)}",
            call_refs(context, [r.call_id for r in exact]),
        )
    if indirect and verdict.status == "fail":
        codes = ", ".join(str(r.program.exit_code) for r in indirect)
        return failed(
            KIND,
            f"the trace shows {indirect[0].describe()} ran as a process of the tool call that ran"
            f" {call_command(context, indirect[0].call_id)}, exited with {codes}, expected"
            f" {check.exit_code}",
            call_refs(context, [r.call_id for r in indirect]),
        )
    unseen = unseen_scripts(pattern, context, judged) if verdict.status == "fail" else []
    if unseen:
        script = unseen[0].record
        return blocked(
            KIND,
            f"{script.path} names /{check.pattern}/ and ran in a tool call the trace did not see"
            " whole (or no trace ran): whether it ran a command matching it is not shown",
            [context.ref(u.record) for u in unseen],
            by="agent" if any(u.by == "agent" for u in unseen) else "eval",
        )
    return verdict


def call_command(context: JudgeContext, call_id: str) -> str:
    """The command line of a tool call, as the session shows it."""
    for record in context.evidence.of_kind("command_observed"):
        if record.call_id == call_id and record.command:
            return record.command
    return f"call {call_id}"


def call_refs(context: JudgeContext, call_ids: list[str]) -> list[str]:
    wanted = set(call_ids)
    return [
        context.ref(r) for r in context.evidence.of_kind("command_observed") if r.call_id in wanted
    ]


def _by_text(check: CommandRanCheck, context: JudgeContext, found: CommandHits) -> CheckVerdict:
    """The verdict from the calls whose command line matches (their trace included)."""
    hits = found.ran
    if not hits:
        if found.maybe:
            record, proof = found.maybe[0]
            why = "" if proof is UNKNOWN_NO_TRACE else f"; {proof.reason}"
            return blocked(
                KIND,
                f"a command matching /{check.pattern}/ may not have run (after `||` or a"
                " failed `&&`, in a branch, a loop or the background, or after text that may"
                f" give its name another meaning){why}: {record.command}",
                [context.ref(r) for r, _ in found.maybe],
                by=found.unsure_by([r for r, _ in found.maybe]),
            )
        if found.killed:
            record, proof = found.killed[0]
            return blocked(
                KIND,
                f"a command matching /{check.pattern}/ never ran to an end: {proof.reason}:"
                f" {record.command}",
                [context.ref(r) for r, _ in found.killed],
                # The trace shows it killed before its end: the agent's job (a background job
                # its sandbox killed, a run it cut short), not a gap in what was recorded.
                by="agent",
            )
        if found.never:
            record, proof = found.never[0]
            return failed(
                KIND,
                f"no command matching /{check.pattern}/ ran: the shell text may not have run"
                f" it and {proof.reason}: {record.command}",
                [context.ref(r) for r, _ in found.never],
            )
        if found.named:
            return failed(
                KIND,
                f"/{check.pattern}/ is only in text no command ran as a program (or in a file of"
                f" the agent's own text it ran): {found.named[0].command}",
                [context.ref(r) for r in found.named],
            )
        return failed(KIND, f"no command matching /{check.pattern}/ ran")
    refs = [context.ref(h.record) for h in hits]
    if check.exit_code is None:
        return passed(KIND, f"ran{hits[0].how}: {hits[0].record.command}", refs)
    exact = [h for h in hits if h.exit_code == check.exit_code]
    if exact:
        return passed(
            KIND,
            f"ran with exit code {check.exit_code}{exact[0].how}: {exact[0].record.command}",
            [context.ref(h.record) for h in exact],
        )
    if all(h.exit_code is None for h in hits):
        return blocked(KIND, "matching command ran but its exit code was not recorded", refs)
    codes = ", ".join(str(h.exit_code) for h in hits)
    return failed(
        KIND,
        f"matching command exited with {codes}{hits[0].how}, expected {check.exit_code}",
        refs,
    )
