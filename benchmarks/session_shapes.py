"""Sessions shaped like real ones, for `evidence_throughput --shape`: a Codex 0.169 rollout and a
Claude Code 2.1 transcript with a realistic mix of commands (reads, searches, listings, git,
tests, `python3 -c`, copies) and of output sizes (0.2 to 40 KB, each command's output written
twice as the CLIs do), reasoning or thinking items, token counts and the odd patch or message.
The line layouts follow the demo's saved sessions (`./dev demo`, `runs/*/accepted-session.jsonl`)
and `/work/shared/reference`; every command is distinct, as in a real session.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

OUTPUT_SIZES = (200, 1000, 2000, 3000, 4000, 8000, 16000, 40000)
SOURCE_LINE = (
    "    def method_{0}(self, value: int) -> int:  # a line of source text in the output\n"
)
TIMESTAMP = "2026-11-30T00:19:56.799Z"


def _output(index: int) -> str:
    size = OUTPUT_SIZES[index % len(OUTPUT_SIZES)] + index % 311
    return "".join(SOURCE_LINE.format(j) for j in range(size // 70 + 1))[:size]


def _command(index: int) -> str:
    i, pkg = index, index % 40
    commands = (
        f"sed -n '1,200p' src/pkg{pkg}/module_{i}.py",
        f'rg -n "def handle_{i}|class Item{i}" src tests',
        f"ls -la src/pkg{pkg}",
        f"nl -ba src/pkg{pkg}/module_{i}.py | sed -n '{i % 90 + 1},{i % 90 + 80}p'",
        "git status --short",
        f"git diff -- src/pkg{pkg}/module_{i}.py",
        f"python -m pytest tests/test_module_{i}.py -q -x 2>&1 | tail -30",
        f"find . -name '*.py' -path '*pkg{pkg}*' | head -50",
        f'grep -rn "TODO {i}" src/ | head -20',
        f'cd src/pkg{pkg} && python3 -c "import module_{i}; print(module_{i}.__doc__)"',
        f"cat docs/notes_{i}.md",
        f"wc -l src/pkg{pkg}/*.py && head -n 40 src/pkg{pkg}/module_{i}.py",
        f"mkdir -p build/out{i} && cp src/pkg{pkg}/module_{i}.py build/out{i}/",
        f"rg --files src | grep -E 'module_{i}[0-9]*\\.py$' | sort",
    )
    return commands[index % len(commands)]


def _signature(index: int, repeat: int) -> str:
    return base64.b64encode(hashlib.sha512(str(index).encode()).digest() * repeat).decode()


def _codex_turn(index: int, workspace: str) -> list[dict[str, Any]]:
    call, command, output = f"call_{index:06d}", _command(index), _output(index)
    usage = {"input_tokens": 2071, "cached_input_tokens": 0, "output_tokens": 45}
    usage |= {"reasoning_output_tokens": 0, "total_tokens": 2116}

    def line(kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        return {"timestamp": TIMESTAMP, "ordinal": index, "type": kind, "payload": payload}

    turn = [
        line(
            "response_item",
            {
                "type": "reasoning",
                "id": f"rs_{index}",
                "summary": [{"type": "summary_text", "text": f"**Inspecting module {index}**"}],
                "content": None,
                "encrypted_content": _signature(index, 24),
            },
        ),
        line(
            "response_item",
            {
                "type": "function_call",
                "id": f"fc_{call}",
                "name": "exec_command",
                "arguments": json.dumps({"cmd": command, "yield_time_ms": 10000}),
                "call_id": call,
            },
        ),
        line(
            "token_usage_record",
            {"response_id": f"resp_{index}", "usage": usage, "turn_token_usage": usage},
        ),
        line(
            "event_msg",
            {
                "type": "item_completed",
                "item": {
                    "type": "CommandExecution",
                    "id": call,
                    "command": ["/bin/bash", "-c", command],
                    "cwd": f"file://{workspace}",
                    "parsed_cmd": [{"type": "unknown", "cmd": command}],
                    "status": "completed",
                    "aggregated_output": output,
                    "exit_code": 0,
                },
            },
        ),
        line(
            "response_item",
            {
                "type": "function_call_output",
                "call_id": call,
                "output": "Chunk ID: 1\nWall time: 0.0123 seconds\nProcess exited with code 0\n"
                f"Original token count: {len(output) // 4}\nOutput:\n{output}",
            },
        ),
        line(
            "event_msg",
            {
                "type": "token_count",
                "info": {"total_token_usage": usage, "last_token_usage": usage},
                "rate_limits": {"limit_id": "codex", "primary": None, "secondary": None},
            },
        ),
    ]
    if index % 7 == 3:
        text = f"I looked at module {index}; next I check its tests."
        message = [{"type": "output_text", "text": text}]
        turn.append(
            line("response_item", {"type": "message", "role": "assistant", "content": message})
        )
    if index % 11 == 5:
        patch = f"*** Begin Patch\n*** Update File: src/m{index}.py\n@@\n-a\n+b\n*** End Patch\n"
        turn.append(
            line(
                "response_item",
                {
                    "type": "custom_tool_call",
                    "call_id": f"p{index}",
                    "name": "apply_patch",
                    "input": patch,
                },
            )
        )
    return turn


def _codex_head(workspace: str) -> list[dict[str, Any]]:
    meta = {"id": "bench", "session_id": "bench", "cwd": workspace, "cli_version": "0.169.0"}
    prompt = [{"type": "input_text", "text": "Please fix the failing tests in this repo."}]
    return [
        {"timestamp": TIMESTAMP, "type": "session_meta", "payload": meta | {"source": "exec"}},
        {"timestamp": TIMESTAMP, "type": "turn_context", "payload": {"cwd": workspace}},
        {
            "timestamp": TIMESTAMP,
            "type": "response_item",
            "payload": {"type": "message", "role": "user", "content": prompt},
        },
    ]


def _codex_tail() -> list[dict[str, Any]]:
    done = {"type": "task_complete", "last_agent_message": "done"}
    return [{"timestamp": TIMESTAMP, "type": "event_msg", "payload": done}]


_CLAUDE_BASE = {"isSidechain": False, "userType": "external", "sessionId": "bench-claude"}


def _claude_turn(index: int, workspace: str) -> list[dict[str, Any]]:
    base = _CLAUDE_BASE | {"cwd": workspace, "version": "2.1.197", "timestamp": TIMESTAMP}
    tool = f"toolu_{index:08d}"
    if index % 5 == 2:
        path = f"{workspace}/src/pkg{index % 40}/module_{index}.py"
        use = {"type": "tool_use", "id": tool, "name": "Read", "input": {"file_path": path}}
    else:
        bash = {"command": _command(index), "description": "Inspect the module"}
        use = {"type": "tool_use", "id": tool, "name": "Bash", "input": bash}
    thinking = {
        "type": "thinking",
        "thinking": "Let me look at the module first. " * 20,
        "signature": _signature(index, 8),
    }
    output = _output(index)
    result = {"tool_use_id": tool, "type": "tool_result", "content": output, "is_error": False}
    return [
        base
        | {
            "parentUuid": f"r{index - 1}",
            "type": "assistant",
            "uuid": f"a{index}",
            "message": {
                "id": f"msg_{index}",
                "type": "message",
                "role": "assistant",
                "content": [thinking, use],
                "stop_reason": "tool_use",
                "usage": {"input_tokens": 10, "cache_read_input_tokens": 30000},
            },
        },
        base
        | {
            "parentUuid": f"a{index}",
            "type": "user",
            "uuid": f"r{index}",
            "message": {"role": "user", "content": [result]},
            "toolUseResult": {"stdout": output, "stderr": "", "interrupted": False},
        },
    ]


def _claude_head(workspace: str) -> list[dict[str, Any]]:
    prompt = {"role": "user", "content": "Please fix the failing tests in this repo."}
    return [
        _CLAUDE_BASE
        | {"cwd": workspace, "type": "user", "message": prompt, "uuid": "r-1", "parentUuid": None}
        | {"version": "2.1.197", "timestamp": TIMESTAMP}
    ]


def _claude_tail() -> list[dict[str, Any]]:
    answer = {"role": "assistant", "content": [{"type": "text", "text": "done"}]}
    return [_CLAUDE_BASE | {"type": "assistant", "uuid": "end", "message": answer}]


Shape = tuple[
    Callable[[str], list[dict[str, Any]]],
    Callable[[int, str], list[dict[str, Any]]],
    Callable[[], list[dict[str, Any]]],
]
SHAPES: dict[str, Shape] = {
    "codex": (_codex_head, _codex_turn, _codex_tail),
    "claude": (_claude_head, _claude_turn, _claude_tail),
}


def write_shaped(path: Path, shape: str, megabytes: int, workspace: str) -> int:
    """Writes a session of `shape` of about `megabytes`; returns its size in bytes."""
    head, turn, tail = SHAPES[shape]
    target, written, index = megabytes * 1024 * 1024, 0, 0
    with path.open("w", encoding="utf-8") as handle:
        for record in head(workspace):
            handle.write(json.dumps(record) + "\n")
        while written < target:
            for record in turn(index, workspace):
                text = json.dumps(record, separators=(",", ":")) + "\n"
                handle.write(text)
                written += len(text)
            index += 1
        for record in tail():
            handle.write(json.dumps(record) + "\n")
    return path.stat().st_size
