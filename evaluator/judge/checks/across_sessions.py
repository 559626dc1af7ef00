"""The order of two acts when a spawned helper did one of them (`ran_before`, `read_before`).

No clock orders two sessions' records, but the parent's session bounds each helper it waited
for: every act of the helper happened after the parent asked for the spawn (the spawn call's
line) and before the parent received the helper's end (the spawn's own result when the agent
waits for its helper, Claude Code's foreground Agent tool; a wait that reports it done,
Codex's `wait_agent`: `SubagentSpawn.finished_record`). So, on the parent's lines, a helper's
act lies inside (spawn, end), and a parent's act inside (its call, its result). One act is
before another when the first's interval ends at an earlier line than the second's begins; two
acts of one session keep that session's own order (the check judged on it alone).

`first` before `then` holds when some sure act of `first` is before every act (sure or maybe)
of `then`; it is broken when some sure act of `then` is before every act of `first` (or no
session did `first`); otherwise it is not shown: a helper whose end the parent never received
(one in the background, one the parent did not wait for, a helper not tied to its spawn, one
the parent gave more to do after its end: `SessionEvidence.spawn_woken`), a helper that left
a command running past its end (`SessionEvidence.detached_calls`), or acts whose intervals
overlap. That stays `blocked`, the agent's (its choice to split the acts
hides their order).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from evaluator.contract.models import CommandRanCheck, FileReadCheck
from evaluator.judge.base import JudgeContext
from evaluator.judge.checks.command_ran import command_hits
from evaluator.judge.checks.ran_before import result_lines
from evaluator.judge.checks.read_before import first_read
from evaluator.judge.checks.registry import CHECKS
from evaluator.judge.verdict import CheckVerdict, blocked, failed, passed
from evaluator.patterns import compile_pattern

PARENT = -1  # the session key of the attempt's own session; a helper's is its index


@dataclass(frozen=True)
class Act:
    """An act of `first` or `then` as the parent's lines bound it: it happened after line `lo`
    and before line `hi` (None: not bounded there), in session `session`."""

    session: int
    lo: int | None
    hi: int | None
    sure: bool  # False: the session may have done it (its check is blocked)
    where: str
    evidence: tuple[str, ...] = ()


def order_across_sessions(check: Any, context: JudgeContext, own: CheckVerdict) -> CheckVerdict:
    """The verdict of `check` over the attempt's sessions, given `own`, its verdict on the
    attempt's own session. Unchanged when no helper did (or may have done) either act."""
    helpers = _helper_acts(check, context)
    if not helpers or own.status == "blocked":
        return own
    firsts = [a for a, is_first, _ in helpers if is_first]
    thens = [a for a, is_first, _ in helpers if not is_first]
    orders = {index: status for _, _, (index, status) in helpers}
    orders[PARENT] = own.status
    firsts += _parent_acts(check, context, check.first, first=True)
    thens += _parent_acts(check, context, check.then, first=False)

    def before(a: Act, b: Act, status: str) -> bool:
        if a.session == b.session:
            return orders[a.session] == status
        return a.hi is not None and b.lo is not None and a.hi < b.lo

    kind = check.kind
    for first in [a for a in firsts if a.sure]:
        if all(before(first, then, "pass") for then in thens):
            later = f" before `{check.then}` {thens[0].where}" if thens else ""
            return passed(
                kind,
                f"`{check.first}` {first.where}{later}"
                + ("" if thens else f"; no session did `{check.then}`"),
                [*first.evidence, *(e for t in thens for e in t.evidence)],
            )
    if not firsts:
        return failed(kind, f"no session of the attempt did `{check.first}`", list(own.evidence))
    for then in [b for b in thens if b.sure]:
        if all(before(then, first, "fail") for first in firsts):
            return failed(
                kind,
                f"`{check.then}` {then.where} before `{check.first}` {firsts[0].where}",
                [*then.evidence, *(e for f in firsts for e in f.evidence)],
            )
    unbounded = next((a for a in firsts + thens if a.session != PARENT and a.hi is None), None)
    why = (
        f"no end the parent received bounds the act of the helper ({unbounded.where})"
        if unbounded is not None
        else "their spans on the parent's session overlap"
    )
    return blocked(
        kind,
        f"`{check.first}` and `{check.then}` were done in different sessions and their order is"
        f" not shown: {why}",
        [*(e for a in firsts + thens for e in a.evidence)],
        by="agent",
    )


