"""A call of a tool Claude Code does not offer in the run ran nothing, whatever its input names;
a command whose output only says the same did run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evaluator.adapters import normalize_session

UNAVAILABLE = "<tool_use_error>Error: No such tool available: {name}.</tool_use_error>"


def _transcript(
    path: Path, workspace: Path, name: str, tool_input: dict[str, Any], result: str
) -> Path:
    common = {"sessionId": "s1", "cwd": str(workspace), "version": "2.1.197"}
    use = {"type": "tool_use", "id": "toolu_1", "name": name, "input": tool_input}
    answer = {"type": "tool_result", "tool_use_id": "toolu_1", "content": result, "is_error": True}
    lines: list[dict[str, Any]] = [
        {"type": "user", "uuid": "u1", "message": {"role": "user", "content": "Go."}},
        {"type": "assistant", "uuid": "a1", "message": {"id": "m1", "content": [use]}},
        {"type": "user", "uuid": "u2", "message": {"role": "user", "content": [answer]}},
        {
            "type": "assistant",
            "uuid": "a2",
            "message": {"id": "m2", "content": [{"type": "text", "text": "Done."}]},
        },
    ]
    path.write_text("".join(json.dumps(common | line) + "\n" for line in lines))
    return path


def _outside_paths(session: Path) -> list[str]:
    evidence = normalize_session(session)
    return [
        r.path
        for r in evidence.records
        if r.path is not None and r.path.startswith("/etc/") and r.kind != "session_start"
    ]


@pytest.mark.parametrize(
    ("name", "tool_input"),
    [
        ("Read", {"file_path": "/etc/hostname"}),
        ("NotebookEdit", {"notebook_path": "/etc/hostname"}),
        ("Grep", {"pattern": "x", "path": "/etc/hostname"}),
    ],
)
def test_a_tool_the_cli_does_not_offer_ran_nothing(
    name: str, tool_input: dict[str, Any], tmp_path: Path
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    ran = _transcript(tmp_path / "ran.jsonl", workspace, name, tool_input, "Permission denied")
    absent = _transcript(
        tmp_path / "absent.jsonl", workspace, name, tool_input, UNAVAILABLE.format(name=name)
    )
    assert _outside_paths(ran) == ["/etc/hostname"]
    assert _outside_paths(absent) == []


@pytest.mark.parametrize(
    ("name", "tool_input", "result"),
    [
        # the answer names another tool than the call's
        ("Read", {"file_path": "/etc/hostname"}, UNAVAILABLE.format(name="Bash")),
        # a command printed it
        (
            "Bash",
            {"command": "cat /etc/hostname"},
            "Exit code 1\n" + UNAVAILABLE.format(name="Bash"),
        ),
        # not the whole answer
        ("Read", {"file_path": "/etc/hostname"}, UNAVAILABLE.format(name="Read") + "\nmore"),
    ],
)
def test_only_the_clis_own_answer_for_that_tool_means_it_ran_nothing(
    name: str, tool_input: dict[str, Any], result: str, tmp_path: Path
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    session = _transcript(tmp_path / "s.jsonl", workspace, name, tool_input, result)
    assert _outside_paths(session) == ["/etc/hostname"]
