"""No agent process outlives its evaluator, however the evaluator dies and whatever wraps the agent.

The evaluator runs as its own process (so it can be SIGKILLed), in each launch set-up whose
process tree differs: the agent CLI alone (its node wrapper leads the group), under strace alone
(strace leads; it blocks SIGTERM unless told otherwise), and under bubblewrap with strace inside
(the default). Each attempt runs `sleep 120` through codex. Once that sleep runs, the evaluator
is killed; every process that carries the attempt's scratch directory (in its command line,
environment or working directory) must be gone a few seconds later.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
import subprocess
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TypeVar

import pytest

from evaluator.sandbox import Tracer, get_jail
from tests.conftest import ROOT
from tests.support import codex_or_skip, one_behavior, run_command, scratch_dir

pytestmark = pytest.mark.codex
PROMPT = "default currency per account"
SLEEP = "sleep 120"
START_TIMEOUT_S = 120.0
# The kernel's parent-death signal, strace passing SIGTERM on, codex stopping its children:
# all asynchronous, each done within a second or two on a loaded machine.
GONE_TIMEOUT_S = 15.0


def marked_processes(marker: str) -> dict[int, str]:
    """Processes whose command line, environment or working directory names `marker`."""
    found: dict[int, str] = {}
    needle = marker.encode()
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            cmdline = (entry / "cmdline").read_bytes()
            environ = (entry / "environ").read_bytes()
            cwd = os.readlink(entry / "cwd")
        except OSError:
            continue  # gone meanwhile, or a process we may not inspect
        if needle in cmdline or needle in environ or cwd.startswith(marker):
            found[int(entry.name)] = cmdline.replace(b"\0", b" ").decode(errors="replace")
    return found


K = TypeVar("K")


def await_marked(
    evaluators: Mapping[K, tuple[subprocess.Popen[bytes], str]], prefix: str, timeout_s: float
) -> None:
    """Waits until each evaluator's marker names a process whose command line starts with
    `prefix` (the agent ran it); fails if an evaluator ends first or `timeout_s` passes."""
    deadline = time.monotonic() + timeout_s
    for key, (proc, marker) in evaluators.items():
        while not any(c.startswith(prefix) for c in marked_processes(marker).values()):
            assert proc.poll() is None, f"{key}: the evaluator ended before {prefix}"
            assert time.monotonic() < deadline, f"{key}: the agent never ran {prefix}"
            time.sleep(0.1)


def survivors(
    evaluators: Mapping[K, tuple[subprocess.Popen[bytes], str]],
) -> dict[K, dict[int, str]]:
    """The processes each evaluator's marker still names once `GONE_TIMEOUT_S` has passed."""
    deadline = time.monotonic() + GONE_TIMEOUT_S
    found = {}
    for key, (_, marker) in evaluators.items():
        while (left := marked_processes(marker)) and time.monotonic() < deadline:
            time.sleep(0.1)
        if left:
            found[key] = left
    return found


def stop_all(evaluators: Mapping[K, tuple[subprocess.Popen[bytes], str]]) -> None:
    """Whatever a failed test left: each evaluator and every process its marker names."""
    for proc, marker in evaluators.values():
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pid in marked_processes(marker):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def _setups() -> list[tuple[str, str]]:
    setups = [("none", "off")]
    if Tracer().unavailable() is None:
        setups.append(("none", "on"))
        if get_jail("bwrap").unavailable() is None:
            setups.append(("bwrap", "on"))
    return setups


def test_no_agent_process_outlives_a_killed_evaluator(tmp_path: Path) -> None:
    codex_or_skip()
    behaviors = one_behavior(tmp_path, "sleepy", PROMPT, [{"cmd": SLEEP}, {"final": "done"}])
    with scratch_dir() as scratch:
        evaluators: dict[tuple[str, str, str], tuple[subprocess.Popen[bytes], str]] = {}
        signals = {"SIGKILL": signal.SIGKILL, "SIGTERM": signal.SIGTERM}
        try:
            # All at once: one wait for the slowest instead of one per set-up and signal.
            for (sandbox, trace), name in itertools.product(_setups(), signals):
                marker = str(scratch / f"{sandbox}-{trace}-{name}")
                command = run_command(
                    ROOT / "agentic-evals",
                    tmp_path / f"runs-{sandbox}-{trace}-{name}",
                    marker,
                    *("--case", "routing-add-column", "--behaviors", str(behaviors)),
                    *("--sandbox", sandbox, "--trace", trace),
                )
                evaluators[(sandbox, trace, name)] = (
                    subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL),
                    marker,
                )
            await_marked(evaluators, SLEEP, START_TIMEOUT_S)
            for (_, _, name), (proc, _) in evaluators.items():
                proc.send_signal(signals[name])
            for proc, _ in evaluators.values():
                proc.wait(timeout=60)
            assert survivors(evaluators) == {}
        finally:
            stop_all(evaluators)
