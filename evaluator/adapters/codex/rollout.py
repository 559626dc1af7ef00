"""Streaming a Codex rollout JSONL file into uniform (line, type, payload) entries.

Accepts the 0.169 envelope, the older envelope without `ordinal`, and the oldest layout (a bare
header line, then bare ResponseItems and `record_type` markers). A truncated or non-JSON line is
counted, never fatal.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaluator.evidence.jsonl import ReadStats, first_object, read_objects

RESPONSE_ITEM_TYPES = {
    "message",
    "function_call",
    "function_call_output",
    "custom_tool_call",
    "custom_tool_call_output",
    "local_shell_call",
    "reasoning",
    "web_search_call",
    "additional_tools",
    "agent_message",
}


@dataclass(slots=True)
class RolloutEntry:
    line: int
    type: str
    payload: dict[str, Any]
    timestamp: str | None


def read_rollout(path: Path, stats: ReadStats | None = None) -> Iterator[RolloutEntry]:
    for number, record in read_objects(path, stats):
        entry = rollout_entry(number, record)
        if entry is not None:
            yield entry


def rollout_entry(number: int, record: dict[str, Any]) -> RolloutEntry | None:
    """The entry of one decoded line, None for a line that is none (a state marker)."""
    kind = record.get("type")
    payload = record.get("payload")
    if isinstance(kind, str) and isinstance(payload, dict):
        return RolloutEntry(number, kind, payload, record.get("timestamp"))
    if "record_type" in record:
        return None  # oldest layout's state markers
    if number == 1 and "id" in record and ("instructions" in record or "timestamp" in record):
        # Oldest layout: a bare header stands for session_meta.
        return RolloutEntry(number, "session_meta", record, record.get("timestamp"))
    if isinstance(kind, str) and kind in RESPONSE_ITEM_TYPES:
        return RolloutEntry(number, "response_item", record, record.get("timestamp"))
    return RolloutEntry(number, str(kind or "unknown"), record, record.get("timestamp"))


def first_line(path: Path) -> dict[str, Any] | None:
    """Only the first record of a rollout: enough to know its thread, parent and start time."""
    record = first_object(path)
    if record is None:
        return None
    payload = record.get("payload")
    return payload if record.get("type") == "session_meta" and isinstance(payload, dict) else record
