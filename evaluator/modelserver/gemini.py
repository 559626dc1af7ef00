"""Reading a Gemini API request (Gemini CLI) and writing its reply.

Gemini CLI calls `POST /v1beta/models/<model>:streamGenerateContent?alt=sse` for its turns and
`:generateContent` for auxiliary calls (the routing classifier, the next-speaker check), which
ask for JSON by a response schema. The requests carry no session id: a thread is the attempt's
workspace, which the CLI names in the `<session_context>` it prefixes to the conversation. A
scripted step is one model turn (several function calls for a patch), so the thread's position
is the number of model turns with function calls. Auxiliary calls consume no step: they are
answered from their schema alone.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from typing import Any

from evaluator.modelserver.anthropic import patch_blocks
from evaluator.modelserver.behaviors import Step
from evaluator.modelserver.protocol import ThreadView, strings

_WORKSPACE = re.compile(r"\*\*Workspace Directories:\*\*\s*\n\s*-\s*(\S+)")
_CONTEXT_TAG = re.compile(r"^\s*<session_context>")
# The sub-agent mechanism: `invoke_agent` runs the named agent (the built-in `generalist` has
# every tool and takes the prompt as its whole task) until it calls `complete_task`.
INVOKE_AGENT = "invoke_agent"
SUBAGENT = "generalist"
COMPLETE_TASK = "complete_task"
# `replace` refuses a call without its `instruction` (what the edit is for).
EDIT_INSTRUCTION = "Apply the scripted edit."
# Claude-shaped patch blocks (shared with the Messages module) as Gemini CLI's own tools.
_FROM_CLAUDE = {
    "Write": ("write_file", {"file_path": "file_path", "content": "content"}),
    "Read": ("read_file", {"file_path": "file_path"}),
    "Edit": (
        "replace",
        {"file_path": "file_path", "old_string": "old_string", "new_string": "new_string"},
    ),
    "Bash": ("run_shell_command", {"command": "command"}),
}


def _parts(content: Any) -> list[dict[str, Any]]:
    parts = content.get("parts") if isinstance(content, dict) else None
    return [p for p in parts if isinstance(p, dict)] if isinstance(parts, list) else []


def is_auxiliary(body: dict[str, Any]) -> bool:
    """A call of the CLI's own (routing, next speaker, summaries), not a turn of the agent:
    it asks for JSON, or offers no tools."""
    config = body.get("generationConfig") or {}
    wants_json = bool(config.get("responseJsonSchema") or config.get("responseSchema"))
    return (
        wants_json or config.get("responseMimeType") == "application/json" or not body.get("tools")
    )


def _declares(body: dict[str, Any], tool: str) -> bool:
    for group in body.get("tools") or []:
        declarations = group.get("functionDeclarations") if isinstance(group, dict) else None
        for declaration in declarations if isinstance(declarations, list) else []:
            if isinstance(declaration, dict) and declaration.get("name") == tool:
                return True
    return False


def read_gemini_thread(body: dict[str, Any], headers: dict[str, str]) -> ThreadView:
    # A sub-agent (`invoke_agent`) is offered `complete_task`, which ends its run; the main
    # agent never is.
    view = ThreadView(
        thread_id=None, is_child=_declares(body, COMPLETE_TASK), prompt=None, agent="gemini"
    )
    shown = [*strings(body.get("systemInstruction")), *strings(body.get("tools"))]
    turns: list[list[str]] = []
    results: dict[str, str] = {}
    for content in body.get("contents") or []:
        role = content.get("role") if isinstance(content, dict) else None
        parts = _parts(content)
        if role == "user":
            for part in parts:
                text = part.get("text")
                if isinstance(text, str):
                    if not turns:
                        shown.append(text)
                    if _CONTEXT_TAG.match(text):
                        found = _WORKSPACE.search(text)
                        if found and view.cwd is None:
                            view.cwd = found.group(1)
                    elif view.prompt is None and text.strip():
                        view.prompt = text
                response = part.get("functionResponse")
                if isinstance(response, dict):
                    results[str(response.get("id"))] = _response_text(response.get("response"))
        elif role == "model":
            ids = [
                str(part["functionCall"].get("id"))
                for part in parts
                if isinstance(part.get("functionCall"), dict)
            ]
            if ids:
                turns.append(ids)
    if view.cwd is None:  # a sub-agent's workspace is named in its system instruction
        found = _WORKSPACE.search("\n".join(strings(body.get("systemInstruction"))))
        view.cwd = found.group(1) if found else None
    view.thread_id = view.cwd
    if view.is_child:  # each sub-agent a thread of its own, named by the task it was given
        digest = hashlib.sha256((view.prompt or "").encode()).hexdigest()[:12]
        view.thread_id = f"{view.cwd or ''}#sub-agent-{digest}"
    view.context = "\n".join(shown)
    for index, ids in enumerate(turns):
        call_id = f"turn-{index + 1}"
        view.calls.append({"call_id": call_id})
        if any(i in results for i in ids):
            view.outputs[call_id] = "\n".join(results.get(i, "") for i in ids)
    return view


def _response_text(response: Any) -> str:
    if isinstance(response, dict):
        for key in ("output", "error", "content"):
            if isinstance(response.get(key), str):
                return str(response[key])
    return json.dumps(response)


def _call(tool: str, **args: Any) -> dict[str, Any]:
    return {"functionCall": {"name": tool, "args": args}}


def step_parts(step: Step, is_child: bool = False) -> list[dict[str, Any]]:
    """The parts of one scripted model turn for Gemini CLI (`wait` has none: `invoke_agent`
    returns when its sub-agent is done; the server refuses it). A sub-agent's final answer is
    its `complete_task` call, which ends its run."""
    if step.spawn is not None:
        return [_call(INVOKE_AGENT, agent_name=SUBAGENT, prompt=step.spawn.message)]
    if step.cmd is not None:
        args: dict[str, Any] = {"command": step.cmd}
        if step.workdir is not None:
            args["dir_path"] = step.workdir
        return [_call("run_shell_command", **args)]
    if step.patch is not None:
        parts = []
        for block in patch_blocks(step.patch):
            name, keys = _FROM_CLAUDE[block["name"]]
            args = {new: block["input"][old] for old, new in keys.items()}
            if name == "replace":
                args["instruction"] = EDIT_INSTRUCTION
            parts.append(_call(name, **args))
        return parts
    if step.read is not None:
        return [_call("read_file", file_path=step.read)]
    if step.skill is not None:
        return [_call("activate_skill", name=step.skill)]
    if step.write is not None:
        return [_call("write_file", file_path=step.write.path, content=step.write.content)]
    if step.edit is not None:
        return [
            _call(
                "replace",
                file_path=step.edit.path,
                instruction=EDIT_INSTRUCTION,
                old_string=step.edit.old,
                new_string=step.edit.new,
            )
        ]
    if step.glob is not None:
        args = {"pattern": step.glob.pattern}
        if step.glob.path is not None:
            args["dir_path"] = step.glob.path
        return [_call("glob", **args)]
    if step.grep is not None:
        args = {"pattern": step.grep.pattern}
        if step.grep.path is not None:
            args["dir_path"] = step.grep.path
        return [_call("grep_search", **args)]
    if step.call is not None:
        return [_call(step.call.name, **step.call.args)]
    text = json.dumps(step.final_json) if step.final_json is not None else step.final or ""
    if is_child:  # `generalist`'s declared output: `{response}`
        return [_call(COMPLETE_TASK, result={"response": text})]
    return [{"text": text}]


def schema_answer(schema: Any) -> Any:
    """A value that satisfies a JSON answer schema: the routing classifier gets the simplest
    score, the next-speaker check `user` (the turn is over)."""
    if not isinstance(schema, dict):
        return None
    enum = schema.get("enum")
    if isinstance(enum, list) and enum:
        return "user" if "user" in enum else enum[0]
    kind = str(schema.get("type") or "object").lower()
    if kind == "object":
        properties = schema.get("properties") or {}
        return {key: schema_answer(value) for key, value in properties.items()}
    if kind == "array":
        return []
    if kind in ("integer", "number"):
        return int(schema.get("minimum") or 1)
    if kind == "boolean":
        return False
    return "scripted"


def auxiliary_parts(body: dict[str, Any]) -> list[dict[str, Any]]:
    config = body.get("generationConfig") or {}
    schema = config.get("responseJsonSchema") or config.get("responseSchema")
    if schema is not None or config.get("responseMimeType") == "application/json":
        return [{"text": json.dumps(schema_answer(schema) if schema else {})}]
    return [{"text": "(scripted model: no summary)"}]


def response_body(parts: list[dict[str, Any]], model: str, input_size: int) -> dict[str, Any]:
    # Function calls carry no id: the CLI numbers them itself, as it does a real model's.
    input_tokens = max(1, input_size // 4)
    output_tokens = max(1, len(json.dumps(parts)) // 4)
    return {
        "candidates": [
            {"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}
        ],
        "usageMetadata": {
            "promptTokenCount": input_tokens,
            "candidatesTokenCount": output_tokens,
            "totalTokenCount": input_tokens + output_tokens,
        },
        "modelVersion": model,
    }


def encode(response: dict[str, Any], stream: bool) -> tuple[bytes, str]:
    """The reply as one SSE event (`?alt=sse`) or a JSON body."""
    if stream:
        return f"data: {json.dumps(response)}\r\n\r\n".encode(), "text/event-stream"
    return json.dumps(response).encode(), "application/json"


def error_body(message: str, status: int = 400) -> bytes:
    return json.dumps(
        {
            "error": {
                "code": status,
                "message": f"agentic-eval scripted model: {message}",
                "status": "INVALID_ARGUMENT" if status < 500 else "INTERNAL",
            }
        }
    ).encode()


# The server's next step for a thread (or why there is none), given the request's credential.
Play = Callable[[ThreadView, str | None], tuple[Step | None, str | None]]


def answer(
    play: Play, default_model: str, body: dict[str, Any], headers: dict[str, str], path: str
) -> tuple[int, bytes, str]:
    """Returns (HTTP status, body, content type) for one Gemini API request; `play` is the
    server's step for a thread (this module never reaches into the server)."""
    stream = ":streamGenerateContent" in path
    model = path.split("/models/", 1)[-1].split(":", 1)[0] or default_model
    size = len(json.dumps(body.get("contents") or []))
    if is_auxiliary(body):
        data, kind = encode(response_body(auxiliary_parts(body), model, size), stream)
        return 200, data, kind
    view = read_gemini_thread(body, headers)
    key = headers.get("x-goog-api-key")
    credential = "sha256:" + hashlib.sha256(key.encode()).hexdigest()[:12] if key else None
    step, error = play(view, credential)
    if step is not None and step.wait is not None:
        error = "`wait` has no Gemini CLI turn: `invoke_agent` returns when its sub-agent is done"
    if error or step is None:
        return 400, error_body(error or "no step"), "application/json"
    if step.http_error is not None:
        return (
            step.http_error,
            error_body(f"scripted HTTP {step.http_error}", step.http_error),
            ("application/json"),
        )
    data, kind = encode(response_body(step_parts(step, view.is_child), model, size), stream)
    return 200, data, kind
