"""Runs of a program that no command line of the agent names: a script (the agent's or the
skill's), a build tool or any other program started it, as a process of the agent's tool call.

`./deploy.sh` that runs `python3 deploy.py` is a run of `deploy.py` all the same: the program
ran in the session. Where the access trace saw the tool call, its processes show every such run
with its place in the attempt's one log (`TracedCall.programs`), and `command_ran` and
`ran_before` count it. Without a trace of the call, a script it executed is read as the
workspace holds it: one whose text names the pattern may have run it, unseen (`UnseenScript`):
the agent's doing when the script is the session's (written or changed by it), the eval's when
it is a file the eval provided, unchanged (the skill's own script), as docs/security.md says who
owns a gap. The rule and why it is the author's expectation: docs/criteria.md, "A run by a
script".
"""

from __future__ import annotations

import hashlib
import posixpath
import shlex
from dataclasses import dataclass
from pathlib import Path

from evaluator.evidence.records import EvidenceRecord
from evaluator.evidence.shell import analyze_command
from evaluator.evidence.traced import ExecutedProgram, TracedCall, agents_code
from evaluator.judge.base import JudgeContext
from evaluator.judge.checks.program_match import own_runs, runs_program, words_match
from evaluator.patterns import Pattern
from evaluator.vocabulary import BlockedBy

# A script larger than this is not read for the pattern (a script is text of a few KiB).
MAX_SCRIPT_BYTES = 1 << 20
# Shells given a command text (`bash -lc TEXT`): the programs the text runs are processes of
# their own in the trace, and the text itself is what the session already shows.
_SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "ash", "busybox"})


@dataclass(frozen=True)
class TracedRun:
    """A process of the agent's tool call `call_id` that ran a program matching the pattern."""

    program: ExecutedProgram
    call_id: str

    def describe(self) -> str:
        return f"`{' '.join(self.program.argv)}`"


@dataclass(frozen=True)
class UnseenScript:
    """A script a tool call executed, the trace not seeing that call whole, whose text names the
    pattern: it may have run it. `by`: whose gap that is."""

    record: EvidenceRecord
    by: BlockedBy


def _shell_text(program: ExecutedProgram) -> bool:
    return posixpath.basename(program.path) in _SHELLS and any(
        word.startswith("-") and "c" in word for word in program.argv[1:2]
    )


def program_runs(pattern: Pattern, program: ExecutedProgram, own: frozenset[str]) -> bool:
    """Whether the process ran a program matching `pattern` by `command_ran`'s rule: the match
    covers the program or a script it was given, not an argument (`grep deploy.py notes`), and
    not a file of the agent's own text named like the target's."""
    words = executed_words(program)
    if not words or not words_match(pattern, words):
        return False
    if _shell_text(program):
        return False
    analysis = analyze_command(shlex.join(words), program.cwd or "/")
    return any(runs_program(pattern, invocation, own) for invocation in analysis.invocations)


def executed_words(program: ExecutedProgram) -> tuple[str, ...]:
    """The process's argv with the program it ran in front: a name given as argv[0] that is not
    the exec'd file's (`exec -a deploy.py true`, red team 7) is a label, not a run of it. The
    same name under another directory (a `PATH` lookup, `python3` for `/usr/bin/python3`) is
    kept as written."""
    if not program.argv:
        return ()
    if posixpath.basename(program.argv[0]) == posixpath.basename(program.path):
        return program.argv
    return (program.path, *program.argv[1:])


def traced_runs(pattern: Pattern, context: JudgeContext, skip: set[str]) -> list[TracedRun]:
    """Every process of a traced tool call (but those in `skip`: the calls whose own command
    line the check judged already) that ran a program matching `pattern`, in log order."""
    if context.traced_calls is None:
        return []
    runs: list[TracedRun] = []
    for call_id, call in context.traced_calls.items():
        if call_id in skip:
            continue
        own = own_runs(context, call_id)
        runs.extend(
            TracedRun(p, call_id)
            for p in call.programs
            if not _written_elsewhere(p, call, context)
            and program_runs(
                pattern, p, own | _created_programs(p, context) | _swapped(p, call_id, context)
            )
        )
    return sorted(runs, key=lambda run: run.program.started_line or 0)


