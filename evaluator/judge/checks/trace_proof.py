"""The trace as proof of a run the shell text cannot prove (`command_ran`, `script_ran`).

The shell analysis says a command may not have run (after `||`, in a branch or a loop, in the
background, after a `&&` the call's exit code does not vouch for: `Invocation.surely_ran`). When
the access trace saw that tool call whole (`TracedCall.complete`), it can tell:

- `ran`: one of the call's processes exec'd the same program (its file's name) with the same
  words as bash passes them, running the same script files, and that process ended by exit;
- `killed`: it exec'd, but every such process was killed by a signal: it never ran to an end;
- `never`: the call's processes exec'd no such program and, for a script, never even opened
  it. Only for an external program with literal words: a builtin (`source x.sh`) never execs,
  and words the analysis could not expand (`$X/x.py`, `*.py`) name nothing exact to look for.

Anything else is `unknown` (no trace, a call the trace did not match or saw only in part) and
the check stays `blocked` as without a trace. The trace never overturns a run the shell text
calls sure (docs/criteria.md, "A run the text cannot prove").
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from evaluator.evidence.shell.results import Invocation
from evaluator.evidence.traced import ExecutedProgram, TracedCall, python_startup

Finding = Literal["ran", "killed", "never", "unknown"]

# What bash runs without an exec: a command named so never shows in a trace.
_BUILTIN_WORDS = """. : [ alias bg bind break builtin caller cd command compgen complete compopt continue
    declare dirs disown echo enable eval exec exit export false fc fg getopts hash help history
    jobs kill let local logout mapfile popd printf pushd pwd read readarray readonly return set
    shift shopt source suspend test times trap true type typeset ulimit umask unalias unset wait
    if then else elif fi case esac for select while until do done in function time coproc
    { } ! [[ ]]"""
SHELL_BUILTINS = frozenset(_BUILTIN_WORDS.split())
# Characters that make a word's text differ from what bash passes (an expansion, a glob).
_EXPANDED = frozenset("$`*?[]{}~")


@dataclass(frozen=True)
class TraceProof:
    finding: Finding
    reason: str  # "the trace shows …", or why it cannot tell
    program: ExecutedProgram | None = None  # the process that ran it (`ran`, `killed`)

    @property
    def exit_code(self) -> int | None:
        return self.program.exit_code if self.program is not None else None


UNKNOWN_NO_TRACE = TraceProof("unknown", "no trace of this tool call")


def _unknown(call: TracedCall | None) -> TraceProof | None:
    if call is None:
        return UNKNOWN_NO_TRACE
    if not call.complete:
        return TraceProof("unknown", "the trace does not show this tool call whole")
    return None


def _literal(words: tuple[str, ...]) -> bool:
    return bool(words) and not any(ch in _EXPANDED for word in words for ch in word)


def _is_invocation(program: ExecutedProgram, invocation: Invocation) -> bool:
    """The process exec'd this invocation: the same words as argv, a program file of the same
    name (`exec -a python3 true x.py` passes the words but runs `true`), and every script file
    the analysis resolved among what it ran (`cd d && python3 x.py` runs `d/x.py`)."""
    if program.argv != invocation.words or not invocation.words:
        return False
    if posixpath.basename(program.path) != posixpath.basename(invocation.words[0]):
        return False
    return all(program.names(path) for path in invocation.paths if path.startswith("/"))


def _decide(found: list[ExecutedProgram], what: str, never: bool) -> TraceProof:
    exited = [p for p in found if p.exit_code is not None]
    if exited:
        return TraceProof("ran", f"the trace shows {what} ran and {exited[0].ended}", exited[0])
    killed = [p for p in found if p.signal is not None]
    if killed:
        return TraceProof(
            "killed", f"the trace shows {what} started and {killed[0].ended}", killed[0]
        )
    own_code = [p for p in found if p.agents_code]
    if own_code:
        return TraceProof("unknown", f"the trace shows {what} started and {own_code[0].ended}")
    if found:
        return TraceProof("unknown", f"the trace shows {what} started but not how it ended")
    if never:
        return TraceProof("never", f"the complete trace of its tool call shows {what} never ran")
    return TraceProof("unknown", f"the trace cannot tell whether {what} ran")


def invocation_proof(
    invocation: Invocation,
    call: TracedCall | None,
    mentions: Callable[[ExecutedProgram], bool],
) -> TraceProof:
    """Whether the trace shows `invocation` ran. `mentions`: whether a program the call ran may
    be this invocation in another spelling (the check's pattern found in its argv): then its
    absence as spelled proves nothing."""
    unknown = _unknown(call)
    if unknown is not None or call is None:
        return unknown or UNKNOWN_NO_TRACE
    what = f"`{' '.join(invocation.words)}`"
    found = [p for p in call.programs if _is_invocation(p, invocation)]
    never = (
        _literal(invocation.words)
        and invocation.words[0] not in SHELL_BUILTINS
        and not any(mentions(p) for p in call.programs)
    )
    return _decide(found, what, never)


def script_proof(path: str, invocations: list[Invocation], call: TracedCall | None) -> TraceProof:
    """Whether the trace shows the script file `path` ran: a process exec'd it, or exec'd one
    of the `invocations` the shell analysis says run it (`python3 x.py`; not `cat x.py`, which
    also names it). `never`: no process of the call even opened it (a sourced script and
    `python -m` are read, not exec'd: their runs cannot be proven here, only disproven)."""
    unknown = _unknown(call)
    if unknown is not None or call is None:
        return unknown or UNKNOWN_NO_TRACE
    found = [
        p
        for p in call.programs
        if p.path == path or any(_is_invocation(p, i) and p.names(path) for i in invocations)
    ]
    never = path not in call.paths and not any(p.names(path) for p in call.programs)
    return _decide(found, path, never)


def startup_proof(
    proof: TraceProof, startup: tuple[str, ...], call: TracedCall | None
) -> TraceProof:
    """The trace's proof for a call whose shell first read start-up files the attempt wrote:
    a program found then by its name in a file the attempt wrote (a `PATH` of its own) is the
    agent's program, not the one named; anything the trace cannot tell says why."""
    read = f"it first read {', '.join(startup)}, which the attempt wrote"
    if proof.finding == "ran" and any(python_startup(path) for path in startup):
        # The interpreter ran the agent's module before its script, in its own process: its
        # exit says nothing of the script (`os._exit(0)` there, and the script never runs).
        return TraceProof(
            "unknown",
            f"{read}: Python runs that module at start, inside the process that ran"
            f" `{' '.join(proof.program.argv) if proof.program else '?'}`, so its exit does"
            " not show what ran after",
        )
    if proof.finding == "ran" and proof.program is not None and call is not None:
        if proof.program.path in call.attempt_written:
            return TraceProof(
                "unknown",
                f"{read}, and the program that ran is {proof.program.path}, a file the attempt"
                " wrote",
            )
        return proof
    return TraceProof(
        proof.finding,
        f"{read} (a name there may not be the program it names); {proof.reason}",
        proof.program,
    )
