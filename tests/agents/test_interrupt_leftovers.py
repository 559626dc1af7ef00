"""An interrupted run exits 130 (SIGINT) or 143 (SIGTERM), not 1, and leaves no process behind,
not even one a tool call put in the background (`cmd &`): Gemini CLI runs each command in a
session of its own, outside the agent's process group, and a shell's background job ignores
SIGINT. Without the jail's pid namespace and the trace, only its working directory (the
workspace) or its HOME (the attempt's) tells it is the attempt's (`process.LeftBehind`); before
round 20 it ran on after the run had exited 1."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

import pytest

from tests.agents.test_agent_lifetime import await_marked, stop_all, survivors
from tests.conftest import ROOT
from tests.support import gemini_or_skip, one_behavior, run_command, scratch_dir

pytestmark = pytest.mark.gemini
BACKGROUND = "sleep 6061"
START_TIMEOUT_S = 180.0


def test_an_interrupted_run_exits_with_its_signal_and_kills_what_the_agent_backgrounded(
    tmp_path: Path,
) -> None:
    gemini_or_skip()
    steps = [{"cmd": f"{BACKGROUND} & echo started"}, {"cmd": "sleep 100"}, {"final": "done"}]
    behaviors = one_behavior(tmp_path, "background", "default currency per account", steps)
    signals = {"SIGINT": signal.SIGINT, "SIGTERM": signal.SIGTERM}
    with scratch_dir() as scratch:
        evaluators: dict[str, tuple[subprocess.Popen[bytes], str]] = {}
        try:
            for name in signals:
                marker = str(scratch / name)
                command = run_command(
                    ROOT / "agentic-evals",
                    tmp_path / f"runs-{name}",
                    marker,
                    *("--agent", "gemini-cli", "--case", "routing-add-column"),
                    *("--behaviors", str(behaviors), "--scratch-memory", "off"),
                    *("--sandbox", "none", "--trace", "off"),
                )
                evaluators[name] = (
                    subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL),
                    marker,
                )
            await_marked(evaluators, BACKGROUND, START_TIMEOUT_S)
            for name, (proc, _) in evaluators.items():
                proc.send_signal(signals[name])
            codes = {name: proc.wait(timeout=120) for name, (proc, _) in evaluators.items()}
            assert codes == {"SIGINT": 130, "SIGTERM": 143}
            assert survivors(evaluators) == {}
        finally:
            stop_all(evaluators)
