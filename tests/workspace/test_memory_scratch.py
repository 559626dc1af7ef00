"""A run's scratch in memory (evaluator/workspace/memory.py): a tmpfs in the evaluator's own mount
namespace, seen by no other process, gone with the run however it ends."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
import yaml

from evaluator.workspace import memory
from evaluator.workspace.naming import run_scratch
from tests.conftest import ROOT
from tests.support import (
    agent_or_skip,
    agent_params,
    layers_or_skip,
    run_command,
    scratch_dir,
)

BEHAVIORS = ROOT / "agentic-evals/targets/db-migrations/behaviors/follows-skill"
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="mounting a tmpfs needs root")


def _host_mounts() -> str:
    return Path("/proc/self/mounts").read_text()


@pytest.fixture
def fresh_state(monkeypatch: pytest.MonkeyPatch) -> None:
    """The module as a process that has not asked yet (the test process itself never enters)."""
    monkeypatch.setattr(memory, "_entered", "")


def test_a_user_who_may_not_mount_keeps_the_scratch_on_disk(
    fresh_state: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    reason = memory.enter_private_mounts()
    assert reason is not None and "root" in reason
    assert memory.memory_unavailable() == reason


def test_a_process_already_running_threads_is_not_moved(fresh_state: None) -> None:
    # unshare(CLONE_NEWNS) refuses a process whose threads share their filesystem context: the
    # check is made before asking, so this test process stays where it is.
    release = threading.Event()
    waiter = threading.Thread(target=release.wait)
    waiter.start()
    try:
        reason = memory.enter_private_mounts()
    finally:
        release.set()
        waiter.join()
    if os.geteuid() == 0:
        assert reason is not None and "threads" in reason
    assert memory.memory_unavailable() == reason
    assert memory.enter_private_mounts() == reason  # asked once per process


def test_a_process_that_never_asked_has_no_memory_scratch(fresh_state: None) -> None:
    assert memory.memory_unavailable() is not None


@needs_root
def test_the_tmpfs_is_seen_by_the_process_and_its_children_only(tmp_path: Path) -> None:
    target = tmp_path / "scratch"
    target.mkdir()
    program = textwrap.dedent(
        f"""
        import os, subprocess, sys
        from pathlib import Path
        from evaluator.workspace import memory
        assert memory.enter_private_mounts() is None, memory.memory_unavailable()
        target = Path({str(target)!r})
        memory.mount_scratch(target)
        (target / "inside").write_text("x")
        child = subprocess.run(["cat", str(target / "inside")], capture_output=True, text=True)
        print("child", child.stdout)
        print("mounted", any(line.split()[1] == str(target) and line.split()[2] == "tmpfs"
                             for line in Path("/proc/self/mounts").read_text().splitlines()))
        sys.stdout.flush()
        sys.stdin.readline()  # the test looks from outside meanwhile
        memory.unmount_scratch(target)
        print("gone", not target.exists())
        """
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", program],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    assert proc.stdout is not None and proc.stdin is not None
    assert proc.stdout.readline().strip() == "child x"
    assert proc.stdout.readline().strip() == "mounted True"
    # From outside its namespace: the directory is there, empty, and nothing is mounted on it.
    assert list(target.iterdir()) == []
    assert str(target) not in _host_mounts()
    proc.stdin.write("\n")
    proc.stdin.flush()
    assert proc.stdout.readline().strip() == "gone True"
    assert proc.wait(timeout=30) == 0


def _evaluator(scratch: Path, runs: Path, *args: str) -> list[str]:
    return run_command(ROOT / "agentic-evals", runs, scratch, "--json", *args)


def _run_command(
    scratch: Path, runs: Path, run_id: str, *extra: str, behaviors: Path = BEHAVIORS
) -> list[str]:
    case = ["--case", "routing-add-column", "--behaviors", str(behaviors), "--run-id", run_id]
    return _evaluator(scratch, runs, *case, *extra)


@needs_root
@pytest.mark.parametrize("agent", agent_params("codex", "claude", "gemini"))
def test_a_run_in_memory_gives_the_same_verdict_and_leaves_nothing(
    agent: str, tmp_path: Path
) -> None:
    runner = agent_or_skip(agent)
    layers_or_skip(trace=True, jail=True)
    runs = tmp_path / "runs"
    with scratch_dir() as scratch:
        command = _run_command(scratch, runs, "m", "--agent", runner, "--attempts", "2")
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        # While the agents work, the machine sees the run's scratch folder empty: the workspaces
        # and homes are in the evaluator's own tmpfs.
        folder = run_scratch(scratch, "m")
        seen: list[str] = []
        while proc.poll() is None:
            if folder.is_dir():
                seen += [entry.name for entry in folder.iterdir()]
            time.sleep(0.05)
        out, err = proc.communicate()
        assert proc.returncode == 0, err
        assert seen == []
        assert not folder.exists()
        assert str(scratch) not in _host_mounts()
    manifest = json.loads((runs / "m/manifest.json").read_text())
    assert manifest["scratch"] == "memory"
    result = json.loads((runs / "m/case-results/routing-add-column.json").read_text())
    assert result["status"] == "pass"
    for attempt in result["attempts"]:
        assert attempt["status"] == "pass"
    record = json.loads(
        (runs / "m/case-artifacts/routing-add-column/attempts/attempt-01/attempt.json").read_text()
    )
    assert record["isolation_report"]["verdict"] == "contained"
    assert record["trace_report"]["verdict"] == "contained"
    assert json.loads(out)["counts"]["pass"] == 1


@needs_root
@pytest.mark.codex
def test_off_and_a_kept_scratch_stay_on_disk_and_on_refuses_what_it_cannot_do(
    tmp_path: Path,
) -> None:
    agent_or_skip("codex")
    runs = tmp_path / "runs"
    with scratch_dir() as scratch:
        off = subprocess.run(
            _run_command(scratch, runs, "off", "--scratch-memory", "off"),
            capture_output=True,
            text=True,
        )
        assert off.returncode == 0, off.stderr
        kept = subprocess.run(
            _run_command(scratch, runs, "kept", "--keep-scratch"), capture_output=True, text=True
        )
        assert kept.returncode == 0, kept.stderr
        assert any(run_scratch(scratch, "kept").rglob("rollout-*.jsonl"))
        refused = subprocess.run(
            _run_command(scratch, runs, "on", "--scratch-memory", "on", "--keep-scratch"),
            capture_output=True,
            text=True,
        )
    assert json.loads((runs / "off/manifest.json").read_text())["scratch"] == "disk"
    assert json.loads((runs / "kept/manifest.json").read_text())["scratch"] == "disk"
    assert refused.returncode != 0
    assert "Traceback" not in refused.stderr
    lines = [line for line in refused.stderr.splitlines() if "--scratch-memory on" in line]
    assert lines and "--keep-scratch" in lines[0], refused.stderr


@needs_root
@pytest.mark.codex
def test_a_killed_run_in_memory_leaves_nothing_and_its_resume_lists_the_lost_attempt(
    tmp_path: Path,
) -> None:
    agent_or_skip("codex")
    behaviors = tmp_path / "sleepy"
    behaviors.mkdir()
    good = yaml.safe_load((BEHAVIORS / "routing-add-column.yaml").read_text())
    sleepy = {**good, "steps": [{"cmd": "sleep 120"}] * 12 + good["steps"]}
    (behaviors / "routing-add-column.yaml").write_text(yaml.safe_dump(sleepy))
    runs = tmp_path / "runs"
    with scratch_dir() as scratch:
        first = subprocess.Popen(
            _run_command(scratch, runs, "k", behaviors=behaviors),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        noted = runs / "k/.in-flight/routing-add-column/01"
        deadline = time.time() + 120
        while not noted.exists() and time.time() < deadline:
            time.sleep(0.1)
        assert noted.exists()
        time.sleep(3)  # the agent is at its sleep by now
        os.kill(first.pid, 9)
        first.communicate(timeout=30)
        deadline = time.time() + 20
        while time.time() < deadline and _processes_naming(run_scratch(scratch, "k")):
            time.sleep(0.2)
        assert _processes_naming(run_scratch(scratch, "k")) == []
        assert str(scratch) not in _host_mounts()
        # What the machine has of the killed run's scratch: the empty folder it was mounted on.
        assert list(run_scratch(scratch, "k").iterdir()) == []
        (behaviors / "routing-add-column.yaml").write_text(yaml.safe_dump(good))
        resumed = subprocess.run(
            _evaluator(scratch, runs, "--resume", "k"),
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert resumed.returncode == 0, resumed.stderr
    result = json.loads((runs / "k/case-results/routing-add-column.json").read_text())
    attempts = {a["attempt"]: a for a in result["attempts"]}
    assert sorted(attempts) == [1, 2] and result["status"] == "pass"
    lost = attempts[1]
    assert lost["interrupted"] and not lost["valid"] and lost["status"] == "blocked"
    assert "its scratch was in memory" in lost["reason"]
    manifest = json.loads((runs / "k/manifest.json").read_text())
    assert manifest["scratch"] == "disk"  # the resume's own: it reads a stopped run's scratch
    assert any("attempt 01: in flight" in note for note in manifest["notes"])
    assert not (runs / "k/.in-flight").exists()


def _processes_naming(path: Path) -> list[int]:
    found = []
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            if str(path).encode() in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue
    return found
