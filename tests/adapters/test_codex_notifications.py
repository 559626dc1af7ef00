"""Codex's `<subagent_notification>`, the user-role item Codex puts into a parent's turn when a
helper ends, is read as that helper's end (`SubagentSpawn.finished_record`), as a wait's output
is; nothing else that holds its text is. The lines follow a real 0.169.0 rollout's shapes
(`tests/judge/test_order_across_sessions_agents.py` plays the real CLI)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from evaluator.adapters.codex.normalize import normalize_codex_rollout

CHILD = "01a22c28-d85c-7c11-bd08-206ea8a2e200"
OTHER = "01a22c28-0000-7000-8000-000000000000"


def _line(kind: str, payload: dict[str, Any]) -> str:
    return json.dumps({"timestamp": "2026-11-30T11:13:24.000Z", "type": kind, "payload": payload})


def _message(role: str, text: str, kinds: list[str] | None = None) -> str:
    item: dict[str, Any] = {
        "type": "message",
        "role": role,
        "content": [{"type": "input_text", "text": text}],
    }
    if kinds is not None:
        item["internal_chat_message_metadata_passthrough"] = {"content_item_kinds": kinds}
    return _line("response_item", item)


def _notice(child: str, state: dict[str, str]) -> str:
    body = json.dumps({"agent_path": child, "status": state})
    return f"<subagent_notification>\n{body}\n</subagent_notification>"


def _rollout(tmp_path: Path, *middle: str) -> Path:
    lines = [
        _line(
            "session_meta", {"id": "p", "cwd": "/ws", "cli_version": "0.169.0", "source": "exec"}
        ),
        _message("user", "the prompt"),
        _line(
            "response_item",
            {
                "type": "function_call",
                "name": "spawn_agent",
                "namespace": "multi_agent_v1",
                "arguments": json.dumps({"message": "helper task", "fork_context": False}),
                "call_id": "c1",
            },
        ),
        _line(
            "response_item",
            {
                "type": "function_call_output",
                "call_id": "c1",
                "output": json.dumps({"agent_id": CHILD, "nickname": "Aristotle"}),
            },
        ),
        *middle,
    ]
    path = tmp_path / "rollout.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def _finished_line(path: Path) -> int | None:
    evidence = normalize_codex_rollout(path)
    [spawn] = evidence.spawns
    assert spawn.child_id == CHILD
    if spawn.finished_record is None:
        return None
    lines = {str(r["id"]): int(r["line"]) for r in evidence.iter_records()}
    return lines[spawn.finished_record]


KIND = ["multi_agent.subagent_notification"]


def test_codex_s_notice_that_the_helper_completed_is_its_end(tmp_path: Path) -> None:
    for state in ({"completed": "Done it."}, {"errored": "boom"}, {"shutdown": ""}):
        path = _rollout(tmp_path, _message("user", _notice(CHILD, state), KIND))
        assert _finished_line(path) == 5, state


def test_only_codex_s_own_notice_of_that_helper_s_end_is_an_end(tmp_path: Path) -> None:
    exec_call = {"type": "function_call", "name": "exec_command", "call_id": "c2"}
    exec_call["arguments"] = json.dumps({"cmd": "cat notice.txt"})
    look_alikes = {
        # The same text in a tool's output (the agent printed it) or said by the model.
        "tool output": [
            _line("response_item", exec_call),
            _line(
                "response_item",
                {
                    "type": "function_call_output",
                    "call_id": "c2",
                    "output": _notice(CHILD, {"completed": "x"}),
                },
            ),
        ],
        "assistant": [_message("assistant", _notice(CHILD, {"completed": "x"}))],
        # A user-role item without Codex's mark (a prompt written to look like one).
        "unmarked": [_message("user", _notice(CHILD, {"completed": "x"}))],
        "another helper": [_message("user", _notice(OTHER, {"completed": "x"}), KIND)],
        "still running": [_message("user", _notice(CHILD, {"running": ""}), KIND)],
        "not JSON": [
            _message("user", "<subagent_notification>\n{oops\n</subagent_notification>", KIND)
        ],
    }
    for name, lines in look_alikes.items():
        assert _finished_line(_rollout(tmp_path, *lines)) is None, name
