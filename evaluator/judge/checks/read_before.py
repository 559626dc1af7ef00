"""`read_before`: the first read of `first` comes before any read of `then`.

A read is the first tool output that showed the file's content, when the session records outputs
and every file either pattern names can be compared (`judge/consultation.py`); else the command
table's first `read` access. The verdict's `proof` says which decided.

By content, `first` came before `then` when its content reached the agent before the agent
asked for the call that showed `then`: two reads of one turn (parallel calls), or of one
command (`cat A B`), were asked for together, and the agent had not read `first` when it asked
for `then` (red team, round 5).
"""

from __future__ import annotations

from dataclasses import dataclass

from evaluator.contract.models import ReadBeforeCheck
from evaluator.evidence.content import Shown, Sighting
from evaluator.judge.base import JudgeContext, path_matches
from evaluator.judge.checks.registry import register_check
from evaluator.judge.consultation import consultation
from evaluator.judge.verdict import CheckVerdict, failed, passed

KIND = "read_before"


@register_check(KIND)
def read_before(check: ReadBeforeCheck, context: JudgeContext) -> CheckVerdict:
    verdict = _by_content(check, context)
    if verdict is not None:
        return verdict.model_copy(update={"proof": "content"})
    return _by_commands(check, context).model_copy(update={"proof": "commands"})


def _by_content(check: ReadBeforeCheck, context: JudgeContext) -> CheckVerdict | None:
    shown = consultation(context)
    if shown is None:
        return None
    firsts, unknown_first = shown.matching(check.first)
    thens, unknown_then = shown.matching(check.then)
    # A file content cannot compare leaves the order to the table, when the table saw it read.
    table_reads = {context.relative(r.path or "") for r in context.reads()}
    if unknown_first or table_reads & set(unknown_then) or not firsts:
        return None
    # A file matching both patterns is one of `first`: it does not count twice.
    names = {f.path for f in firsts}
    seen_first = _sightings(firsts)
    seen_then = _sightings([f for f in thens if f.path not in names])
    if not seen_first:
        return failed(KIND, f"{check.first} never reached the agent")
    first, first_path = seen_first[0]
    if not seen_then:
        return passed(
            KIND,
            f"{first_path} shown; nothing matching {check.then} was shown",
            shown.cite(context, _outputs(first), check.first),
        )
    then, then_path = seen_then[0]
    asked = _asked_lines(context)
    then_asked = asked.get(then.ref or "", then.line)
    if first.line < then_asked:
        return passed(
            KIND,
            f"{first_path} shown ({first.ref}) before {then_path} ({then.ref})",
            shown.cite(context, _outputs(first), check.first)
            + shown.cite(context, _outputs(then), check.then),
        )
    if first.line <= then.line:
        return failed(
            KIND,
            f"the call that showed {then_path} ({then.ref}) was asked for before {first_path}"
            f" reached the agent ({first.ref}): both were asked for at once",
            shown.cite(context, _outputs(first), check.first)
            + shown.cite(context, _outputs(then), check.then),
        )
    return failed(
        KIND,
        f"{then_path} was shown ({then.ref}) before {first_path} ({first.ref})",
        shown.cite(context, _outputs(then), check.then)
        + shown.cite(context, _outputs(first), check.first),
    )


def _asked_lines(context: JudgeContext) -> dict[str, int]:
    """The session line of the tool call each tool output (by record id) answers."""
    calls: dict[str, int] = {}
    answers: dict[str, str] = {}
    for record in context.evidence.iter_records():
        call_id = record.get("call_id")
        if not call_id:
            continue
        if record.get("kind") == "tool_call":
            calls.setdefault(str(call_id), int(record.get("line") or 0))
        elif record.get("kind") == "tool_result":
            answers[str(record["id"])] = str(call_id)
    return {ref: calls[call] for ref, call in answers.items() if call in calls}


def _sightings(files: list[Shown]) -> list[tuple[Sighting, str]]:
    """Each file's first showing, earliest first."""
    return sorted((f.first, f.path) for f in files if f.first is not None)


def _outputs(sighting: Sighting) -> list[str]:
    return [sighting.ref] if sighting.ref else []


def _by_commands(check: ReadBeforeCheck, context: JudgeContext) -> CheckVerdict:
    reads = context.reads()
    tried = context.matching(reads, check.first)
    # A read of `first` whose command failed showed nothing of it (as for `file_read`).
    firsts = [r for r in tried if context.outcome(r) != "failed"]
    if tried and not firsts:
        return failed(
            KIND,
            f"{check.first}: the read by {tried[0].detail or tried[0].source} failed, so it was"
            " never read",
            [context.ref(r) for r in tried],
        )
    if not firsts:
        return failed(KIND, f"{check.first} was never read")
    # A read of `first` can also match `then` (docs.txt vs references/*): it does not count twice.
    thens = [
        r
        for r in context.matching(reads, check.then)
        if not any(path_matches(rel, check.first) for rel in _relatives(context, r.path))
    ]

    def order(record_id: str) -> int:
        return int(record_id.removeprefix("msg-"))

    first = min(firsts, key=lambda r: order(r.id))
    if not thens:
        return passed(
            KIND,
            f"{check.first} read; nothing matching {check.then} was read",
            [context.ref(first)],
        )
    then = min(thens, key=lambda r: order(r.id))
    if order(first.id) < order(then.id):
        return passed(
            KIND,
            f"{check.first} ({first.id}) before {check.then} ({then.id})",
            [context.ref(first), context.ref(then)],
        )
    return failed(
        KIND,
        f"{check.then} ({then.id}) was read before {check.first} ({first.id})",
        [context.ref(then), context.ref(first)],
    )


@dataclass(frozen=True)
class FirstRead:
    """The first read of a file matching a pattern: the session line it reached the agent at,
    the record to cite and the tool call that read it."""

    line: int
    ref: str
    call_id: str | None


def first_read(context: JudgeContext, pattern: str) -> FirstRead | None:
    """The first read of a file matching `pattern`, found as `read_before` finds it: the first
    output that showed its content, when the session records outputs and every matching file
    can be compared; else the command table's first `read`. None when no such file was read.
    (For an order between a read and another act.)"""
    shown = consultation(context)
    if shown is not None:
        files, unknown = shown.matching(pattern)
        if files and not unknown:
            seen = _sightings(files)
            if not seen:
                return None
            sighting = seen[0][0]
            output = sighting.ref or ""
            ref = f"{context.ref_prefix}#{output}" if output else ""
            return FirstRead(sighting.line, ref, shown.calls.get(output))
    reads = context.matching(context.reads(), pattern)
    if not reads:
        return None
    first = min(reads, key=lambda r: r.line)
    return FirstRead(first.line, context.ref(first), first.call_id)


def _relatives(context: JudgeContext, path: str | None) -> list[str]:
    if path is None:
        return []
    return [rel for p in context.expand(path) if (rel := context.relative(p)) is not None]