def _helper_acts(check: Any, context: JudgeContext) -> list[tuple[Act, bool, tuple[int, str]]]:
    """Each helper's act of `first` and of `then` (when it did, or may have done, it), with the
    helper's own order of the two."""
    windows = _windows(context)
    acts: list[tuple[Act, bool, tuple[int, str]]] = []
    for index, helper in enumerate(context.spawned):
        lo, hi = windows.get(helper.evidence.thread_id or "", (None, None))
        if helper.evidence.detached_calls:
            hi = None  # a command it left running may act after its end
        status = ""
        for pattern, is_first in ((check.first, True), (check.then, False)):
            probe = _probe(check, pattern)
            seen = CHECKS[probe.kind](probe, helper)
            if seen.status == "fail":
                continue
            if not status:
                status = CHECKS[check.kind](check, helper).status
            where = (
                f"in the helper spawned at line {lo} of the parent"
                + (f", whose end the parent received at line {hi}" if hi is not None else "")
                + (", which left a command running" if helper.evidence.detached_calls else "")
                if lo is not None
                else "in a helper not tied to a spawn of the parent"
            )
            acts.append(
                (
                    Act(index, lo, hi, seen.status == "pass", where, tuple(seen.evidence)),
                    is_first,
                    (index, status),
                )
            )
    return acts


def _probe(check: Any, pattern: str) -> CommandRanCheck | FileReadCheck:
    if check.kind == "ran_before":
        return CommandRanCheck(kind="command_ran", pattern=pattern)
    return FileReadCheck(kind="file_read", path=pattern)


def _windows(context: JudgeContext) -> dict[str, tuple[int | None, int | None]]:
    """Each helper's bounds on the parent's lines, by its thread id: (spawn call, end)."""
    lines = _record_lines(context)
    return {
        spawn.child_id: (
            lines.get(spawn.record),
            lines.get(spawn.finished_record) if spawn.finished_record else None,
        )
        for spawn in context.evidence.spawns
        if spawn.child_id
    }


def _record_lines(context: JudgeContext) -> dict[str, int]:
    cached = context.cache.get("record_lines")
    if cached is None:
        cached = {str(r["id"]): int(r.get("line") or 0) for r in context.evidence.iter_records()}
        context.cache["record_lines"] = cached
    return dict(cached)


def _call_lines(context: JudgeContext) -> dict[str, int]:
    """The session line of each tool call, by call id."""
    calls: dict[str, int] = {}
    for record in context.evidence.iter_records():
        if record.get("kind") == "tool_call" and record.get("call_id"):
            calls.setdefault(str(record["call_id"]), int(record.get("line") or 0))
    return calls


def _parent_acts(check: Any, context: JudgeContext, pattern: str, *, first: bool) -> list[Act]:
    """The parent's earliest act matching `pattern`, bounded by its call and its result."""
    results = result_lines(context)
    if check.kind == "ran_before":
        hits = command_hits(
            compile_pattern(pattern), context.evidence.of_kind("command_observed"), context
        )
        sure = [run.record for run in hits.ran]
        unsure = [] if first else [r for r, _ in hits.maybe + hits.killed]
        if not sure + unsure:
            return []
        record = min(sure + unsure, key=lambda r: r.line)
        end = results.get(str(record.call_id)) if record.call_id else None
        where = f"in the parent's session (line {record.line})"
        return [Act(PARENT, record.line, end, record in sure, where, (context.ref(record),))]
    read = first_read(context, pattern)
    if read is None:
        return []
    asked = _call_lines(context).get(read.call_id or "", read.line)
    end = max(read.line, results.get(read.call_id or "", read.line))
    where = f"in the parent's session (line {read.line})"
    return [Act(PARENT, min(asked, read.line), end, True, where, (read.ref,) if read.ref else ())]
