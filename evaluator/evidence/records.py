"""Normalised session evidence: ordered records with stable ids, each pointing at its source line."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

RECORD_KINDS = (
    "session_start",
    "tool_call",
    "tool_result",
    "tool_workdir_observed",
    "command_observed",
    "file_read_observed",
    "file_write_observed",
    "isolation_violation",
    "final_answer",
    "session_end",
)
# Sources of a working directory that come from what really ran, not from what was assumed.
RELIABLE_CWD_SOURCES = (
    "item-cwd",
    "workdir-arg",
    "pwd-output",
    "exec-begin-cwd",
    "local-shell-workdir",
)


@dataclass
class EvidenceRecord:
    id: str
    kind: str
    line: int
    timestamp: str | None = None
    call_id: str | None = None
    tool: str | None = None
    command: str | None = None
    workdir: str | None = None
    path: str | None = None
    access: str | None = None
    source: str | None = None
    exit_code: int | None = None
    text: str | None = None
    detail: str | None = None
    ref: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is not None:
                out[f.name] = value
        return out


@dataclass
class SessionEvidence:
    session_path: str
    thread_id: str | None = None
    session_id: str | None = None
    parent_thread_id: str | None = None
    agent_nickname: str | None = None
    cwd: str | None = None
    cli_version: str | None = None
    originator: str | None = None
    first_user_message: str | None = None
    final_answer: str | None = None
    complete: bool = False
    aborted: bool = False
    token_usage: dict[str, Any] | None = None
    records: list[EvidenceRecord] = field(default_factory=list)
    opaque: list[tuple[str, str]] = field(default_factory=list)
    line_count: int = 0
    bad_lines: int = 0
    unknown_types: dict[str, int] = field(default_factory=dict)

    def add(self, kind: str, line: int, **values: Any) -> EvidenceRecord:
        record = EvidenceRecord(id=f"msg-{len(self.records) + 1}", kind=kind, line=line, **values)
        self.records.append(record)
        return record

    def of_kind(self, *kinds: str) -> list[EvidenceRecord]:
        return [r for r in self.records if r.kind in kinds]

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SessionEvidence:
        """Reads back `accepted-session.json` (what `agentic-eval judge` re-judges from)."""
        names = {f.name for f in fields(EvidenceRecord)}
        evidence = cls(session_path=str(data.get("session_path", "")))
        for key in (
            "thread_id",
            "session_id",
            "parent_thread_id",
            "agent_nickname",
            "cwd",
            "cli_version",
            "originator",
            "first_user_message",
            "final_answer",
            "token_usage",
        ):
            setattr(evidence, key, data.get(key))
        evidence.complete = bool(data.get("complete"))
        evidence.aborted = bool(data.get("aborted"))
        evidence.line_count = int(data.get("line_count") or 0)
        evidence.bad_lines = int(data.get("bad_lines") or 0)
        evidence.unknown_types = dict(data.get("unknown_types") or {})
        evidence.opaque = [(o["ref"], o["reason"]) for o in data.get("opaque") or []]
        evidence.records = [
            EvidenceRecord(**{k: v for k, v in r.items() if k in names})
            for r in data.get("records") or []
        ]
        return evidence

    def to_json(self) -> dict[str, Any]:
        return {
            "format": "agentic-eval/accepted-session@1",
            "session_path": self.session_path,
            "thread_id": self.thread_id,
            "session_id": self.session_id,
            "parent_thread_id": self.parent_thread_id,
            "agent_nickname": self.agent_nickname,
            "cwd": self.cwd,
            "cli_version": self.cli_version,
            "originator": self.originator,
            "first_user_message": self.first_user_message,
            "final_answer": self.final_answer,
            "complete": self.complete,
            "aborted": self.aborted,
            "token_usage": self.token_usage,
            "line_count": self.line_count,
            "bad_lines": self.bad_lines,
            "unknown_types": self.unknown_types,
            "opaque": [{"ref": ref, "reason": reason} for ref, reason in self.opaque],
            "records": [r.to_json() for r in self.records],
        }
