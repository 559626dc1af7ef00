"""`command`: a shell command run after the agent, in the attempt's workspace (skill-creator's
typed `command` assertion). Its exit code and output are the evidence, kept in a record file."""

from __future__ import annotations

import hashlib
import json
import re
import shlex
from dataclasses import dataclass

from evaluator.contract.models import CommandCheck
from evaluator.judge.base import CommandOutcome, JudgeContext
from evaluator.judge.checks.registry import register_check
from evaluator.judge.checks.stop_proof import (
    left_the_machine,
    program_ran,
    session_addresses,
    session_code,
    session_words,
)
from evaluator.judge.checks.workspace_files import session_end
from evaluator.judge.verdict import CheckVerdict, blocked, failed, passed
from evaluator.vocabulary import NO_NETWORK_SIGNS

KIND = "command"
OUTPUT_DIR = "{{output_dir}}"
OUTPUT_LIMIT = 20_000  # characters of output kept in the record
# A program the check's own command names, looked up on PATH, that this machine lacks
# (`/bin/sh: 1: mvn: not found`, exit 127). Not a path (`./build.sh`: a file the agent should
# have written), nor a program only a script of the agent's calls (its typo is its own).
_PROGRAM_NOT_FOUND = re.compile(r"(?m)^\S*sh: (?:\d+: )?([^\s/:]+): (?:command )?not found$")
# What a name lookup or a connection prints when there is no network: the sign that a fetch
# failed for the machine's sake, not because the agent named a package that does not exist.
_NO_NETWORK = NO_NETWORK_SIGNS


# Gradle's `--offline` run without the artifacts it needs: it fetched nothing.
_GRADLE_OFFLINE = "available for offline mode"


@dataclass(frozen=True)
class _MachineStop:
    """A tool's failure to fetch what it needs (`printed`, a regex), which counts as the
    machine's only with one of `signs` in the output (none: `printed` alone says so).
    `fetched`: a failure to reach the network, so the tool must have tried it (a connection or
    a name lookup in its trace), unless one of `offline` says it was told not to."""

    printed: re.Pattern[str]
    signs: tuple[str, ...]
    why: str
    fetched: bool = True
    offline: tuple[str, ...] = ()


# A package installer or a build tool that could not reach its index or repository (the jail
# has no network), or Debian's Python refusing a system-wide `pip install` (PEP 668): the
# machine stopped it, not the agent's work. A tool's own failure text alone is not enough where
# a mistake of the agent prints it too (a misspelt package, a version that does not exist).
_MACHINE_STOPS: tuple[_MachineStop, ...] = (
    _MachineStop(
        re.compile("externally-managed-environment"),
        (),
        "pip refused a system-wide install (PEP 668)",
        fetched=False,
    ),
    _MachineStop(
        # the jail keeps everything but the workspace read-only: a venv or site-packages too
        re.compile("Could not install packages due to an OSError"),
        ("Read-only file system",),
        "pip could not write where it installs (read-only here)",
        fetched=False,
    ),
    _MachineStop(
        re.compile("No matching distribution found"),
        _NO_NETWORK,
        "pip could not reach its package index (no network here)",
    ),
    _MachineStop(
        re.compile("npm ERR!|npm error"),
        ("EAI_AGAIN", "ENOTFOUND"),
        "npm could not reach its registry (no network here)",
    ),
    _MachineStop(
        re.compile("Could not resolve dependencies|Could not transfer artifact"),
        _NO_NETWORK,
        "Maven could not reach its repository (no network here)",
    ),
    _MachineStop(
        # `mvn -o` with an empty local repository (every fetch here is offline anyway)
        re.compile(r"Cannot access \S+ \(\S+\) in offline mode"),
        (),
        "Maven had to work offline without the artifacts it needs",
        fetched=False,
    ),
    _MachineStop(
        re.compile(r"Could not resolve (?:all |\S+:\S+)"),
        (*_NO_NETWORK, _GRADLE_OFFLINE),
        "Gradle could not reach its repository (no network here)",
        offline=(_GRADLE_OFFLINE,),
    ),
    _MachineStop(
        # the Gradle wrapper fetching its distribution
        re.compile(r"services\.gradle\.org"),
        ("UnknownHostException",),
        "the Gradle wrapper could not download Gradle (no network here)",
    ),
    _MachineStop(
        re.compile(r"failed to get `[^`]+` as a dependency|failed to download|Unable to update"),
        (*_NO_NETWORK, "spurious network error", "Couldn't connect to server"),
        "cargo could not reach its registry (no network here)",
    ),
    _MachineStop(
        # the module proxy's protocol (`/@v/`, `/@latest`) or the checksum database
        re.compile(r'Get "https?://[^"]*(?:/@v/|/@latest|sum\.golang\.org/)[^"]*": dial tcp'),
        (),
        "go could not reach its module proxy (no network here)",
    ),
)
_PATH_AFTER_PLACEHOLDER = re.compile(r"\{\{output_dir\}\}/?([^\s'\"|;&<>()]*)")


