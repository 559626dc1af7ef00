"""Reading an Anthropic Messages-API request (Claude Code) and writing the streamed reply.

Claude Code calls `POST /v1/messages?beta=true`, always streaming. A thread is the session
(`X-Claude-Code-Session-Id`) or, for a sub-agent, its agent id (`x-claude-code-agent-id`). A
scripted step is one assistant turn; it may hold several tool calls (an edit is `Read` then
`Edit`, because Edit refuses a file that was not read), so the thread's position is the number
of assistant turns with tool calls, and a turn's output is the joined text of its results.
"""

from __future__ import annotations

import json
import re
import shlex
from typing import Any

from evaluator.modelserver.behaviors import Step
from evaluator.modelserver.protocol import ThreadView, strings

# Claude Code prefixes context (CLAUDE.md, skill listings, reminders) to user messages.
_WORKING_DIRECTORY = re.compile(r"Primary working directory: (\S+)")
_REMINDERS = re.compile(r"^(?:\s*<system-reminder>.*?</system-reminder>)+\s*", re.S)
SUBAGENT_TYPE = "general-purpose"
# The tool `claude -p --json-schema` offers for the structured answer (the model judge's verdict):
# the CLI checks its input against the schema, and keeps asking for it until it is called.
STRUCTURED_OUTPUT_TOOL = "StructuredOutput"


def offered_tools(body: dict[str, Any]) -> set[str]:
    """The names of the tools a request offers the model."""
    tools = body.get("tools")
    if not isinstance(tools, list):
        return set()
    return {str(tool.get("name")) for tool in tools if isinstance(tool, dict)}


def _blocks(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list):
        return [block for block in content if isinstance(block, dict)]
    return []


def _result_text(content: Any) -> str:
    return "".join(str(b.get("text", "")) for b in _blocks(content) if b.get("type") == "text")


def read_messages_thread(body: dict[str, Any], headers: dict[str, str]) -> ThreadView:
    agent_id = headers.get("x-claude-code-agent-id")
    session_id = headers.get("x-claude-code-session-id")
    view = ThreadView(
        thread_id=agent_id or session_id, is_child=bool(agent_id), prompt=None, agent="claude"
    )
    # The attempt's workspace, which seeds `chance` branches as Codex's <cwd> does.
    for block in _blocks(body.get("system")):
        found = _WORKING_DIRECTORY.search(str(block.get("text", "")))
        if found:
            view.cwd = found.group(1)
            break
    turns: list[list[str]] = []
    results: dict[str, str] = {}
    shown = [*strings(body.get("system")), *strings(body.get("tools"))]
    for message in body.get("messages") or []:
        if not isinstance(message, dict):
            continue
        role = message.get("role")
        blocks = _blocks(message.get("content"))
        if not turns and role != "assistant":
            shown += [str(b.get("text", "")) for b in blocks if b.get("type") == "text"]
        if role == "user":
            for block in blocks:
                if block.get("type") == "text" and view.prompt is None:
                    text = _REMINDERS.sub("", str(block.get("text", "")), count=1)
                    if text.strip():
                        view.prompt = text
                elif block.get("type") == "tool_result":
                    results[str(block.get("tool_use_id"))] = _result_text(block.get("content"))
        elif role == "assistant":
            ids = [str(b.get("id")) for b in blocks if b.get("type") == "tool_use"]
            if ids:
                turns.append(ids)
    view.context = "\n".join(shown)
    for index, ids in enumerate(turns):
        call_id = f"turn-{index + 1}"
        view.calls.append({"call_id": call_id})
        if any(i in results for i in ids):
            view.outputs[call_id] = "\n".join(results.get(i, "") for i in ids)
    return view


def _tool(name: str, **arguments: Any) -> dict[str, Any]:
    return {"type": "tool_use", "name": name, "input": arguments}


def patch_blocks(patch: str) -> list[dict[str, Any]]:
    """An `apply_patch` body as Claude tool calls: Add File → Write, Update File → Read + one
    Edit per hunk, Delete File → `rm` through Bash."""
    blocks: list[dict[str, Any]] = []
    current: str | None = None
    added: list[str] = []
    hunk_old: list[str] = []
    hunk_new: list[str] = []
    mode = ""

    def flush_hunk() -> None:
        if current and (hunk_old or hunk_new):
            blocks.append(
                _tool(
                    "Edit",
                    file_path=current,
                    old_string="\n".join(hunk_old),
                    new_string="\n".join(hunk_new),
                )
            )
        hunk_old.clear()
        hunk_new.clear()

    def flush_file() -> None:
        if mode == "add" and current:
            blocks.append(_tool("Write", file_path=current, content="".join(added)))
        flush_hunk()
        added.clear()

    for line in patch.splitlines():
        if line.startswith(("*** Begin Patch", "*** End Patch")):
            continue
        header = re.match(r"^\*\*\* (Add|Update|Delete) File: (.+)$", line)
        if header:
            flush_file()
            mode, current = header.group(1).lower(), header.group(2).strip()
            if mode == "update":
                blocks.append(_tool("Read", file_path=current))
            elif mode == "delete":
                blocks.append(_tool("Bash", command=f"rm -- {shlex.quote(current)}"))
            continue
        if mode == "add":
            added.append(line[1:] + "\n" if line.startswith("+") else line + "\n")
        elif mode == "update":
            if line.startswith("@@"):
                flush_hunk()
            elif line.startswith("-"):
                hunk_old.append(line[1:])
            elif line.startswith("+"):
                hunk_new.append(line[1:])
            else:
                hunk_old.append(line[1:])
                hunk_new.append(line[1:])
    flush_file()
    return blocks


