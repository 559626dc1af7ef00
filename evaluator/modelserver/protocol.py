"""Reading a Codex Responses-API request and writing the streamed reply."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from evaluator.modelserver.responses_items import content_text, is_injected, output_text

CWD_TAG = re.compile(r"<cwd>([^<]*)</cwd>")
# (`web_search_call`: the hosted web search the service itself runs, a step of the thread too)
TOOL_CALL_TYPES = ("function_call", "custom_tool_call", "local_shell_call", "web_search_call")


@dataclass
class ThreadView:
    """One thread's state as the request shows it; the server keeps no state of its own."""

    thread_id: str | None
    is_child: bool
    prompt: str | None
    # The attempt workspace Codex reports in its injected `<environment_context>`.
    cwd: str | None = None
    calls: list[dict[str, Any]] = field(default_factory=list)
    outputs: dict[str, Any] = field(default_factory=dict)
    agent: str = "codex"  # which protocol asked: `codex` (Responses) or `claude` (Messages)
    # What the request shows the model before the thread's first tool call: instructions,
    # tool definitions and opening messages (what `when: {request_contains: ...}` searches).
    # Requests only ever append to a thread, so every request of it gives the same text.
    context: str = ""

    @property
    def attempt_key(self) -> str:
        """`<case_id>/attempt-NN`, the tail of the attempt workspace: what seeds `chance`
        branches, the same for every request of the attempt and for a rerun of it."""
        return "/".join(PurePosixPath(self.cwd).parts[-2:]) if self.cwd else ""

    @property
    def step_index(self) -> int:
        return len(self.calls)

    def call_outputs(self) -> list[str]:
        """The text of each tool call's output, in call order ("" while none was recorded)."""
        return [output_text(self.outputs.get(str(call.get("call_id")))) for call in self.calls]

    def spawn_results(self) -> list[dict[str, Any]]:
        """The parsed output of every `spawn_agent` call (`agent_id`, `nickname`), in order."""
        results: list[dict[str, Any]] = []
        for call in self.calls:
            if call.get("name") != "spawn_agent":
                continue
            text = output_text(self.outputs.get(str(call.get("call_id"))))
            try:
                loaded = json.loads(text) if text else None
            except ValueError:
                loaded = None
            if isinstance(loaded, dict) and loaded.get("agent_id"):
                results.append(loaded)
        return results

    def spawned_agent_ids(self) -> list[str]:
        return [str(result["agent_id"]) for result in self.spawn_results()]


def read_thread(body: dict[str, Any], headers: dict[str, str]) -> ThreadView:
    metadata: dict[str, Any] = {}
    raw_meta = (body.get("client_metadata") or {}).get("x-codex-turn-metadata")
    if isinstance(raw_meta, str):
        try:
            metadata = json.loads(raw_meta)
        except ValueError:
            metadata = {}
    thread_id = headers.get("thread-id") or metadata.get("thread_id")
    is_child = bool(
        headers.get("x-openai-subagent")
        or headers.get("x-codex-parent-thread-id")
        or metadata.get("thread_source") == "subagent"
    )
    view = ThreadView(thread_id=thread_id, is_child=is_child, prompt=None)
    shown = [*strings(body.get("instructions")), *strings(body.get("tools"))]
    for item in body.get("input") or []:
        if not isinstance(item, dict):
            continue
        kind = item.get("type")
        if kind == "message" and item.get("role") != "assistant" and not view.calls:
            shown.append(content_text(item.get("content")))
        if kind == "message" and item.get("role") == "user":
            text = content_text(item.get("content"))
            if not text:
                continue
            if not is_injected(text):
                view.prompt = view.prompt or text
            elif view.cwd is None and (found := CWD_TAG.search(text)):
                view.cwd = found.group(1).strip()
        elif kind in TOOL_CALL_TYPES:
            view.calls.append(item)
        elif kind in ("function_call_output", "custom_tool_call_output"):
            view.outputs[str(item.get("call_id"))] = item.get("output")
    view.context = "\n".join(shown)
    return view


def strings(value: Any) -> list[str]:
    """Every string inside a JSON value (tool definitions, system blocks), in order."""
    found: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            found.append(item)
        elif isinstance(item, dict):
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, list):
            stack.extend(reversed(item))
    return found


def sse_event(kind: str, payload: dict[str, Any]) -> bytes:
    data = json.dumps({"type": kind, **payload}, separators=(",", ":"))
    return f"event: {kind}\ndata: {data}\n\n".encode()


def response_stream(response_id: str, items: list[dict[str, Any]], input_size: int) -> bytes:
    """A complete SSE body: created, one output_item.done per item, completed with usage."""
    chunks = [sse_event("response.created", {"response": {"id": response_id}})]
    for index, item in enumerate(items):
        chunks.append(sse_event("response.output_item.done", {"output_index": index, "item": item}))
    input_tokens = max(1, input_size // 4)
    output_tokens = max(1, len(json.dumps(items)) // 4)
    usage = {
        "input_tokens": input_tokens,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": output_tokens,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": input_tokens + output_tokens,
    }
    chunks.append(
        sse_event("response.completed", {"response": {"id": response_id, "usage": usage}})
    )
    return b"".join(chunks)
