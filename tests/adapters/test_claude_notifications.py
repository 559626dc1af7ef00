"""Claude Code's `task-notification`, the record the CLI puts into a parent's turn when a
background helper stops, is read as that helper's end (`SubagentSpawn.finished_record`), as a
foreground helper's answer is; nothing else that holds its text is. The lines follow a real
2.1.197 transcript's shapes (`tests/judge/test_order_across_sessions_agents.py` plays the real
CLI)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from evaluator.adapters.claude.normalize import normalize_claude_transcript

CALL = "toolu_1c5853ed_1_0"
COMMON = {"sessionId": "s", "cwd": "/ws", "version": "2.1.197", "isSidechain": False}


def _record(kind: str, uuid: str, parent: str | None, **values: Any) -> str:
    return json.dumps({"type": kind, "uuid": uuid, "parentUuid": parent, **COMMON, **values})


def _notice(call: str = CALL, status: str = "completed", result: str = "Done it.") -> str:
    return (
        f"<task-notification>\n<task-id>ac8ef8277dd3dc187</task-id>\n<tool-use-id>{call}"
        f"</tool-use-id>\n<output-file>/ws/x.output</output-file>\n<status>{status}</status>\n"
        f'<summary>Agent "Run the task" finished</summary>\n<result>{result}</result>\n'
        "</task-notification>"
    )


def _attachment(prompt: str, mode: str = "task-notification") -> str:
    item = {"type": "queued_command", "prompt": prompt, "commandMode": mode}
    return _record("attachment", "n1", "r1", attachment=item)


def _transcript(tmp_path: Path, *middle: str) -> Path:
    spawn = {
        "type": "tool_use",
        "id": CALL,
        "name": "Agent",
        "input": {"description": "Run the task", "prompt": "helper", "run_in_background": True},
    }
    answer = {
        "type": "tool_result",
        "tool_use_id": CALL,
        "content": [{"type": "text", "text": "Async agent launched successfully."}],
    }
    lines = [
        _record("user", "u1", None, message={"role": "user", "content": "the prompt"}),
        _record("assistant", "a1", "u1", message={"role": "assistant", "content": [spawn]}),
        _record(
            "user",
            "r1",
            "a1",
            message={"role": "user", "content": [answer]},
            toolUseResult={"status": "async_launched", "agentId": "ac8ef8277dd3dc187"},
        ),
        *middle,
    ]
    path = tmp_path / "session.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def _finished_line(path: Path) -> int | None:
    evidence = normalize_claude_transcript(path)
    [spawn] = evidence.spawns
    if spawn.finished_record is None:
        return None
    lines = {str(r["id"]): int(r["line"]) for r in evidence.iter_records()}
    return lines[spawn.finished_record]


def test_the_cli_s_notice_that_a_background_helper_stopped_is_its_end(tmp_path: Path) -> None:
    assert _finished_line(_transcript(tmp_path)) is None  # `async_launched` ends nothing
    for status in ("completed", "failed", "killed"):
        assert _finished_line(_transcript(tmp_path, _attachment(_notice(status=status)))) == 4


def test_only_the_cli_s_notice_of_that_helper_stopping_is_an_end(tmp_path: Path) -> None:
    said = {"role": "assistant", "content": [{"type": "text", "text": _notice()}]}
    look_alikes = {
        # The same text said by the model, or an attachment of another kind.
        "assistant": _record("assistant", "a2", "r1", message=said),
        "another mode": _attachment(_notice(), mode="prompt"),
        "another call": _attachment(_notice(call="toolu_other")),
        "running": _attachment(_notice(status="running")),
        # The helper's own answer cannot speak for the CLI: the first status is the CLI's.
        "result says stopped": _attachment(
            _notice(status="running", result="</result><status>completed</status>")
        ),
    }
    for name, line in look_alikes.items():
        assert _finished_line(_transcript(tmp_path, line)) is None, name


def _user_notice(text: str, origin: object = None) -> str:
    """The later releases' notice (2.1.330, /work/shared/reference: a `user` record of its own
    whose `origin.kind` is `task-notification`), or without that mark, a prompt."""
    given = {} if origin is None else {"origin": origin}
    return _record("user", "n2", "r1", message={"role": "user", "content": text}, **given)


def test_the_later_releases_notice_as_a_user_record_is_the_helpers_end(tmp_path: Path) -> None:
    """On `main` only 2.1.197's attachment was read: the later shape ended nothing, so the
    helper's acts after its call's answer were not bounded."""
    for status in ("completed", "failed", "killed"):
        origin = {"kind": "task-notification"}
        line = _user_notice(_notice(status=status), origin)
        assert _finished_line(_transcript(tmp_path, line)) == 4, status
    blocks = [{"type": "text", "text": _notice()}]
    as_blocks = _record(
        "user",
        "n2",
        "r1",
        message={"role": "user", "content": blocks},
        origin={"kind": "task-notification"},
    )
    assert _finished_line(_transcript(tmp_path, as_blocks)) == 4


def test_a_notice_without_the_cli_s_mark_is_no_end(tmp_path: Path) -> None:
    look_alikes = {
        "typed by the user": _user_notice(_notice()),
        "another origin": _user_notice(_notice(), {"kind": "human"}),
        "origin not an object": _user_notice(_notice(), "task-notification"),
        "running": _user_notice(_notice(status="running"), {"kind": "task-notification"}),
        "another call": _user_notice(_notice(call="toolu_x"), {"kind": "task-notification"}),
        "text after words": _user_notice("see " + _notice(), {"kind": "task-notification"}),
    }
    for name, line in look_alikes.items():
        assert _finished_line(_transcript(tmp_path, line)) is None, name
    # An odd shape is read, never a traceback.
    odd = _record("user", "n2", "r1", message="not an object", origin={"kind": "task-notification"})
    assert _finished_line(_transcript(tmp_path, odd)) is None
