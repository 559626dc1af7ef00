"""A run killed with SIGKILL keeps `run_state: running` in its manifest; `gate`, `compare`,
`report` and the history said "the run is running" of it as of a live one, so an operator
waited for a run no process was running (the ninth new user's review). Whether an evaluator
still holds the run's lock tells them apart, read from the kernel's lock table."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from evaluator.artifacts.rundir import RunDir, lock_held
from evaluator.cli.main import run_cli
from tests.conftest import ROOT
from tests.gate.test_gate import P, write_run


def test_the_lock_is_held_while_its_holder_lives_and_free_once_it_is_killed(
    tmp_path: Path,
) -> None:
    run = tmp_path / "r"
    run.mkdir()
    assert lock_held(run) is None  # no lock file: another evaluator's run, say; cannot tell
    assert lock_held(tmp_path / "missing") is None
    lock = RunDir(run).lock()
    assert lock_held(run) is True
    lock.release()
    assert lock_held(run) is False
    # Another process holds it, then dies by SIGKILL: the stale file stays, the lock does not.
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from pathlib import Path; from evaluator.artifacts.rundir import"
            " RunDir; held = RunDir(Path(sys.argv[1])).lock(); print('held', flush=True);"
            " time.sleep(60)",
            str(run),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline() == "held\n"
    assert lock_held(run) is True
    holder.kill()
    holder.wait(timeout=10)
    deadline = time.monotonic() + 10
    while lock_held(run) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert lock_held(run) is False and (run / ".lock").is_file()


def test_gate_tells_a_killed_run_from_a_live_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    current = write_run(tmp_path / "current", [P()])
    killed = write_run(tmp_path / "killed", [P()], state="running")
    (killed / ".lock").write_text("pid 1\n")  # what a SIGKILLed run leaves
    args = ["gate", "--candidate", str(killed), "--current", str(current)]
    assert run_cli(args) == 2
    err = capsys.readouterr().err
    assert "no evaluator holds it" in err and "agentic-eval run --resume killed" in err
    lock = RunDir(killed).lock()  # the look-alike: a run still running
    try:
        assert run_cli(args) == 2
        err = capsys.readouterr().err
        assert "the run is running; only a finished run has a score to read" in err
        assert "resume" not in err
    finally:
        lock.release()


def test_report_of_a_killed_run_says_how_to_finish_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.interop.test_interop import make_run

    run_dir = make_run(tmp_path, "k", "codex-exec", {"c": ["pass"]})
    manifest = run_dir.read_manifest()
    manifest.run_state = "running"
    run_dir.write_manifest(manifest)
    (run_dir.path / ".lock").write_text("pid 1\n")  # what a SIGKILLed run leaves
    capsys.readouterr()
    assert run_cli(["report", str(run_dir.path)]) == 0
    err = capsys.readouterr().err
    assert "note: the run is interrupted (running in its manifest, but no evaluator holds it" in err
    assert "`agentic-eval run --resume k` finishes it" in err
    # The report itself and `show` said "running" of it until round 20.
    report = (run_dir.path / "report.md").read_text(encoding="utf-8")
    assert "- Run state: interrupted (running in its manifest" in report
    assert "`agentic-eval run --resume k` finishes it" in report
    assert run_cli(["show", str(run_dir.path)]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert "codex-exec, interrupted (running in its manifest" in first
    lock = RunDir(run_dir.path).lock()  # the look-alike: a run still running says so
    try:
        assert run_cli(["show", str(run_dir.path)]) == 0
        assert "codex-exec, running; " in capsys.readouterr().out
    finally:
        lock.release()


def test_a_second_run_of_one_id_is_told_the_first_still_runs_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = tmp_path / "runs"
    (runs / "k").mkdir(parents=True)
    args = ["run", "--repo", str(ROOT / "agentic-evals"), "--runs-dir", str(runs)]
    args += ["--run-id", "k"]
    lock = RunDir(runs / "k").lock()
    try:
        assert run_cli(args) == 2
        err = capsys.readouterr().err
        assert f"and another agentic-eval (pid {os.getpid()}) is running it" in err
        assert "--resume" not in err
    finally:
        lock.release()
    assert run_cli(args) == 2  # the look-alike: a stopped run of that id is resumed
    assert "already exists: " in (err := capsys.readouterr().err) and "use --resume k" in err


def test_an_interrupted_run_without_some_results_names_its_resume(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = write_run(tmp_path / "stopped", [P(), P()], state="interrupted")
    (run / "case-results/case-1.json").unlink()
    assert run_cli(["gate", "--candidate", str(run)]) == 2
    err = capsys.readouterr().err
    assert "unfinished case(s) without a result: case-1 (the run was interrupted:" in err
    assert "`agentic-eval run --resume stopped` finishes it" in err
    foreign = write_run(tmp_path / "foreign", [P()], state="running")  # no .lock: not ours
    assert run_cli(["gate", "--candidate", str(foreign)]) == 2
    err = capsys.readouterr().err
    assert "the run is running; only a finished run has a score to read" in err


def test_report_waits_for_a_live_run_as_judge_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A live run is the only writer of its directory: `report` rewrote its reports and
    skill-creator's files under it (the ninth review); `judge` was already refused."""
    from tests.interop.test_interop import make_run

    run_dir = make_run(tmp_path, "live", "codex-exec", {"c": ["pass"]})
    before = (
        (run_dir.path / "report.md").read_text() if (run_dir.path / "report.md").is_file() else None
    )
    lock = run_dir.lock()
    try:
        capsys.readouterr()
        assert run_cli(["report", str(run_dir.path)]) == 2
        err = capsys.readouterr().err
        assert f"is in use by another agentic-eval (pid {os.getpid()})" in err
        assert "report it when the run has ended" in err
        after = (
            (run_dir.path / "report.md").read_text()
            if (run_dir.path / "report.md").is_file()
            else None
        )
        assert after == before
    finally:
        lock.release()
    assert run_cli(["report", str(run_dir.path)]) == 0
