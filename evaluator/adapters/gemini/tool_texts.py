"""Gemini CLI's tool inputs and results, whole, from a session file (for
`evidence/tool_texts.py`): every tool call of a model message as the file last recorded it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from evaluator.adapters.gemini.normalize import result_text, session_messages
from evaluator.evidence.content import ToolText
from evaluator.evidence.jsonl import ReadStats
from evaluator.evidence.tool_texts import OutputRefs, argument_strings


def read_tool_texts(path: Path, refs: OutputRefs) -> Iterator[ToolText]:
    _, messages = session_messages(path, ReadStats())
    for line, record in messages:
        if record.get("type") != "gemini":
            continue
        for call in record.get("toolCalls") or []:
            if not isinstance(call, dict):
                continue
            for text in argument_strings(call.get("args")):
                yield ToolText("input", line, text)
            if call.get("result") is not None:
                ref = refs.get((line, str(call.get("id"))))
                yield ToolText("output", line, result_text(call.get("result")), ref)
