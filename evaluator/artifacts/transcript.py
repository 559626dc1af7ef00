"""`transcript.md`: every attempt in event order, with thread ids, session paths and isolation."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from evaluator.artifacts.markdown_text import code_span, one_line
from evaluator.artifacts.models import Manifest
from evaluator.artifacts.record_text import (
    commands_shown,
    describe_record,
    in_transcript,
    short_text,
)
from evaluator.artifacts.rundir import RunDir
from evaluator.artifacts.trace_files import saved_trace


def _record_line(record: dict[str, Any], workspace: str, commands: frozenset[str]) -> str | None:
    if not in_transcript(record, commands):
        return None
    return f"- `{record.get('id')}` {describe_record(record, workspace).markdown()}"


def render_transcript(manifest: Manifest, run_dir: RunDir) -> str:
    lines = [
        f"# Transcript: {manifest.run_id}",
        "",
        f"Target `{manifest.target_id}`, agent {manifest.agent}, workspaces under"
        f" `{manifest.case_workspace_root}`.",
        "",
    ]
    for mismatch_case, mismatches in sorted(manifest.environment_mismatches.items()):
        for mismatch in mismatches:
            lines.append(f"- Environment mismatch in `{mismatch_case}`: {one_line(str(mismatch))}")
    for case_id in manifest.resolved_case_ids:
        attempts_dir = run_dir.case_artifacts(case_id) / "attempts"
        attempt_files = sorted(attempts_dir.glob("attempt-*/attempt.json"))
        if not attempt_files:
            continue
        lines += ["", f"## {case_id}", ""]
        for attempt_file in attempt_files:
            attempt = json.loads(attempt_file.read_text(encoding="utf-8"))
            lines += _attempt_section(attempt, attempt_file.parent)
    return "\n".join(lines).rstrip() + "\n"


def _trace_lines(attempt: dict[str, Any], directory: Path) -> list[str]:
    """The observed trace's verdict and every disagreement between trace and session."""
    layers = attempt.get("isolation_layers") or {}
    # `trace` held the report in attempt.json files written before it was `trace_report`.
    trace = attempt.get("trace_report", attempt.get("trace"))
    if not layers:
        return []
    lines = [f"- Sandbox: {layers.get('sandbox') or 'none'}"]
    if not isinstance(trace, dict):
        return [*lines, "- Trace: off (isolation from the session evidence alone)"]
    lines.append(
        f"- Trace: {trace.get('verdict')} ({trace.get('reason')});"
        f" `{saved_trace(directory, str(layers.get('trace'))).name}` beside this attempt"
    )
    private = trace.get("private_tmp") or []
    if private:
        lines.append(
            f"- Jail's private /tmp used: {', '.join(code_span(str(p)) for p in private[:5])}"
            + (f" and {len(private) - 5} more" if len(private) > 5 else "")
        )
    incidental = trace.get("incidental") or []
    if incidental:
        lines.append(
            "- Tools' own probes outside the workspace (absent configuration files, upward"
            " searches, walks to their own directories; nothing read or changed): "
            + ", ".join(code_span(str(p)) for p in incidental[:5])
            + (f" and {len(incidental) - 5} more" if len(incidental) > 5 else "")
        )
    for unresolved in trace.get("unresolved") or []:
        lines.append(f"- Trace cannot resolve: {one_line(str(unresolved))}")
    for disagreement in trace.get("disagreements") or []:
        lines.append(f"- Trace and session disagree: {one_line(str(disagreement))}")
    return lines


def _attempt_section(attempt: dict[str, Any], directory: Path) -> list[str]:
    number = attempt.get("attempt")
    status = attempt.get("status") or "-"
    validity = "valid" if attempt.get("valid") else "INVALID"
    lines = [
        f"### attempt {number:02d}: {status} ({validity})"
        if isinstance(number, int)
        else "### attempt",
        "",
        f"- Workspace: `{attempt.get('workspace_root')}`",
        f"- Thread: `{attempt.get('thread_id')}`; session: `{attempt.get('session_path')}`",
        f"- Agent exit: {attempt.get('exit_code')}, {attempt.get('duration_s') or 0:.1f}s"
        + (", timed out" if attempt.get("timed_out") else ""),
        f"- Isolation: {attempt.get('isolation') or 'not assessed'}"
        + (f" ({attempt['isolation_reason']})" if attempt.get("isolation_reason") else ""),
    ]
    if attempt.get("reason"):
        lines.append(f"- Note: {one_line(str(attempt['reason']))}")
    lines += _trace_lines(attempt, directory)
    session = directory / "accepted-session.json"
    if session.is_file():
        data = json.loads(session.read_text(encoding="utf-8"))
        if data.get("first_user_message") is not None:
            lines.append(f"- Prompt: {short_text(data['first_user_message'])}")
        lines.append("")
        records = data.get("records", [])
        commands = commands_shown(records)
        for record in records:
            line = _record_line(record, str(attempt.get("workspace_root") or ""), commands)
            if line:
                lines.append(line)
    lines.append("")
    return lines