@register_check(KIND)
def command(check: CommandCheck, context: JudgeContext) -> CheckVerdict:
    if not context.workspace_available:
        return blocked(KIND, "the attempt workspace is no longer on disk")
    if context.commands is None:
        return blocked(
            KIND, "no command runner here (commands run only while an attempt is judged)"
        )
    if context.without_content:
        # A restored snapshot lacks these files' bytes: the command would not see the agent's.
        names = ", ".join(sorted(context.without_content)[:3])
        return blocked(KIND, f"the workspace snapshot did not keep the content of {names}")
    root = context.file_root
    text = check.command.replace(OUTPUT_DIR, shlex.quote(str(root)))
    outcome = context.commands(text, root, check.timeout_s)
    session = _write_refs(check.command, context) or session_end(context)
    refs = [*session, *_record(check, text, outcome, context)]
    where = f"({outcome.where})"
    if outcome.error is not None:
        return blocked(KIND, f"could not run {check.command!r} {where}: {outcome.error}", refs)
    if outcome.timed_out:
        # What ran is the agent's work (its tests, its build, its program): a hang there is
        # the agent's failure, as an agent that outlives its own timeout is. `blocked` would
        # leave the case out of the score, so an agent could hide a failing check by hanging.
        return failed(
            KIND,
            f"{check.command!r} did not finish within {check.timeout_s:g}s {where}"
            f"{_tail(outcome.output)}",
            refs,
        )
    if outcome.exit_code is None:
        return blocked(KIND, f"{check.command!r} did not finish {where}", refs)
    tail = _tail(outcome.output)
    if outcome.exit_code == check.expect_exit_code:
        return passed(KIND, f"{check.command!r} exited {outcome.exit_code} {where}{tail}", refs)
    stop = _machine_stop(check.command, outcome)
    if stop is not None:
        machine, printed, fetched = stop
        unproven = _unproven(text, outcome, context, printed, fetched)
        if unproven is None:
            # Not the agent's doing: every agent would get this exit code here, so it is no
            # verdict on the agent's work (a `blocked: environment`, like a variable the run
            # cannot supply). The trace shows the machine stopped it before any code of the
            # session ran: the agent's code cannot have printed it.
            return blocked(
                KIND,
                f"{check.command!r} exited {outcome.exit_code}, expected"
                f" {check.expect_exit_code}, but could not do its work here: {machine} {where}"
                f"{_telling(outcome.output)}",
                refs,
                reason="environment",
            )
        return failed(
            KIND,
            f"{check.command!r} exited {outcome.exit_code}, expected {check.expect_exit_code}"
            f" {where}{tail}; its output says {machine}, but that the machine stopped it"
            f" cannot be proven: {unproven}",
            refs,
        )
    return failed(
        KIND,
        f"{check.command!r} exited {outcome.exit_code}, expected {check.expect_exit_code}"
        f" {where}{tail}",
        refs,
    )


def _unproven(
    ran: str, outcome: CommandOutcome, context: JudgeContext, printed: list[str], fetched: bool
) -> str | None:
    """Why the check's trace cannot prove that the machine stopped it before any code of the
    session ran, or None when it proves it (docs/security.md). `printed`: the output's texts
    that say the machine stopped it; `fetched`: they say a fetch failed."""
    trace = outcome.trace
    if trace is None:
        return f"the command ran without an access trace ({outcome.untraced or 'not traced'})"
    if not trace.complete:
        return "the command's access trace is incomplete"
    ran_code = session_code(trace, context, ran)
    if ran_code:
        shown = "; ".join(ran_code[:3]) + ("; ..." if len(ran_code) > 3 else "")
        return f"it ran code of the session ({shown})"
    missing = _missing_program(ran, outcome)
    if missing is not None and program_ran(trace, missing):
        return f"the trace shows `{missing}` running"
    taken = session_words(trace, context, ran, printed)
    if taken:
        shown = "; ".join(taken[:3]) + ("; ..." if len(taken) > 3 else "")
        return f"its words came from the session's files ({shown})"
    if fetched:
        chosen = session_addresses(trace, context, ran)
        if chosen:
            shown = "; ".join(chosen[:3]) + ("; ..." if len(chosen) > 3 else "")
            return f"it fetched from an address the session's files chose ({shown})"
    if fetched and not any(left_the_machine(peer) for peer in trace.network):
        # A tool that could not reach its index tried to: looked its name up or connected out.
        # Without that, what printed the text did not fetch (a tool echoing a manifest's words),
        # or fetched from this machine, whose network is not what stopped it.
        return (
            "no process of it tried to reach the network (no name lookup, no connection beyond"
            " this machine)"
        )
    return None


