"""`command_ran`: a command matching a regular expression ran (optionally with an exit code).

The pattern is searched in each simple command a tool call runs (its words as bash passes them,
from the shell analysis), and the match must cover a program that ran: the command itself or a
script it was given (`python3 x.py`). So `echo 'python3 x.py'`, `grep x.py notes` and
`cat x.py` do not run `x.py`. A command that may not have run (after `||` or `exit`, in an `if`
or `case` branch, a loop's body, `bash -n`; after `&&` or `set -e` unless the call's exit code 0
shows it) cannot prove it ran: alone it is `blocked`, never a pass.
"""

from __future__ import annotations

import posixpath

from evaluator.contract.models import CommandRanCheck
from evaluator.evidence.records import EvidenceRecord
from evaluator.evidence.shell import analyze_command
from evaluator.evidence.shell.results import Invocation
from evaluator.judge.base import JudgeContext
from evaluator.judge.checks.registry import register_check
from evaluator.judge.verdict import CheckVerdict, blocked, failed, passed
from evaluator.patterns import Pattern, compile_pattern

KIND = "command_ran"


def _own_file(word: str, invocation: Invocation, own: frozenset[str]) -> bool:
    """Whether an executed word names a file holding only the agent's own text (the session
    wrote it: a script named like the target's elsewhere, or the target's script overwritten):
    running it runs the agent's program, not one the target shipped. A bare program name
    (`python3`, `pytest`) is found on PATH and is no such file."""
    if "/" not in word or not own:
        return False
    tail = "/" + posixpath.normpath(word).lstrip("/")
    return any(path in own and (path + "/").endswith(tail + "/") for path in invocation.paths)


def runs_program(
    pattern: Pattern, invocation: Invocation, own: frozenset[str] = frozenset()
) -> bool:
    """Whether a match of `pattern` in the invocation's line covers a program that ran, and
    not a file of the agent's own text (`own`: such files executed in the tool call)."""
    line = " ".join(invocation.words)
    spans: list[tuple[int, int]] = []
    offset = 0
    for word in invocation.words:
        spans.append((offset, offset + len(word)))
        offset += len(word) + 1
    executed = [
        spans[i] for i in invocation.executed if not _own_file(invocation.words[i], invocation, own)
    ]
    # Every match is looked at in turn: the first one may be in an argument.
    start = 0
    while start <= len(line):
        found = pattern.search(line[start:])
        if found is None:
            return False
        at = line.find(found, start)
        end = at + max(len(found), 1)
        if any(at < e and s < end for s, e in executed):
            return True
        start = at + 1
    return False


def own_runs(context: JudgeContext, call_id: str | None) -> frozenset[str]:
    """The files a tool call executed that hold only the agent's own text."""
    return frozenset(
        r.path
        for r in context.evidence.of_kind("file_read_observed")
        if r.access == "exec" and r.own_text and r.path and r.call_id == call_id
    )


def _hits(
    pattern: Pattern, records: list[EvidenceRecord], context: JudgeContext
) -> tuple[list[EvidenceRecord], list[EvidenceRecord], list[EvidenceRecord]]:
    """(ran, may not have run, only named) tool calls whose command text matches."""
    ran, maybe, named = [], [], []
    for record in records:
        if not record.command or pattern.search(record.command) is None:
            continue
        invocations = analyze_command(record.command, record.workdir or "/").invocations
        own = own_runs(context, record.call_id)
        running = [i for i in invocations if runs_program(pattern, i, own)]
        if any(i.surely_ran(record.exit_code) for i in running):
            ran.append(record)
        elif running:
            maybe.append(record)
        else:
            named.append(record)
    return ran, maybe, named


@register_check(KIND)
def command_ran(check: CommandRanCheck, context: JudgeContext) -> CheckVerdict:
    pattern = compile_pattern(check.pattern)  # RE2: linear time on any agent output
    hits, maybe, named = _hits(pattern, context.evidence.of_kind("command_observed"), context)
    if not hits:
        if maybe:
            return blocked(
                KIND,
                f"a command matching /{check.pattern}/ may not have run (after `||` or a"
                f" failed `&&`, in a branch or a loop): {maybe[0].command}",
                [context.ref(r) for r in maybe],
            )
        if named:
            return failed(
                KIND,
                f"/{check.pattern}/ is only in text no command ran as a program (or in a file of"
                f" the agent's own text it ran): "
                f"{named[0].command}",
                [context.ref(r) for r in named],
            )
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
