"""What the agent typed into its tools and what they gave back, whole and in session order.

The evidence records keep excerpts of tool inputs and outputs; deciding whether a file's content
reached the agent (`content.py`) needs them whole, so they are streamed again from the session
file, one line at a time, for either agent's format. Without the session file the records'
excerpts are used, and the caller is told they may be cut.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaluator.codex_items import output_text
from evaluator.evidence.claude import is_claude_transcript
from evaluator.evidence.content import ToolText
from evaluator.evidence.records import SessionEvidence
from evaluator.evidence.rollout import first_line, read_rollout

_EXCERPT_CUT = re.compile(r"… \[\d+ more chars\]$")
_CODEX_OUTPUTS = ("function_call_output", "custom_tool_call_output")


@dataclass
class SessionTexts:
    texts: Iterator[ToolText]
    outputs_recorded: bool  # False: the session never recorded what its tools returned
    calls: dict[str, str]  # output record id -> the id of the tool call it answers
    # Set while `texts` is read: an output was only an excerpt, and held more than it shows.
    cut: bool = False


def session_texts(evidence: SessionEvidence, session_file: Path | None) -> SessionTexts:
    """The session's tool inputs and outputs: from the session file when it is there."""
    refs: dict[tuple[int, str], str] = {}
    tool_calls = 0
    for record in evidence.iter_records():
        if record.get("kind") == "tool_result":
            refs[(int(record.get("line") or 0), str(record.get("call_id")))] = str(record["id"])
        elif record.get("kind") == "tool_call":
            tool_calls += 1
    recorded = bool(refs) or not tool_calls
    calls = {ref: call for (_, call), ref in refs.items()}
    if session_file is not None and session_file.is_file():
        if is_claude_transcript(first_line(session_file)):
            return SessionTexts(_claude(session_file, refs), recorded, calls)
        return SessionTexts(_codex(session_file, refs), recorded, calls)
    texts = SessionTexts(iter(()), recorded, calls)
    texts.texts = _excerpts(evidence, texts)
    return texts


def _strings(value: Any) -> Iterator[str]:
    """Every string inside a tool's arguments: what the agent wrote into the call. Iterative,
    and a string that holds JSON is read as that JSON: a hostile nesting depth cannot crash it."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                decoded = json.loads(item)
            except (ValueError, RecursionError):
                yield item
                continue
            if isinstance(decoded, (dict, list)):
                stack.append(decoded)
            else:
                yield item
        elif isinstance(item, dict):
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, list):
            stack.extend(reversed(item))


def _codex(path: Path, refs: dict[tuple[int, str], str]) -> Iterator[ToolText]:
    for entry in read_rollout(path):
        if entry.type != "response_item":
            continue
        payload = entry.payload
        kind = payload.get("type")
        if kind in _CODEX_OUTPUTS:
            ref = refs.get((entry.line, str(payload.get("call_id"))))
            yield ToolText("output", entry.line, output_text(payload.get("output")), ref)
        elif kind == "function_call":
            for text in _strings(payload.get("arguments")):
                yield ToolText("input", entry.line, text)
        elif kind == "custom_tool_call":
            yield ToolText("input", entry.line, str(payload.get("input") or ""))
        elif kind == "local_shell_call":
            for text in _strings((payload.get("action") or {}).get("command")):
                yield ToolText("input", entry.line, text)


def _claude(path: Path, refs: dict[tuple[int, str], str]) -> Iterator[ToolText]:
    for entry in read_rollout(path):
        message = entry.payload.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list):
            continue
        for block in content:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_use":
                for text in _strings(block.get("input")):
                    yield ToolText("input", entry.line, text)
            elif block.get("type") == "tool_result":
                ref = refs.get((entry.line, str(block.get("tool_use_id"))))
                yield ToolText("output", entry.line, _claude_result(block.get("content")), ref)


def _claude_result(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(b.get("text", ""))
            for b in content
            if isinstance(b, dict) and b.get("type") == "text"
        )
    return ""


def _excerpts(evidence: SessionEvidence, into: SessionTexts) -> Iterator[ToolText]:
    for record in evidence.iter_records():
        kind = record.get("kind")
        line = int(record.get("line") or 0)
        if kind == "tool_result":
            text = str(record.get("text") or "")
            into.cut = into.cut or _EXCERPT_CUT.search(text) is not None
            yield ToolText("output", line, text, str(record["id"]))
        elif kind == "tool_call":
            for text in _strings(record.get("text")):
                yield ToolText("input", line, text)
