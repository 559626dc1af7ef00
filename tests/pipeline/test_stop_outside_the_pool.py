"""SIGTERM outside the attempts' pool (the ninth new user's review, an operator's faults).

The pool stops on SIGTERM and SIGINT by its own handler; before it (the claim, the manifest, the
scripted server) and after it (the reports, the scratch) a SIGTERM had Python's default action:
the evaluator died on the spot with its scratch (agents' homes and workspaces) left behind, its
manifest `running` or without a manifest at all. Each test stops a real run at one such moment,
by a signal the evaluator sends itself from the step named, so the moment is exact.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from evaluator.workspace.naming import run_scratch
from tests.conftest import ROOT
from tests.support import codex_or_skip, scratch_dir

pytestmark = pytest.mark.codex
BEHAVIORS = ROOT / "agentic-evals/targets/db-migrations/behaviors/follows-skill"

# Runs the CLI with one step of the run module replaced by itself preceded by a SIGTERM to this
# process: `module.name` is that step (a function or a method `Class.method`).
DRIVER = """
import os, signal, sys
import evaluator.pipeline.run as module
from evaluator.cli.main import run_cli

owner_name, _, name = sys.argv[1].rpartition(".")
owner = getattr(module, owner_name) if owner_name else module
original = getattr(owner, name)

def stopped(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGTERM)
    return original(*args, **kwargs)

setattr(owner, name, stopped)
sys.exit(run_cli(sys.argv[2:]))
"""


def _run_stopped_at(step: str, runs: Path, scratch: Path) -> subprocess.CompletedProcess[str]:
    codex_or_skip()
    command = [sys.executable, "-c", DRIVER, step, "run", "--repo", str(ROOT / "agentic-evals")]
    command += ["--runs-dir", str(runs), "--scratch-root", str(scratch), "--run-id", "r"]
    command += ["--behaviors", str(BEHAVIORS), "--case", "routing-add-column"]
    return subprocess.run(command, capture_output=True, text=True, timeout=180, cwd=ROOT)


def test_sigterm_before_the_manifest_leaves_no_run_directory_and_no_scratch(
    tmp_path: Path,
) -> None:
    with scratch_dir() as scratch:
        done = _run_stopped_at("plan_manifest", tmp_path / "runs", scratch)
        assert done.returncode == 143, done.stderr
        assert done.stderr.strip().endswith("agentic-eval: terminated (SIGTERM)")
        assert "Traceback" not in done.stderr
        # Claimed, never written: nothing could read or resume it, and the id is free again.
        assert not (tmp_path / "runs/r").exists()
        assert not run_scratch(scratch, "r").exists()


def test_sigterm_before_the_first_attempt_closes_the_run_for_resume(tmp_path: Path) -> None:
    with scratch_dir() as scratch:
        done = _run_stopped_at("ScriptedModelServer.start", tmp_path / "runs", scratch)
        assert done.returncode == 143, done.stderr
        manifest = json.loads((tmp_path / "runs/r/manifest.json").read_text())
        assert manifest["run_state"] == "interrupted"
        assert not run_scratch(scratch, "r").exists()
        assert not list((tmp_path / "runs/r").rglob(".*.tmp"))


def test_sigterm_while_the_run_closes_lets_it_close(tmp_path: Path) -> None:
    """All attempts are in; the stop waits for the reports and the scratch's removal."""
    with scratch_dir() as scratch:
        done = _run_stopped_at("write_reports", tmp_path / "runs", scratch)
        assert done.returncode == 0, done.stderr
        run = tmp_path / "runs/r"
        assert json.loads((run / "manifest.json").read_text())["run_state"] == "completed"
        assert (run / "case-results/routing-add-column.json").is_file()
        assert "routing-add-column" in (run / "report.md").read_text()
        assert not run_scratch(scratch, "r").exists()
        assert "pass 1, fail 0, blocked 0" in done.stdout


def test_sigterm_of_the_model_server_command_ends_it_cleanly() -> None:
    """A server is stopped by SIGTERM (a CI job's end, `kill`): it closes as on Ctrl-C."""
    server = subprocess.Popen(
        [sys.executable, "-m", "evaluator", "model-server", "--behaviors", str(BEHAVIORS)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None
    base_url = server.stdout.readline().strip()
    deadline = time.monotonic() + 30
    while True:  # serving: it answers
        try:
            with urllib.request.urlopen(f"{base_url}/models", timeout=5) as reply:
                assert reply.status == 200
            break
        except OSError:
            assert time.monotonic() < deadline
            time.sleep(0.1)
    server.send_signal(signal.SIGTERM)
    _, err = server.communicate(timeout=30)
    assert server.returncode == 0, err
    assert "Traceback" not in err