def _written_elsewhere(program: ExecutedProgram, call: TracedCall, context: JudgeContext) -> bool:
    """Whether the process ran a file the attempt wrote outside the workspace (a copy of
    `/bin/true` at `/tmp/x/python3`, run with the argv `python3 check.py`), or code in no file
    at all (a memfd exec'd, `/memfd:x/python3`): its name is the agent's label for its own
    program, not the program it names (red team 19). In the workspace `_created_programs`
    decides, by content."""
    if context.relative(program.path) is not None:
        return False
    return agents_code(program.path, call.attempt_written)


def _named_files(program: ExecutedProgram) -> list[str]:
    """The files a process may have run: its program, and each word of its arguments as a path
    from its working directory (an interpreter's script)."""
    return [program.path] + [
        word if word.startswith("/") else posixpath.join(program.cwd or "/", word)
        for word in program.argv[1:]
    ]


def _swapped(program: ExecutedProgram, call_id: str, context: JudgeContext) -> frozenset[str]:
    """The workspace files the process may have run that the trace saw a tool call of the
    session write (or change a folder above) before the run, or in its own call: the target's
    script swapped for the agent's program by a program the session's text does not show, then
    run by a launcher the text does not show either (red team 13). In its own call the order is
    not told, and the run is not counted for the target's."""
    return frozenset(
        posixpath.normpath(path)
        for path in _named_files(program)
        if context.changed_before(posixpath.normpath(path), call_id) is not None
    )


def _created_programs(program: ExecutedProgram, context: JudgeContext) -> frozenset[str]:
    """The workspace files the process ran (its program, or a file its arguments name: an
    interpreter's script) that the session created, with content no file the eval provided
    holds: the agent's own program, though no command line of the session ran it (a launcher
    of its own running its `deploy.py`, named like the skill's). A command line that runs such
    a file is no run of the target's program (`program_match._own_file`); a script's run of it
    is none either (red team 7). Nothing when the baseline or the workspace is not known."""
    if context.baseline is None or not context.workspace_available:
        return frozenset()
    provided = set(context.baseline.values())
    named = _named_files(program)
    created: set[str] = set()
    for path in named:
        relative = context.relative(posixpath.normpath(path))
        if relative is None or relative == "." or relative in context.baseline:
            continue
        data = _script_bytes(context, path)
        if data is not None and hashlib.sha256(data).hexdigest() not in provided:
            created.add(posixpath.normpath(path))
    return frozenset(created)


def unseen_scripts(pattern: Pattern, context: JudgeContext, skip: set[str]) -> list[UnseenScript]:
    """The scripts tool calls executed (but those in `skip`) that the trace did not see whole
    and whose text, as the workspace holds it, names `pattern`."""
    found: list[UnseenScript] = []
    seen: set[tuple[str | None, str]] = set()
    for record in context.evidence.of_kind("file_read_observed"):
        if record.access != "exec" or not record.path or record.call_id in skip:
            continue
        call = context.traced_call(record)
        if call is not None and call.complete:
            continue  # its processes are in `traced_runs`
        relative = context.relative(record.path)
        if relative is None or (record.call_id, relative) in seen:
            continue
        if pattern.search(record.path) is not None:
            # The script is the program the pattern names, not a launcher of it: its command
            # line decides (a file of the agent's own text named like it is no run of it).
            continue
        seen.add((record.call_id, relative))
        data = _script_bytes(context, record.path)
        if data is None or pattern.search(data.decode("utf-8", "replace")) is None:
            continue
        found.append(UnseenScript(record, _whose(context, relative, data)))
    return found


def _script_bytes(context: JudgeContext, path: str) -> bytes | None:
    if not context.workspace_available or context.relative(path) in context.without_content:
        return None
    on_disk = Path(context.on_disk(path))
    try:
        root = context.file_root.resolve()
        real = on_disk.resolve(strict=True)
        if root not in real.parents or not real.is_file() or real.stat().st_size > MAX_SCRIPT_BYTES:
            return None
        return real.read_bytes()
    except (OSError, RuntimeError):
        return None


def _whose(context: JudgeContext, relative: str, data: bytes) -> BlockedBy:
    """The eval's when the workspace held the script, byte for byte, before the agent ran (the
    skill's own script); else the agent's (it wrote or changed it)."""
    before = (context.baseline or {}).get(relative)
    return "eval" if before == hashlib.sha256(data).hexdigest() else "agent"
