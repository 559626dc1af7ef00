"""The final answer Claude Code 2.1.197 printed but left out of its transcript.

The CLI writes transcript records through a queue it drains every 100 ms, and on exit appends
its `last-prompt` record synchronously. Sometimes (1 in 30 to 4 in 18 attempts of a turn that
ran `git commit`, then answered: docs/agents.md, "The final answer left out of the
transcript") it exits with the last answer still queued: its stdout stream holds the answer
and a `result` that says the turn completed, and the transcript ends with the last tool result
and a `last-prompt` whose `leafUuid` names that answer, which the file does not hold.

Only that case is repaired, after the CLI exited and before the store reads the file: the
answer is appended to the transcript as the CLI would have written it, marked with
`RECOVERED_KEY` (what and from where). Everything must agree: the stream's `result` is a
success that ended its turn, its last main-thread `assistant` event is text only, its `uuid`
is the `leafUuid` of the transcript's last `last-prompt` and is in no record, and the event
the stream printed before it is the transcript's last message. Anything else (a killed CLI,
no `result`, an error, a leaf the stream does not have) leaves the file as it is, and a
session without its final answer stays incomplete.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from evaluator.adapters.claude.stream import stream_events
from evaluator.evidence.jsonl import read_objects

RECOVERED_KEY = "agenticEvalRecovered"
MESSAGE_TYPES = ("user", "assistant")


def _final_answer(events: list[dict[str, Any]]) -> tuple[dict[str, Any], str, int] | None:
    """The last main-thread assistant event before a successful `result` that ended its turn,
    the uuid of the message event printed before it, and its line in the stream (1-based)."""
    result_at = next(
        (i for i in range(len(events) - 1, -1, -1) if events[i].get("type") == "result"), None
    )
    if result_at is None:
        return None
    result = events[result_at]
    if result.get("is_error") or result.get("subtype") != "success":
        return None
    if result.get("stop_reason") != "end_turn":
        return None
    main = [
        (i, e)
        for i, e in enumerate(events[:result_at])
        if e.get("type") in MESSAGE_TYPES and e.get("parent_tool_use_id") is None
    ]
    if len(main) < 2:
        return None
    (_, before), (at, last) = main[-2], main[-1]
    message = last.get("message")
    if last.get("type") != "assistant" or not isinstance(message, dict):
        return None
    content = message.get("content")
    if not isinstance(content, list) or not content:
        return None
    if not all(isinstance(b, dict) and b.get("type") == "text" for b in content):
        return None
    if not isinstance(last.get("uuid"), str) or not isinstance(before.get("uuid"), str):
        return None
    return last, before["uuid"], at + 1


def recover_final_message(stdout_path: Path, transcript: Path, ended_at: float) -> str | None:
    """Appends the final answer the stream printed and the transcript lacks (module docstring);
    returns what was done, or None when nothing was."""
    found = _final_answer(stream_events(stdout_path))
    if found is None:
        return None
    event, parent, line = found
    try:
        records = [r for _, r in read_objects(transcript)]
        ends_line = transcript.read_bytes()[-1:] in (b"", b"\n")
    except OSError:
        return None
    uuids = {r.get("uuid") for r in records if isinstance(r.get("uuid"), str)}
    if event["uuid"] in uuids:
        return None
    leaf = next(
        (r.get("leafUuid") for r in reversed(records) if r.get("type") == "last-prompt"), None
    )
    messages = [r for r in records if r.get("type") in MESSAGE_TYPES]
    if leaf != event["uuid"] or not messages or messages[-1].get("uuid") != parent:
        return None
    previous = messages[-1]
    message = dict(event["message"])
    message["stop_reason"] = "end_turn"  # the stream's `result` says the turn ended so
    record: dict[str, Any] = {
        "parentUuid": parent,
        "isSidechain": False,
        "message": message,
        "type": "assistant",
        "uuid": event["uuid"],
        # The stream gives no time: the CLI's exit is the latest it can have been written.
        "timestamp": datetime.fromtimestamp(ended_at, timezone.utc)
        .isoformat()
        .replace("+00:00", "Z"),
        **{k: previous[k] for k in ("userType", "cwd", "sessionId", "version") if k in previous},
        RECOVERED_KEY: {
            "from": stdout_path.name,
            "line": line,
            "reason": "the CLI exited with this answer unwritten; its last-prompt names it",
        },
    }
    try:
        with transcript.open("a", encoding="utf-8") as handle:
            handle.write(("" if ends_line else "\n") + json.dumps(record) + "\n")
    except OSError:
        return None
    return f"final answer {event['uuid']} recovered from {stdout_path.name} line {line}"
