"""Claude Code's tool inputs and results, whole, from a transcript (for `evidence/tool_texts.py`)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from evaluator.evidence.content import ToolText
from evaluator.evidence.jsonl import read_objects
from evaluator.evidence.tool_texts import OutputRefs, argument_strings


def read_tool_texts(path: Path, refs: OutputRefs) -> Iterator[ToolText]:
    for line, record in read_objects(path):
        message = record.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list):
            continue
        for block in content:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_use":
                for text in argument_strings(block.get("input")):
                    yield ToolText("input", line, text)
            elif block.get("type") == "tool_result":
                ref = refs.get((line, str(block.get("tool_use_id"))))
                yield ToolText("output", line, _claude_result(block.get("content")), ref)


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
