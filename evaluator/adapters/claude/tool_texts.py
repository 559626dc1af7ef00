"""Claude Code's tool inputs and results, whole, from a transcript (for `evidence/tool_texts.py`)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from evaluator.evidence.content import ToolText
from evaluator.evidence.jsonl import read_objects
from evaluator.evidence.tool_texts import OutputRefs, argument_strings


def read_tool_texts(path: Path, refs: OutputRefs) -> Iterator[ToolText]:
    results: dict[str, str | None] = {}  # tool call id -> the record of its result
    for line, record in read_objects(path):
        message = record.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        source = record.get("sourceToolUseID")
        if record.get("type") == "user" and isinstance(source, str):
            # What a tool added to the conversation as a message of its own: the `Skill` tool
            # answers "Launching skill: NAME", then Claude Code sends the skill's body as a
            # user (meta) message carrying the call's id. Only Claude Code writes these, and
            # the agent receives them as it receives a tool's output.
            text = _claude_result(content)
            if text and not _has_tool_result(content):
                yield ToolText("output", line, text, results.get(source))
        if not isinstance(content, list):
            continue
        for block in content:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_use":
                for text in argument_strings(block.get("input")):
                    yield ToolText("input", line, text)
            elif block.get("type") == "tool_result":
                call = str(block.get("tool_use_id"))
                ref = refs.get((line, call))
                results[call] = ref
                yield ToolText("output", line, _claude_result(block.get("content")), ref)


def _has_tool_result(content: Any) -> bool:
    return isinstance(content, list) and any(
        isinstance(b, dict) and b.get("type") == "tool_result" for b in content
    )


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
