"""Whether a command's words run a program a pattern names: the match must cover a word that
was executed (the command itself or a script it was given), and not a file of the agent's own
text. The rule `command_ran`, `script_ran`, `ran_before` and the runs by scripts
(`indirect_runs.py`) share."""

from __future__ import annotations

import posixpath
from collections.abc import Sequence

from evaluator.evidence.shell.results import Invocation
from evaluator.judge.base import JudgeContext
from evaluator.judge.command_line import command_lines
from evaluator.judge.command_pattern import command_literal
from evaluator.patterns import Pattern


def _own_file(index: int, invocation: Invocation, own: frozenset[str]) -> bool:
    """Whether the executed word at `index` names a file holding only the agent's own text (the
    session wrote it: a script named like the target's elsewhere, or the target's script
    overwritten): running it runs the agent's program, not one the target shipped. A bare
    command name (`python3`, `pytest`) is found on PATH and is no such file; a bare script
    name given to an interpreter (`python3 deploy.py`) is a file of the directory."""
    word = invocation.words[index]
    if not own or ("/" not in word and index == 0):
        return False
    tail = "/" + posixpath.normpath(word).lstrip("/")
    return any(path in own and (path + "/").endswith(tail + "/") for path in invocation.paths)


def runs_program(
    pattern: Pattern, invocation: Invocation, own: frozenset[str] = frozenset()
) -> bool:
    """Whether a match of `pattern` in the invocation's line covers a program that ran, and
    not a file of the agent's own text (`own`: such files executed in the tool call)."""
    for line, spans in _lines(pattern, invocation.words):
        executed = [spans[i] for i in invocation.executed if not _own_file(i, invocation, own)]
        # Every match is looked at in turn: the first one may be in an argument.
        start = 0
        while start <= len(line):
            found = pattern.search(line[start:])
            if found is None:
                break
            at = line.find(found, start)
            end = at + max(len(found), 1)
            if any(at < e and s < end for s, e in executed):
                return True
            start = at + 1
    return False


def words_match(pattern: Pattern, words: Sequence[str]) -> bool:
    """Whether `pattern` is found in the plain or the quoted line of `words`."""
    return any(pattern.search(line) is not None for line, _ in _lines(pattern, words))


def _lines(pattern: Pattern, words: Sequence[str]) -> list[tuple[str, list[tuple[int, int]]]]:
    """The lines `pattern` is searched in: a command literal's pattern reads the quoted line
    only (in the plain one `git -C "x commit" status` would read as `git commit`); an author's
    regex both (command_line.py)."""
    lines = command_lines(words)
    return lines[-1:] if command_literal(pattern.text) is not None else lines


def own_runs(context: JudgeContext, call_id: str | None) -> frozenset[str]:
    """The files a tool call executed that hold only the agent's own text, or that the trace
    saw an earlier call write (or change a folder above: red team 13's swapped script)."""
    return frozenset(
        r.path
        for r in context.evidence.of_kind("file_read_observed")
        if r.access == "exec"
        and r.path
        and r.call_id == call_id
        and (r.own_text or context.changed_before_run(r) == "before")
    )


SWAPPED_IN_CALL = (
    "the trace shows the same tool call writing the file it ran (or changing a folder above"
    " it), in an order it does not tell"
)


def swapped_in_call(context: JudgeContext, call_id: str | None) -> frozenset[str]:
    """The files a tool call executed that the trace saw the same call write (or change a
    folder above): the run may have been of the target's file or of the agent's (red team 13)."""
    return frozenset(
        r.path
        for r in context.evidence.of_kind("file_read_observed")
        if r.access == "exec"
        and r.path
        and r.call_id == call_id
        and context.changed_before_run(r) == "same"
    )
