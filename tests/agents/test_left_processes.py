"""Processes a tool call leaves running, stopped with the attempt (`evaluator/agents/process.py`
`_kill_traced`, red team round 7, docs/isolation.md): without the jail's pid namespace, strace
stopped by SIGTERM detaches what it traces, so a daemon that left the process group (`setsid`,
a double fork) or that ignores SIGTERM would go on unseen, reading and writing after the
attempt's trace ended. Each is killed while still traced."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from evaluator.agents import process
from evaluator.sandbox.tracer import Tracer

# The "CLI": it leaves two daemons that ignore SIGTERM, one double-forked into a new session, one
# in its process group, each writing to a file it opened while traced (after strace detached,
# the seccomp filter answers every traced call, an open or a fork, with ENOSYS: a descriptor
# opened before is what such a daemon still has), then exits once both wrote.
AGENT = """
import os, signal, sys, time
def daemon(out, new_session):
    if os.fork():
        return
    if new_session:
        os.setsid()
        if os.fork():
            os._exit(0)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    fd = os.open(out, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    while True:
        os.write(fd, b"x\\n")
        time.sleep(0.02)
daemon(sys.argv[1], True)
daemon(sys.argv[2], False)
while not all(os.path.exists(p) and os.path.getsize(p) for p in sys.argv[1:]):
    time.sleep(0.02)
"""
SETTLE_S = 0.5  # long enough for a daemon that survived to write again many times over


def _lines(path: Path) -> int:
    return len(path.read_text().splitlines()) if path.exists() else 0


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux /proc and ptrace")
@pytest.mark.skipif(Tracer().unavailable() is not None, reason="strace cannot trace here")
def test_daemons_a_traced_agent_left_do_nothing_after_the_stop(tmp_path: Path) -> None:
    escaped, kept = tmp_path / "escaped", tmp_path / "kept"
    argv = Tracer().wrap(
        [sys.executable, "-c", AGENT, str(escaped), str(kept)], tmp_path / "trace.strace"
    )
    try:
        _stop_and_watch(tmp_path, argv, escaped, kept)
    finally:
        # A daemon that outlived the stop (the bug this test is for) is not left behind.
        process.kill_processes_mentioning(tmp_path)


def _stop_and_watch(tmp_path: Path, argv: list[str], escaped: Path, kept: Path) -> None:
    outcome = process.run_process(
        argv,
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin"},
        stdin_text="",
        stdout_path=tmp_path / "out",
        stderr_path=tmp_path / "err",
        timeout_s=60,
        # The "CLI" has exited once both daemons wrote: what is left is theirs.
        stop_when=lambda: _lines(escaped) > 0 and _lines(kept) > 0,
    )
    assert outcome.stopped
    stopped_at = {path: _lines(path) for path in (escaped, kept)}
    time.sleep(SETTLE_S)
    assert {path: _lines(path) for path in (escaped, kept)} == stopped_at
