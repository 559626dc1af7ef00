"""`run --resume` of a run whose scratch another layout named: the layout before
`workspace/naming.py` (`<scratch>/<run id>/workspaces/<case id>/attempt-NN`), or workspaces
somewhere this version does not put them. Either its in-flight attempts are found and recorded,
or one line says they cannot be, and the cases run anew: never a traceback, never a double
count."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path

import pytest

from evaluator.workspace.naming import (
    OLD_AGENTS,
    OLD_WORKSPACES,
    ScratchLayout,
    attempt_folder,
    recorded_layout,
    run_scratch,
)
from tests.conftest import ROOT
from tests.pipeline.test_faults_e2e import (
    _cmdline,
    _processes_under,
    _sleepy_behaviors,
    _wait_for,
)
from tests.support import codex_or_skip, run_command, scratch_dir

CASE = "routing-add-column"


def test_a_recorded_workspace_root_is_read_only_where_a_version_of_ours_puts_it(
    tmp_path: Path,
) -> None:
    root = tmp_path / "scratch"
    assert recorded_layout(run_scratch(root, "k") / "w", root, "k") == ScratchLayout(
        run_scratch(root, "k")
    )
    assert recorded_layout(root / "k/workspaces", root, "k") == ScratchLayout(root / "k", old=True)
    # Another scratch root, another run's, or a path a manifest was edited to name: never read,
    # stopped or removed (its folder could be anything).
    for elsewhere in (
        tmp_path / "other/k/workspaces",
        root / "j/workspaces",
        Path("/"),
        Path("/w"),
    ):
        assert recorded_layout(elsewhere, root, "k") is None


def _kill_mid_attempt(scratch: Path, runs: Path, behaviors: Path) -> int:
    """A run `k` of one case, SIGKILLed while its agent runs in the workspace; its pid."""
    first = subprocess.Popen(
        run_command(
            ROOT / "agentic-evals",
            runs,
            scratch,
            # On disk: what the killed run leaves there is what the resume reads.
            "--scratch-memory",
            "off",
            "--behaviors",
            str(behaviors),
            "--case",
            CASE,
            "--run-id",
            "k",
            "--json",
        ),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    workspace = attempt_folder(run_scratch(scratch, "k") / "w", CASE, 1)
    _wait_for(lambda: any(b"sleep" in _cmdline(pid) for pid in _processes_under(workspace)))
    os.kill(first.pid, signal.SIGKILL)
    first.communicate(timeout=30)
    _wait_for(lambda: not _processes_under(run_scratch(scratch, "k")), timeout=20)
    return first.pid


def _as_old_layout(scratch: Path, runs: Path) -> Path:
    """The stopped run's scratch renamed as the version before `naming.py` named it (the same
    real agent's files, moved), and its manifest saying so. The old scratch."""
    new, old = run_scratch(scratch, "k"), scratch / "k"
    new.rename(old)
    for folder, named in (("w", OLD_WORKSPACES), ("a", OLD_AGENTS)):
        attempt = attempt_folder(old / folder, CASE, 1)
        target = old / named / CASE / "attempt-01"
        target.parent.mkdir(parents=True)
        attempt.rename(target)
    manifest_path = runs / "k/manifest.json"
    manifest = json.loads(manifest_path.read_text())
    assert manifest["case_workspace_root"] == str(new / "w")
    manifest["case_workspace_root"] = str(old / OLD_WORKSPACES)
    manifest_path.write_text(json.dumps(manifest))
    return old


def _resume(scratch: Path, runs: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    _sleepy_behaviors(tmp_path, 0)  # the resume reads the run's behaviours again: no sleep now
    return subprocess.run(
        run_command(
            ROOT / "agentic-evals",
            runs,
            scratch,
            "--resume",
            "k",
        ),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.mark.codex
def test_resume_finds_the_in_flight_attempt_of_a_run_the_older_layout_made(
    tmp_path: Path,
) -> None:
    """Before: the resume looked only at today's folders, recorded nothing of the old run's
    in-flight attempt (its session lost, its number taken again) and left the old scratch."""
    codex_or_skip()
    runs = tmp_path / "runs"
    with scratch_dir() as scratch:
        pid = _kill_mid_attempt(scratch, runs, _sleepy_behaviors(tmp_path, 120))
        old = _as_old_layout(scratch, runs)
        resumed = _resume(scratch, runs, tmp_path)
        assert resumed.returncode == 0, resumed.stderr
        assert "Traceback" not in resumed.stderr and "warning" not in resumed.stderr
        assert not old.exists() and not run_scratch(scratch, "k").exists()
    result = json.loads((runs / f"k/case-results/{CASE}.json").read_text())
    attempts = {a["attempt"]: a for a in result["attempts"]}
    assert sorted(attempts) == [1, 2]
    lost = attempts[1]
    assert lost["interrupted"] and not lost["valid"] and lost["status"] == "blocked"
    assert f"in flight when the evaluator (pid {pid}) stopped" in lost["reason"]
    recorded = runs / f"k/case-artifacts/{CASE}/attempts/attempt-01"
    assert (recorded / "interrupted-session.jsonl").is_file()  # the agent's own record, kept
    assert result["status"] == "pass" and result["stats"]["attempts"] == 1  # listed, not counted
    manifest = json.loads((runs / "k/manifest.json").read_text())
    assert manifest["case_workspace_root"] == str(run_scratch(scratch, "k") / "w")


@pytest.mark.codex
def test_resume_says_in_one_line_when_the_workspaces_are_elsewhere(tmp_path: Path) -> None:
    codex_or_skip()
    runs = tmp_path / "runs"
    with scratch_dir() as scratch:
        _kill_mid_attempt(scratch, runs, _sleepy_behaviors(tmp_path, 120))
        elsewhere = tmp_path / "elsewhere"
        run_scratch(scratch, "k").rename(elsewhere)  # as if it were under another scratch root
        manifest_path = runs / "k/manifest.json"
        manifest = json.loads(manifest_path.read_text())
        manifest["case_workspace_root"] = str(elsewhere / "w")
        manifest_path.write_text(json.dumps(manifest))
        resumed = _resume(scratch, runs, tmp_path)
        assert resumed.returncode == 0, resumed.stderr
        warnings = [line for line in resumed.stderr.splitlines() if "warning" in line]
        assert len(warnings) == 1 and str(elsewhere / "w") in warnings[0], resumed.stderr
        assert "run anew" in warnings[0] and "Traceback" not in resumed.stderr
        assert elsewhere.is_dir()  # not this run's to remove
    result = json.loads((runs / f"k/case-results/{CASE}.json").read_text())
    # Nothing recorded of the lost attempt, and the new one counted once.
    assert [a["attempt"] for a in result["attempts"]] == [1]
    assert result["status"] == "pass" and result["stats"]["attempts"] == 1
    notes = json.loads(manifest_path.read_text())["notes"]
    assert any("not where this version puts them" in note for note in notes)
