"""Codex's tool inputs and outputs, whole, from a rollout (for `evidence/tool_texts.py`)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from evaluator.adapters.codex.rollout import read_rollout
from evaluator.evidence.content import ToolText
from evaluator.evidence.tool_texts import OutputRefs, argument_strings
from evaluator.modelserver.responses_items import output_text

_OUTPUTS = ("function_call_output", "custom_tool_call_output")


def read_tool_texts(path: Path, refs: OutputRefs) -> Iterator[ToolText]:
    for entry in read_rollout(path):
        if entry.type != "response_item":
            continue
        payload = entry.payload
        kind = payload.get("type")
        if kind in _OUTPUTS:
            ref = refs.get((entry.line, str(payload.get("call_id"))))
            yield ToolText("output", entry.line, output_text(payload.get("output")), ref)
        elif kind == "function_call":
            for text in argument_strings(payload.get("arguments")):
                yield ToolText("input", entry.line, text)
        elif kind == "custom_tool_call":
            yield ToolText("input", entry.line, str(payload.get("input") or ""))
        elif kind == "local_shell_call":
            for text in argument_strings((payload.get("action") or {}).get("command")):
                yield ToolText("input", entry.line, text)
