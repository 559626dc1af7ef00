"""One record of the agent's session in words: the one description `transcript.md` and
`report.html` both show (each styles the `code` part its own way). Whatever the agent wrote
(a command, a path, a tool's name, its final answer) is the `code` part, which the Markdown shows
as one code span on one line (`markdown_text`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from evaluator.artifacts.markdown_text import code_span, one_line

MAX_TEXT = 300


def short_path(path: object, workspace: str) -> str:
    """Workspace paths as `./relative`; anything else (outside!) stays absolute."""
    text = str(path)
    if workspace and text == workspace:
        return "."
    if workspace and text.startswith(workspace.rstrip("/") + "/"):
        return "./" + text[len(workspace.rstrip("/")) + 1 :]
    return text


@dataclass(frozen=True)
class RecordText:
    """`lead`, then `code` (a command or a path, shown as code), then `tail`."""

    lead: str
    code: str | None = None
    tail: str = ""
    alert: str | None = None  # a label that must stand out (an isolation violation)

    def plain(self) -> str:
        label = f"{self.alert}: " if self.alert else ""
        return f"{label}{self.lead}{self.code or ''}{self.tail}"

    def markdown(self) -> str:
        label = f"**{self.alert}** " if self.alert else ""
        body = (
            f"{self.lead}{code_span(self.code)}{self.tail}" if self.code is not None else self.lead
        )
        return label + body


def short_text(text: object) -> str:
    """One line: line breaks shown as ⏎, cut after MAX_TEXT characters."""
    if not text:
        return ""
    flat = one_line(str(text))
    return flat if len(flat) <= MAX_TEXT else flat[:MAX_TEXT] + "…"


def describe_record(record: dict[str, Any], workspace: str) -> RecordText:
    kind = record.get("kind")
    path = short_path(record.get("path"), workspace)
    if kind == "command_observed":
        code = record.get("exit_code")
        where = short_path(record.get("workdir"), workspace)
        exit_note = f", exit {code}" if code is not None else ""
        exit_note += ", failed" if code not in (None, 0) else ""
        return RecordText("$ ", short_text(record.get("command")), f" (in {where}{exit_note})")
    if kind in ("file_read_observed", "file_write_observed"):
        outcome = f", {record['outcome']}" if record.get("outcome") else ""
        return RecordText(f"{record.get('access')} ", path, f" ({record.get('source')}{outcome})")
    if kind == "tool_workdir_observed":
        return RecordText("cwd ", path, f" ({record.get('source')})")
    if kind == "isolation_violation":
        return RecordText(
            f"{record.get('access')} ",
            path,
            f" (see {record.get('ref')})",
            alert="isolation violation",
        )
    if kind == "final_answer":
        return RecordText("final answer: ", short_text(record.get("text")))
    if kind in ("session_start", "session_end"):
        # Our words about the session file (its thread, CLI version, folder), on one line.
        return RecordText(f"{str(kind).replace('_', ' ')}: {short_text(record.get('detail'))}")
    if kind == "tool_call":
        return RecordText("tool call ", str(record.get("tool")))
    if kind == "tool_result":
        code = record.get("exit_code")
        return RecordText("tool result" + (f", exit {code}" if code is not None else ""))
    detail = short_text(record.get("detail"))
    return RecordText("", detail) if detail else RecordText("")


# What `transcript.md` lists (report.html shows every record).
TRANSCRIPT_KINDS = (
    "command_observed",
    "file_read_observed",
    "file_write_observed",
    "tool_workdir_observed",
    "isolation_violation",
    "final_answer",
    "session_start",
    "session_end",
    "tool_call",
)


def in_transcript(record: dict[str, Any], shown_as_commands: frozenset[str]) -> bool:
    """Whether `transcript.md` lists the record: not a tool call it shows by its command
    (`shown_as_commands` holds their call ids), nor a tool result."""
    kind = record.get("kind")
    if kind == "tool_call":
        return record.get("call_id") not in shown_as_commands
    return kind in TRANSCRIPT_KINDS


def failed_tool_calls(records: list[dict[str, Any]], workspace: str) -> list[str]:
    """The agent's tool calls that did not take effect, one line each, session order: a command
    that exited non-zero, a patch that did not apply, a call the agent CLI refused."""
    found: list[str] = []
    seen: set[str] = set()
    for record in records:
        kind, rid = record.get("kind"), record.get("id")
        key = str(record.get("call_id") or rid)
        if key in seen:
            continue
        if kind == "command_observed" and record.get("exit_code") not in (None, 0):
            command = short_text(record.get("command"))
            found.append(f"`{rid}` {code_span(command)} exited {record['exit_code']}")
        elif kind == "file_write_observed" and record.get("outcome") == "failed":
            path = short_path(record.get("path"), workspace)
            found.append(f"`{rid}` the write to {code_span(path)} did not take effect")
        elif kind == "tool_denied":
            found.append(f"`{rid}` the agent CLI refused {code_span(str(record.get('tool')))}")
        else:
            continue
        seen.add(key)
    return found


def commands_shown(records: list[dict[str, Any]]) -> frozenset[str]:
    """The call ids of tool calls a session shows by the command they ran."""
    return frozenset(
        str(r["call_id"])
        for r in records
        if r.get("kind") == "command_observed" and r.get("call_id")
    )