def step_blocks(
    step: Step, offered: set[str] | frozenset[str] = frozenset()
) -> list[dict[str, Any]]:
    """The content blocks of one scripted turn for Claude Code (a `wait` has none: the Agent
    tool already waits for its sub-agent; the server refuses it). A `final_json` is a call of
    the structured-output tool when the request offers it (`offered`), else JSON text."""
    if step.cmd is not None:
        command = (
            step.cmd if step.workdir is None else f"cd {shlex.quote(step.workdir)} && {step.cmd}"
        )
        return [_tool("Bash", command=command)]
    if step.patch is not None:
        return patch_blocks(step.patch)
    if step.read is not None:
        return [_tool("Read", file_path=step.read)]
    if step.skill is not None:
        return [_tool("Skill", skill=step.skill)]
    if step.write is not None:
        return [_tool("Write", file_path=step.write.path, content=step.write.content)]
    if step.edit is not None:
        return [
            _tool("Read", file_path=step.edit.path),
            _tool(
                "Edit", file_path=step.edit.path, old_string=step.edit.old, new_string=step.edit.new
            ),
        ]
    for name, search in (("Glob", step.glob), ("Grep", step.grep)):
        if search is not None:
            inputs: dict[str, Any] = {"pattern": search.pattern}
            if search.path is not None:
                inputs["path"] = search.path
            return [_tool(name, **inputs)]
    if step.call is not None:
        return [_tool(step.call.name, **step.call.args)]
    if step.spawn is not None:
        background = {"run_in_background": True} if step.spawn.background else {}
        return [
            _tool(
                "Agent",
                description="Run the task",
                prompt=step.spawn.message,
                subagent_type=SUBAGENT_TYPE,
                **background,
            )
        ]
    if step.final_json is not None and STRUCTURED_OUTPUT_TOOL in offered:
        return [_tool(STRUCTURED_OUTPUT_TOOL, **step.final_json)]
    text = json.dumps(step.final_json) if step.final_json is not None else step.final or ""
    return [{"type": "text", "text": text}]


def _sse(kind: str, payload: dict[str, Any]) -> bytes:
    data = json.dumps({"type": kind, **payload}, separators=(",", ":"))
    return f"event: {kind}\ndata: {data}\n\n".encode()


def messages_stream(
    message_id: str, model: str, blocks: list[dict[str, Any]], input_size: int, id_prefix: str
) -> bytes:
    """A complete SSE body: message_start, each block (start, delta, stop), message_delta with
    the stop reason and usage, message_stop."""
    input_tokens = max(1, input_size // 4)
    output_tokens = max(1, len(json.dumps(blocks)) // 4)
    usage = {"input_tokens": input_tokens, "output_tokens": 1}
    chunks = [
        _sse(
            "message_start",
            {
                "message": {
                    "id": message_id,
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": usage,
                }
            },
        )
    ]
    stop_reason = "end_turn"
    for index, block in enumerate(blocks):
        if block["type"] == "tool_use":
            stop_reason = "tool_use"
            start = {"type": "tool_use", "id": f"{id_prefix}_{index}", "name": block["name"]}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
            chunks.append(
                _sse(
                    "content_block_start", {"index": index, "content_block": {**start, "input": {}}}
                )
            )
        else:
            chunks.append(
                _sse(
                    "content_block_start",
                    {"index": index, "content_block": {"type": "text", "text": ""}},
                )
            )
            delta = {"type": "text_delta", "text": block["text"]}
        chunks.append(_sse("content_block_delta", {"index": index, "delta": delta}))
        chunks.append(_sse("content_block_stop", {"index": index}))
    chunks.append(
        _sse(
            "message_delta",
            {
                "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                "usage": {"output_tokens": output_tokens},
            },
        )
    )
    chunks.append(_sse("message_stop", {}))
    return b"".join(chunks)


def error_body(message: str, kind: str = "invalid_request_error") -> bytes:
    return json.dumps(
        {
            "type": "error",
            "error": {"type": kind, "message": f"agentic-eval scripted model: {message}"},
        }
    ).encode()
