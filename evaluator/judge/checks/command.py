"""`command`: a shell command run after the agent, in the attempt's workspace (skill-creator's
typed `command` assertion). Its exit code and output are the evidence, kept in a record file."""

from __future__ import annotations

import hashlib
import json
import re
import shlex

from evaluator.contract.models import CommandCheck
from evaluator.judge.base import CommandOutcome, JudgeContext
from evaluator.judge.checks.registry import register_check
from evaluator.judge.checks.workspace_files import session_end
from evaluator.judge.verdict import CheckVerdict, blocked, failed, passed

KIND = "command"
OUTPUT_DIR = "{{output_dir}}"
OUTPUT_LIMIT = 20_000  # characters of output kept in the record
# A program the check's own command names, looked up on PATH, that this machine lacks
# (`/bin/sh: 1: mvn: not found`, exit 127). Not a path (`./build.sh`: a file the agent should
# have written), nor a program only a script of the agent's calls (its typo is its own).
_PROGRAM_NOT_FOUND = re.compile(r"(?m)^\S*sh: (?:\d+: )?([^\s/:]+): (?:command )?not found$")
# A package installer that could not reach its index (the jail has no network), or Debian's
# Python refusing a system-wide `pip install` (PEP 668): the machine stopped it, not the agent's
# work. Each is (what the installer printed, a sign of no network or None, why).
_INSTALLER_FAILURES: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("externally-managed-environment", (), "pip refused a system-wide install (PEP 668)"),
    (
        "No matching distribution found",
        (
            "Temporary failure in name resolution",
            "Failed to establish a new connection",
            "Network is unreachable",
            "Name or service not known",
        ),
        "pip could not reach its package index (no network here)",
    ),
    ("npm ERR!", ("EAI_AGAIN", "ENOTFOUND"), "npm could not reach its registry (no network here)"),
    ("npm error", ("EAI_AGAIN", "ENOTFOUND"), "npm could not reach its registry (no network here)"),
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
    if outcome.exit_code is None:
        why = "timed out" if outcome.timed_out else "did not finish"
        return blocked(KIND, f"{check.command!r} {why} after {check.timeout_s:g}s {where}", refs)
    tail = _tail(outcome.output)
    if outcome.exit_code == check.expect_exit_code:
        return passed(KIND, f"{check.command!r} exited {outcome.exit_code} {where}{tail}", refs)
    machine = machine_failure(check.command, outcome)
    if machine is not None:
        # Not the agent's doing: every agent would get this exit code here, so it is no verdict
        # on the agent's work (a `blocked: environment`, like a variable the run cannot supply).
        return blocked(
            KIND,
            f"{check.command!r} exited {outcome.exit_code}, expected {check.expect_exit_code},"
            f" but could not do its work here: {machine} {where}{tail}",
            refs,
            reason="environment",
        )
    return failed(
        KIND,
        f"{check.command!r} exited {outcome.exit_code}, expected {check.expect_exit_code}"
        f" {where}{tail}",
        refs,
    )


def machine_failure(command: str, outcome: CommandOutcome) -> str | None:
    """Why `command` could not do its work on this machine, when what it printed says so (a
    program it names missing from PATH, a package installer without network or refused by
    PEP 668); else None."""
    if outcome.exit_code == 127:
        for missing in _PROGRAM_NOT_FOUND.finditer(outcome.output):
            name = missing.group(1)
            if re.search(rf"(?<![\w./-]){re.escape(name)}(?![\w./-])", command):
                return f"`{name}` is not installed here"
    for printed, no_network, why in _INSTALLER_FAILURES:
        if printed in outcome.output and (
            not no_network or any(sign in outcome.output for sign in no_network)
        ):
            return why
    return None


def _tail(output: str) -> str:
    lines = [line for line in output.strip().splitlines() if line.strip()]
    if not lines:
        return "; no output"
    shown = lines[-1] if len(lines[-1]) <= 200 else lines[-1][:197] + "..."
    return f"; output ({len(lines)} line(s)) ends: {shown}"


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
    payload = {
        "command": check.command,
        "ran": ran,
        "expect_exit_code": check.expect_exit_code,
        "exit_code": outcome.exit_code,
        "timed_out": outcome.timed_out,
        "error": outcome.error,
        "where": outcome.where,
        "output": output[-OUTPUT_LIMIT:],
        "output_truncated": len(output) > OUTPUT_LIMIT,
    }
    path.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    marker = "/accepted-session.json"
    prefix = context.ref_prefix
    base = prefix[: -len(marker)] if prefix.endswith(marker) else prefix.rsplit("/", 1)[0]
    return [f"{base}/judge/{path.name}"]