def _missing_program(command: str, outcome: CommandOutcome) -> str | None:
    """The program `machine_failure` found missing (exit 127), else None."""
    found = _not_found_line(command, outcome)
    return found.group(1) if found is not None else None


def _not_found_line(command: str, outcome: CommandOutcome) -> re.Match[str] | None:
    if outcome.exit_code != 127:
        return None
    for missing in _PROGRAM_NOT_FOUND.finditer(outcome.output):
        name = missing.group(1)
        if re.search(rf"(?<![\w./-]){re.escape(name)}(?![\w./-])", command):
            return missing
    return None


def machine_failure(command: str, outcome: CommandOutcome) -> str | None:
    """Why `command` could not do its work on this machine, when what it printed says so (a
    program it names missing from PATH, a package installer or build tool without network,
    pip refused by PEP 668); else None. Only what it printed: whether the machine or the
    agent's code printed it is for `_unproven` to tell."""
    stop = _machine_stop(command, outcome)
    return stop[0] if stop is not None else None


def _machine_stop(command: str, outcome: CommandOutcome) -> tuple[str, list[str], bool] | None:
    """`machine_failure`'s reason, with the texts of the output that gave it and whether they
    say a fetch failed (then the tool must have tried the network)."""
    missing = _not_found_line(command, outcome)
    if missing is not None:
        return f"`{missing.group(1)}` is not installed here", [missing.group(0)], False
    for stop in _MACHINE_STOPS:
        printed = stop.printed.search(outcome.output)
        signs = [sign for sign in stop.signs if sign in outcome.output]
        if printed and (not stop.signs or signs):
            fetched = stop.fetched and not any(sign in stop.offline for sign in signs)
            return stop.why, [printed.group(0), *signs], fetched
    return None


# Terminal colour and cursor codes (Maven colours its output even into a file).
_ANSI_ESCAPE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def _lines(output: str) -> list[str]:
    plain = _ANSI_ESCAPE.sub("", output)
    return [line.strip() for line in plain.splitlines() if line.strip()]


def _shown(line: str) -> str:
    return line if len(line) <= 200 else line[:197] + "..."


def _tail(output: str) -> str:
    lines = _lines(output)
    if not lines:
        return "; no output"
    return f"; output ({len(lines)} line(s)) ends: {_shown(lines[-1])}"


def _telling(output: str) -> str:
    """The output's line that says why the machine stopped the command (a tool's last line is
    often only a pointer to its help), else its last line."""
    lines = _lines(output)
    for stop in _MACHINE_STOPS:
        for line in lines:
            if stop.printed.search(line) and (
                not stop.signs or any(sign in output for sign in stop.signs)
            ):
                return f"; output ({len(lines)} line(s)) says: {_shown(line)}"
    return _tail(output)


def _write_refs(text: str, context: JudgeContext) -> list[str]:
    """The session's writes under the paths the command names: what the agent did that the
    command looks at (so the verdict cites the session, not only the command's output)."""
    named = [m.group(1).rstrip("/") for m in _PATH_AFTER_PLACEHOLDER.finditer(text)]
    refs: list[str] = []
    for record in context.writes():
        assert record.path is not None
        relative = context.relative(record.path)
        if relative is None:
            continue
        for prefix in named:
            if not prefix or relative == prefix or relative.startswith(prefix + "/"):
                refs.append(context.ref(record))
                break
    return list(dict.fromkeys(refs))


def _record(
    check: CommandCheck, ran: str, outcome: CommandOutcome, context: JudgeContext
) -> list[str]:
    """Keeps the command, its exit code and output beside the attempt's judge records."""
    if context.record_dir is None:
        return []
    digest = hashlib.sha256(check.command.encode("utf-8")).hexdigest()[:12]
    path = context.record_dir / f"command-{digest}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    output = outcome.output
    kept = output[-OUTPUT_LIMIT:]
    if len(output) > OUTPUT_LIMIT:
        # The cut is marked where it falls: a secret it splits (the agent's key in a file the
        # command printed) is then a part beside an ellipsis, which the redactor replaces when
        # the attempt is saved; unmarked, the part after the cut stayed in the record.
        kept = "..." + kept
    payload = {
        "command": check.command,
        "ran": ran,
        "expect_exit_code": check.expect_exit_code,
        "exit_code": outcome.exit_code,
        "timed_out": outcome.timed_out,
        "error": outcome.error,
        "where": outcome.where,
        "output": kept,
        "output_truncated": len(output) > OUTPUT_LIMIT,
    }
    path.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    marker = "/accepted-session.json"
    prefix = context.ref_prefix
    base = prefix[: -len(marker)] if prefix.endswith(marker) else prefix.rsplit("/", 1)[0]
    return [f"{base}/judge/{path.name}"]
