"""An interrupted run exits 130 (SIGINT) or 143 (SIGTERM), not 1, and leaves no process behind,
not even one a tool call put in the background (`cmd &`): Gemini CLI runs each command in a
session of its own, outside the agent's process group, and a shell's background job ignores
SIGINT. Without the jail's pid namespace and the trace, only its working directory (the
workspace) or its HOME (the attempt's) tells it is the attempt's (`process.LeftBehind`); before
round 20 it ran on after the run had exited 1."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.agents.test_agent_lifetime import await_marked, stop_all, survivors
from tests.conftest import ROOT
from tests.support import gemini_or_skip, scratch_dir

pytestmark = pytest.mark.gemini
BACKGROUND = "sleep 6061"
START_TIMEOUT_S = 180.0


def test_an_interrupted_run_exits_with_its_signal_and_kills_what_the_agent_backgrounded(
    tmp_path: Path,
) -> None:
    gemini_or_skip()
    behaviors = tmp_path / "behaviors"
    behaviors.mkdir()
    (behaviors / "background.yaml").write_text(
        yaml.safe_dump(
            {
                "name": "background",
                "match": {"prompt_contains": "default currency per account"},
                "steps": [
                    {"cmd": f"{BACKGROUND} & echo started"},
                    {"cmd": "sleep 100"},
                    {"final": "done"},
                ],
            }
        )
    )
    signals = {"SIGINT": signal.SIGINT, "SIGTERM": signal.SIGTERM}
    with scratch_dir() as scratch:
        evaluators: dict[str, tuple[subprocess.Popen[bytes], str]] = {}
        try:
            for name in signals:
                marker = str(scratch / name)
                command = [
                    sys.executable,
                    "-m",
                    "evaluator",
                    "run",
                    "--agent",
                    "gemini-cli",
                    "--repo",
                    str(ROOT / "agentic-evals"),
                    "--case",
                    "routing-add-column",
                    "--behaviors",
                    str(behaviors),
                    "--runs-dir",
                    str(tmp_path / f"runs-{name}"),
                    "--scratch-root",
                    marker,
                    "--scratch-memory",
                    "off",
                    "--sandbox",
                    "none",
                    "--trace",
                    "off",
                ]
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
