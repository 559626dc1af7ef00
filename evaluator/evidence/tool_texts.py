"""What the agent typed into its tools and what they gave back, whole and in session order.

The evidence records keep excerpts of tool inputs and outputs; deciding whether a file's content
reached the agent (`content.py`) needs them whole: those the normaliser kept while it read the
session (`SessionEvidence.tool_texts`, Codex, a file up to `KEPT_TOOL_TEXT_BYTES`), else streamed again
from the session file, one line at a time, by the reader of the agent's own format (its
adapter's `tool_texts`, handed over as a `ToolTextSource`). Without the session file the
records' excerpts are used, and the caller is told they may be cut.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaluator.evidence.content import ToolText
from evaluator.evidence.jsonl import loads
from evaluator.evidence.records import SessionEvidence

_EXCERPT_CUT = re.compile(r"… \[\d+ more chars\]$")
# (session line, call id) -> the id of the output's `tool_result` record, for citations.
OutputRefs = dict[tuple[int, str], str]
ToolTextReader = Callable[[Path, OutputRefs], Iterator[ToolText]]


@dataclass(frozen=True)
class ToolTextSource:
    """A session file and the reader of its agent's format."""

    path: Path
    read: ToolTextReader


@dataclass
class SessionTexts:
    texts: Iterator[ToolText]
    outputs_recorded: bool  # False: the session never recorded what its tools returned
    calls: dict[str, str]  # output record id -> the id of the tool call it answers
    # Set while `texts` is read: an output was only an excerpt, and held more than it shows.
    cut: bool = False


def session_texts(evidence: SessionEvidence, source: ToolTextSource | None) -> SessionTexts:
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
    if source is not None and source.path.is_file():
        if evidence.tool_texts is not None and str(source.path) == evidence.session_path:
            return SessionTexts(_kept(evidence.tool_texts, refs), recorded, calls)
        return SessionTexts(source.read(source.path, refs), recorded, calls)
    texts = SessionTexts(iter(()), recorded, calls)
    texts.texts = _excerpts(evidence, texts)
    return texts


def _kept(texts: list[tuple[ToolText, str]], refs: OutputRefs) -> Iterator[ToolText]:
    """The texts the reading of the session kept, each output with the record that cites it."""
    for text, call_id in texts:
        if text.kind == "output":
            yield ToolText("output", text.line, text.text, refs.get((text.line, call_id)))
        else:
            yield text


def argument_strings(value: Any) -> Iterator[str]:
    """Every string inside a tool's arguments: what the agent wrote into the call. Iterative,
    and a string that holds JSON is read as that JSON: a hostile nesting depth cannot crash it."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                decoded = loads(item)
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


def _excerpts(evidence: SessionEvidence, into: SessionTexts) -> Iterator[ToolText]:
    for record in evidence.iter_records():
        kind = record.get("kind")
        line = int(record.get("line") or 0)
        if kind == "tool_result":
            text = str(record.get("text") or "")
            into.cut = into.cut or _EXCERPT_CUT.search(text) is not None
            yield ToolText("output", line, text, str(record["id"]))
        elif kind == "tool_call":
            for text in argument_strings(record.get("text")):
                yield ToolText("input", line, text)
