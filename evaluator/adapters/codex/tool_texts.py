"""Codex's tool inputs and outputs, whole, from a rollout (for `evidence/tool_texts.py`)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from evaluator.adapters.codex.rollout import RolloutEntry, read_rollout
from evaluator.evidence.content import ToolText
from evaluator.evidence.tool_texts import OutputRefs, argument_strings
from evaluator.modelserver.responses_items import output_text

_OUTPUTS = ("function_call_output", "custom_tool_call_output")


def read_tool_texts(path: Path, refs: OutputRefs) -> Iterator[ToolText]:
    for entry in read_rollout(path):
        for text, call_id in entry_tool_texts(entry):
            if text.kind == "output":
                yield ToolText("output", text.line, text.text, refs.get((text.line, call_id)))
            else:
                yield text


def entry_tool_texts(entry: RolloutEntry) -> Iterator[tuple[ToolText, str]]:
    """The tool inputs and outputs one rollout entry holds, each with the call id an output
    answers (its `ref` is the caller's: the evidence record that cites it)."""
    if entry.type != "response_item":
        return
    payload = entry.payload
    kind = payload.get("type")
    if kind in _OUTPUTS:
        call_id = str(payload.get("call_id"))
        yield ToolText("output", entry.line, output_text(payload.get("output"))), call_id
    elif kind == "function_call":
        for text in argument_strings(payload.get("arguments")):
            yield ToolText("input", entry.line, text), ""
    elif kind == "custom_tool_call":
        yield ToolText("input", entry.line, str(payload.get("input") or "")), ""
    elif kind == "local_shell_call":
        for text in argument_strings((payload.get("action") or {}).get("command")):
            yield ToolText("input", entry.line, text), ""
