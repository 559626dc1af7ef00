"""The trace follower tells when the agent CLI itself has ended while processes its tool calls
started go on (a server put in the background): `strace -f` waits for every one of them, so the
attempt stops them instead of waiting for its timeout."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluator.adapters.codex.trace import RECOGNIZER
from evaluator.sandbox import follow
from evaluator.sandbox.follow import TraceFollower

CLI = '7 execve("/opt/cli", ["cli"], 0x7ffe /* 7 vars */) = 0\n'
FORK = "7 clone(child_stack=NULL, flags=SIGCHLD) = 8\n"
SERVER = '8 execve("/usr/bin/python3", ["python3", "-m", "http.server"], 0x5 /* 2 vars */) = 0\n'


def _followed(tmp_path: Path, log: str) -> TraceFollower:
    """The follower after it read the whole log (the state it keeps outlives `finish()`)."""
    path = tmp_path / "trace.strace"
    path.write_text(log)
    follower = TraceFollower(path, RECOGNIZER)
    follower.finish()
    return follower


def test_processes_left_after_the_cli_exited_are_seen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(follow, "LEFTOVER_GRACE_S", 0.0)
    follower = _followed(tmp_path, CLI + FORK + SERVER + "7 +++ exited with 3 +++\n")
    assert follower.root_exit_code == 3
    assert follower.agent_left_processes()


def test_the_cli_still_running_leaves_nothing_to_stop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(follow, "LEFTOVER_GRACE_S", 0.0)
    # only the server ended: the CLI goes on
    follower = _followed(tmp_path, CLI + FORK + SERVER + "8 +++ exited with 0 +++\n")
    assert follower.root_exit_code is None
    assert not follower.agent_left_processes()


def test_the_grace_lets_a_normal_end_come_first(tmp_path: Path) -> None:
    follower = _followed(tmp_path, CLI + "7 +++ exited with 0 +++\n")
    assert follower.root_exit_code == 0
    assert not follower.agent_left_processes(), "no stop before the grace has passed"
