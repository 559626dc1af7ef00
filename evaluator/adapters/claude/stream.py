"""Claude Code's `--output-format stream-json` output: the events it printed, one JSON object a
line (what the runner reads for the session's id and skills, and what a final answer the CLI
left unwritten is recovered from)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def stream_events(stdout_path: Path) -> list[dict[str, Any]]:
    """The objects of the stream, in order; a line that is no JSON object is skipped (the CLI
    may have been killed mid-line), an unreadable file is no events."""
    try:
        lines = stdout_path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
    events = []
    for line in lines:
        try:
            event = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if isinstance(event, dict):
            events.append(event)
    return events
