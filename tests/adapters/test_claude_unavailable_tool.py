"""A call of a tool Claude Code does not offer in the run ran nothing, whatever its input names;
a command whose output only says the same did run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from evaluator.adapters import normalize_session
from tests.support import claude_tool_call_transcript

# What Claude Code 2.1.197 answers (its hint after the name varies with the tool and the run).
UNAVAILABLE = (
    "<tool_use_error>Error: No such tool available: {name}. {name} exists but is not enabled in"
    " this context. Use one of the tools provided.</tool_use_error>"
)


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
    ran = claude_tool_call_transcript(
        tmp_path / "ran.jsonl", workspace, name, tool_input, "Permission denied", error=True
    )
    unavailable = UNAVAILABLE.format(name=name)
    absent = claude_tool_call_transcript(
        tmp_path / "absent.jsonl", workspace, name, tool_input, unavailable, error=True
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
    session = claude_tool_call_transcript(
        tmp_path / "s.jsonl", workspace, name, tool_input, result, error=True
    )
    assert _outside_paths(session) == ["/etc/hostname"]
