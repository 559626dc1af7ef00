"""The trace follower tells when the agent CLI itself has ended while processes its tool calls
started go on (a server put in the background): `strace -f` waits for every one of them, so the
attempt stops them instead of waiting for its timeout."""

from __future__ import annotations

import os
import select
import sys
import threading
import time
from pathlib import Path

import pytest

from evaluator.adapters.codex.trace import RECOGNIZER
from evaluator.agents.base import AgentHandle
from evaluator.agents.process import ProcessOutcome, run_process
from evaluator.pipeline.attempt import settle_left_processes
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


def test_a_cli_killed_by_a_signal_did_not_end_on_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The tracer prints the signals that kill (real-repos round 4), so a CLI the attempt
    stopped (a trigger run's stop at the decision, a timeout) ends in the log: that is no exit
    of its own, so nothing is settled as if it were (`stopped_at_decision` stays true)."""
    monkeypatch.setattr(follow, "LEFTOVER_GRACE_S", 0.0)
    follower = _followed(tmp_path, CLI + FORK + SERVER + "7 +++ killed by SIGTERM +++\n")
    assert not follower.agent_exited
    assert follower.root_exit_code is None
    assert not follower.agent_left_processes()


def test_the_grace_lets_a_normal_end_come_first(tmp_path: Path) -> None:
    follower = _followed(tmp_path, CLI + "7 +++ exited with 0 +++\n")
    assert follower.root_exit_code == 0
    assert not follower.agent_left_processes(), "no stop before the grace has passed"


def _readable(fd: int, timeout_s: float) -> bool:
    return bool(select.select([fd], [], [], timeout_s)[0])


def test_the_stop_descriptor_becomes_readable_once_processes_are_left(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The attempt's wait sleeps on `stop_fd` (no polling): the follower makes it readable
    while the log is still open, once the CLI exited and the grace has passed."""
    monkeypatch.setattr(follow, "LEFTOVER_GRACE_S", 0.0)
    path = tmp_path / "trace.strace"
    path.write_text(CLI + FORK + SERVER)
    follower = TraceFollower(path, RECOGNIZER)
    try:
        assert not _readable(follower.stop_fd, 3 * follow.POLL_S), "the CLI still runs"
        with path.open("a") as log:
            log.write("7 +++ exited with 0 +++\n")
        assert _readable(follower.stop_fd, 10.0)
    finally:
        follower.finish()
    assert follower.root_exit_code == 0


def test_a_normal_end_never_signals_a_stop(tmp_path: Path) -> None:
    path = tmp_path / "trace.strace"
    path.write_text(CLI + "7 +++ exited with 0 +++\n")
    follower = TraceFollower(path, RECOGNIZER)
    try:
        assert not _readable(follower.stop_fd, 3 * follow.POLL_S), "within the grace"
    finally:
        follower.finish()


def test_an_agent_is_stopped_when_its_stop_descriptor_becomes_readable(tmp_path: Path) -> None:
    def run(code: str, stop_fd: int) -> ProcessOutcome:
        return run_process(
            [sys.executable, "-c", code],
            cwd=tmp_path,
            env={},
            stdin_text="",
            stdout_path=tmp_path / "out",
            stderr_path=tmp_path / "err",
            timeout_s=600,
            stop_fd=stop_fd,
        )

    read_end, write_end = os.pipe()
    try:
        threading.Timer(0.2, os.write, (write_end, b"!")).start()
        stopped = run("import time; time.sleep(600)", read_end)
        assert stopped.stopped and stopped.killed and not stopped.timed_out
        # With a polled condition too (a trigger-only attempt's), the descriptor still stops it.
        both = run_process(
            [sys.executable, "-c", "import time; time.sleep(600)"],
            cwd=tmp_path,
            env={},
            stdin_text="",
            stdout_path=tmp_path / "out",
            stderr_path=tmp_path / "err",
            timeout_s=600,
            stop_when=lambda: False,
            stop_fd=read_end,  # still readable
        )
        assert both.stopped and not both.timed_out
        quiet_read, quiet_write = os.pipe()
        try:
            finished = run("raise SystemExit(4)", quiet_read)
        finally:
            os.close(quiet_read)
            os.close(quiet_write)
    finally:
        os.close(read_end)
        os.close(write_end)
    assert not finished.stopped and not finished.killed
    assert finished.exit_code == 4


def _stopped_handle(tmp_path: Path, stopped_at: float) -> AgentHandle:
    out = tmp_path / "stdout.jsonl"
    handle = AgentHandle("claude-code", tmp_path, tmp_path, out, out, 0.0, 1.0, -15)
    handle.killed = handle.stopped_early = True
    handle.stopped_at = stopped_at
    return handle


def test_a_cli_that_exits_on_the_stop_s_sigterm_stays_stopped(tmp_path: Path) -> None:
    """Claude Code handles SIGTERM and exits with 143: stopped at a trigger run's decision, its
    exit is in the log after the stop began, so the attempt stays stopped at the decision (it
    was settled as an exit of its own, 143, under load: a CI flake's cause)."""
    stopped_at = time.monotonic()
    follower = _followed(tmp_path, CLI + FORK + SERVER + "7 +++ exited with 143 +++\n")
    assert follower.agent_exited and not follower.agent_ended_before(stopped_at)
    handle = _stopped_handle(tmp_path, stopped_at)
    settle_left_processes(handle, follower)
    assert handle.stopped_early and handle.exit_code == -15 and handle.fault is None


def test_a_cli_that_exited_before_the_stop_ended_on_its_own(tmp_path: Path) -> None:
    """The stop that followed its own exit (a server it left, a decision seen after it ended)
    was the leftovers': its exit code is the log's, and it was not stopped early."""
    follower = _followed(tmp_path, CLI + FORK + SERVER + "7 +++ exited with 3 +++\n")
    handle = _stopped_handle(tmp_path, time.monotonic())
    settle_left_processes(handle, follower)
    assert not handle.stopped_early and handle.exit_code == 3 and not handle.killed
    assert handle.fault == "agent exited with code 3"
