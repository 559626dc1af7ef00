"""Faults and secrets with the real Codex CLI: a SIGKILLed evaluator, two runs of one id, a full or
read-only disk, secrets in every encoding, private scratch, re-judging after scratch is gone."""

from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path
from typing import Any
from urllib.parse import quote

import markupsafe
import pytest
import yaml

from evaluator.cli.main import main
from evaluator.workspace.naming import attempt_folder, run_scratch
from tests.conftest import ROOT, copy_demo
from tests.support import claude_or_skip, codex_or_skip, run_command, scratch_dir

pytestmark = pytest.mark.codex
BEHAVIORS = ROOT / "agentic-evals/targets/db-migrations/behaviors"


@pytest.fixture(autouse=True)
def _codex() -> None:
    codex_or_skip()


def _evaluator(*args: str) -> list[str]:
    return [sys.executable, "-m", "evaluator", *args]


def _processes_under(path: Path) -> list[int]:
    """Live processes whose command line names `path` or whose cwd is inside it."""
    found = []
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            cmdline = (entry / "cmdline").read_bytes()
            cwd = os.readlink(entry / "cwd")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state == "Z":
            continue  # a zombie holds nothing; its parent has not reaped it yet
        if str(path).encode() in cmdline or cwd.startswith(str(path)):
            found.append(int(entry.name))
    return found


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""  # it ended meanwhile


def _wait_for(predicate: Any, timeout: float = 120.0) -> Any:
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError("condition not reached in time")


def _sleepy_behaviors(tmp_path: Path, seconds: int) -> Path:
    """routing-add-column's good behaviour, running `sleep` in the workspace first (rewritten in
    place: a resumed run reads the behaviours again)."""
    behaviors = tmp_path / "sleepy"
    behaviors.mkdir(exist_ok=True)
    data = yaml.safe_load((BEHAVIORS / "follows-skill/routing-add-column.yaml").read_text())
    if seconds:
        # Codex hands a long command back to the model after about 10 s and lets the turn go
        # on; a dozen keep the agent busy longer than the checks take on a loaded machine (an
        # evaluator process alone can take 12 s to start there).
        data["steps"][:0] = [{"cmd": f"sleep {seconds}"}] * 12
    (behaviors / "routing-add-column.yaml").write_text(yaml.safe_dump(data))
    return behaviors


def test_sigkilled_evaluator_leaves_no_agent_and_no_unrecorded_attempt(tmp_path: Path) -> None:
    # Long enough to outlast the checks below on a loaded machine; the resume runs without it.
    behaviors = _sleepy_behaviors(tmp_path, 120)
    runs = tmp_path / "runs"
    with scratch_dir() as scratch:
        common = ["--repo", str(ROOT / "agentic-evals"), "--runs-dir", str(runs)]
        # On disk: a resume records what a killed run's attempt left in its scratch (the in-memory
        # scratch goes with the run: tests/workspace/test_memory_scratch.py).
        common += ["--scratch-root", str(scratch), "--scratch-memory", "off", "--json"]
        first = subprocess.Popen(
            _evaluator(
                "run",
                *common,
                "--behaviors",
                str(behaviors),
                "--case",
                "routing-add-column",
                "--run-id",
                "k",
            ),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        workspace = attempt_folder(run_scratch(scratch, "k") / "w", "routing-add-column", 1)
        # The agent is running its `sleep` (a grandchild of the evaluator) inside the workspace.
        _wait_for(lambda: any(b"sleep" in _cmdline(pid) for pid in _processes_under(workspace)))
        # Two runs of one id at once: the second is refused while the first holds the lock.
        same_id = subprocess.run(
            _evaluator("run", *common, "--behaviors", str(behaviors), "--run-id", "k"),
            capture_output=True,
            text=True,
            check=False,
        )
        assert same_id.returncode == 2 and "already exists" in same_id.stderr
        # Not "use --resume k", which the lock would refuse too (the ninth review).
        assert "is running it: pass another --run-id" in same_id.stderr
        assert "--resume" not in same_id.stderr
        concurrent = subprocess.run(
            _evaluator("run", *common, "--resume", "k"),
            capture_output=True,
            text=True,
            check=False,
        )
        assert concurrent.returncode == 2, concurrent.stderr
        assert f"in use by another agentic-eval (pid {first.pid})" in concurrent.stderr
        assert "Traceback" not in concurrent.stderr
        os.kill(first.pid, signal.SIGKILL)
        first.communicate(timeout=30)
        # The kernel kills the agent with its parent; its own children go with it.
        _wait_for(lambda: not _processes_under(run_scratch(scratch, "k")), timeout=20)
        assert json.loads((runs / "k/manifest.json").read_text())["run_state"] == "running"
        assert not (runs / "k/case-artifacts/routing-add-column/attempts/attempt-01").exists()
        _sleepy_behaviors(tmp_path, 0)
        # The dead holder's lock does not block; resume records the attempt it finds in flight.
        resumed = subprocess.run(
            _evaluator("run", *common, "--resume", "k"),
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert resumed.returncode == 0, resumed.stderr
        assert not run_scratch(scratch, "k").exists()  # each run's scratch goes when it ends
    result = json.loads((runs / "k/case-results/routing-add-column.json").read_text())
    assert result["status"] == "pass"
    attempts = {a["attempt"]: a for a in result["attempts"]}
    assert sorted(attempts) == [1, 2]  # every attempt of the case, not only the resumed one
    lost = attempts[1]
    assert lost["interrupted"] and not lost["valid"] and lost["status"] == "blocked"
    assert f"in flight when the evaluator (pid {first.pid}) stopped" in lost["reason"]
    assert not attempts[2]["interrupted"] and attempts[2]["status"] == "pass"
    assert result["stats"]["attempts"] == 1  # the interrupted attempt is listed, not counted
    recorded = runs / "k/case-artifacts/routing-add-column/attempts/attempt-01"
    assert json.loads((recorded / "attempt.json").read_text())["interrupted"] is True
    assert (recorded / "interrupted-session.jsonl").is_file()  # what the agent had recorded
    manifest = json.loads((runs / "k/manifest.json").read_text())
    assert manifest["run_state"] == "completed"
    assert any("attempt 01: in flight" in note for note in manifest["notes"])
    report = (runs / "k/report.md").read_text()
    assert "## Run Summary" in report


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    with pytest.raises(SystemExit) as info:
        main(args)
    return int(info.value.code or 0), capsys.readouterr().err


def test_disk_full_mid_run_exits_3_closes_the_manifest_and_resume_finishes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A write hook raises ENOSPC once a first case result exists: the next case result
    cannot be written, exactly as on a full disk."""
    runs = tmp_path / "runs"
    real_fsync = os.fsync

    def full_disk(fd: int) -> None:
        name = os.readlink(f"/proc/self/fd/{fd}")
        if "/case-results/" in name and any((runs / "full/case-results").glob("*.json")):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), name)
        real_fsync(fd)

    with scratch_dir() as scratch:
        base = ["run", "--repo", str(ROOT / "agentic-evals"), "--runs-dir", str(runs)]
        base += ["--scratch-root", str(scratch)]
        cases = ["--case", "routing-add-column", "--case", "routing-backfill", "--workers", "1"]
        monkeypatch.setattr("evaluator.artifacts.rundir.os.fsync", full_disk)
        code, err = _cli(
            [*base, *cases, "--behaviors", str(BEHAVIORS / "follows-skill"), "--run-id", "full"],
            capsys,
        )
        monkeypatch.undo()
        assert code == 3, err
        message = [line for line in err.splitlines() if line.startswith("agentic-eval:")]
        assert len(message) == 1 and "No space left on device" in message[0]
        assert "--resume full" in message[0] and "internal error" not in err
        manifest = json.loads((runs / "full/manifest.json").read_text())
        assert manifest["run_state"] == "interrupted"
        assert list((runs / "full").rglob("*.tmp")) == []
        assert len(list((runs / "full/case-results").glob("*.json"))) == 1
        assert not run_scratch(scratch, "full").exists()
        code, err = _cli([*base, "--resume", "full"], capsys)
        assert code == 0, err
    results = sorted(p.name for p in (runs / "full/case-results").glob("*.json"))
    assert results == ["routing-add-column.json", "routing-backfill.json"]
    assert json.loads((runs / "full/manifest.json").read_text())["run_state"] == "completed"


@contextmanager
def _mounted_tmpfs(path: Path, options: str) -> Iterator[None]:
    path.mkdir(parents=True, exist_ok=True)
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(path)],
        capture_output=True,
        check=False,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}")
    try:
        yield
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False)


def test_full_tmpfs_mid_run_exits_3_without_temp_files_and_resume_finishes(
    tmp_path: Path,
) -> None:
    """A real full file system: a small tmpfs holds runs/, and is filled once a case finished."""
    runs = tmp_path / "runs"
    with _mounted_tmpfs(runs, "size=4m"), scratch_dir() as scratch:
        base = ["--repo", str(ROOT / "agentic-evals"), "--runs-dir", str(runs)]
        base += ["--scratch-root", str(scratch), "--json"]
        behaviors = tmp_path / "b"
        shutil.copytree(BEHAVIORS / "follows-skill", behaviors)
        for path in behaviors.glob("routing-*.yaml"):
            data = yaml.safe_load(path.read_text())
            data["steps"][0]["delay_s"] = 1.0
            path.write_text(yaml.safe_dump(data))
        proc = subprocess.Popen(
            _evaluator(
                "run",
                *base,
                *("--behaviors", str(behaviors), "--run-id", "t", "--workers", "1"),
                *("--case", "routing-add-column", "--case", "routing-backfill"),
                *("--case", "routing-rename-table"),
            ),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        _wait_for(lambda: list((runs / "t/case-results").glob("*.json")))
        filler = runs / "filler"
        with filler.open("wb") as handle:
            try:
                while True:
                    handle.write(b"\0" * 65536)
                    handle.flush()
            except OSError as exc:
                assert exc.errno == errno.ENOSPC
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == 3, err
        lines = [line for line in err.splitlines() if line.startswith("agentic-eval:")]
        assert len(lines) == 1 and "No space left on device" in lines[0], err
        assert "internal error" not in err and "Traceback" not in err
        assert list(runs.rglob("*.tmp")) == []
        manifest = json.loads((runs / "t/manifest.json").read_text())  # never half-written
        assert manifest["run_state"] in ("running", "interrupted")
        filler.unlink()
        resumed = subprocess.run(
            _evaluator("run", *base, "--resume", "t"),
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert resumed.returncode == 0, resumed.stderr
        summary = json.loads(resumed.stdout)
        assert summary["run_state"] == "completed"
        assert summary["counts"] == {"pass": 3, "fail": 0, "blocked": 0}


def test_unwritable_runs_dir_is_an_environment_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = tmp_path / "runs"
    unwritable: AbstractContextManager[None]
    if os.geteuid() == 0:  # root writes through permissions: use a read-only file system
        unwritable, why = _mounted_tmpfs(runs, "ro,size=1m"), "Read-only file system"
    else:
        runs.mkdir()
        runs.chmod(0o500)
        unwritable, why = nullcontext(), "Permission denied"
    with unwritable, scratch_dir() as scratch:
        code, err = _cli(
            [
                "run",
                "--repo",
                str(ROOT / "agentic-evals"),
                "--runs-dir",
                str(runs),
                "--scratch-root",
                str(scratch),
                "--behaviors",
                str(BEHAVIORS / "follows-skill"),
                "--run-id",
                "ro",
            ],
            capsys,
        )
        assert not run_scratch(scratch, "ro").exists()
    assert code == 3
    assert err.strip() == (f"agentic-eval: cannot create the run directory {runs / 'ro'}: {why}")


# ------------------------------------------------------------------ secrets and scratch

PASSWORD = 'pa"ss\\wörd-42'
URL_PASSWORD = "s3cr%40t-pw"  # the URL form of s3cr@t-pw


def test_secrets_in_every_encoding_and_url_credentials_never_reach_the_run_dir(
    tmp_path: Path,
) -> None:
    repo = copy_demo(tmp_path)
    case_file = repo / "targets/db-migrations/cases/routing/routing-add-column.yaml"
    data = yaml.safe_load(case_file.read_text())
    data["setup"] = {
        "env": {
            "DB_PASSWORD": PASSWORD,
            "DATABASE_URL": f"postgres://app:{URL_PASSWORD}@127.0.0.1:5432/shop",
        },
        "secret_env_vars": ["DB_PASSWORD"],
    }
    case_file.write_text(yaml.safe_dump(data, allow_unicode=True))
    behaviors = tmp_path / "b"
    behaviors.mkdir()
    (behaviors / "leak.yaml").write_text(
        yaml.safe_dump(
            {
                "name": "leak",
                "match": {"prompt_contains": "default currency"},
                "steps": [
                    {"cmd": 'printf "%s\\n" "$DB_PASSWORD" "$DATABASE_URL" > seen.txt'},
                    {"cmd": "cat seen.txt"},
                    {
                        "final": f"password {PASSWORD}, url-encoded {quote(PASSWORD)},"
                        " database password s3cr@t-pw"
                    },
                ],
            },
            allow_unicode=True,
        )
    )
    forms = [
        PASSWORD,
        json.dumps(PASSWORD)[1:-1],
        json.dumps(PASSWORD, ensure_ascii=False)[1:-1],
        quote(PASSWORD, safe=""),
        str(markupsafe.escape(PASSWORD)),  # as report.html would hold it
        URL_PASSWORD,
        "s3cr@t-pw",
    ]
    runs = tmp_path / "runs"
    with scratch_dir() as scratch:
        code = subprocess.run(
            run_command(
                repo,
                runs,
                scratch,
                "--behaviors",
                str(behaviors),
                "--case",
                "routing-add-column",
                "--run-id",
                "s",
                "--keep-scratch",
            ),
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert code.returncode == 1, code.stderr  # the demo's checks fail; the secrets matter
        kept = run_scratch(scratch, "s")
        # The agent did get the secrets: its workspace held them, and the kept scratch holds
        # them redacted now that the run is over.
        seen = (attempt_folder(kept / "w", "routing-add-column", 1) / "seen.txt").read_text()
        assert seen == (
            "[REDACTED:DB_PASSWORD]\n"
            "postgres://app:[REDACTED:DATABASE_URL:password]@127.0.0.1:5432/shop\n"
        )
        assert stat.S_IMODE(scratch.stat().st_mode) == 0o700
        loose = [
            p
            for p in [kept, *kept.rglob("*")]
            if not p.is_symlink() and p.stat().st_mode & (stat.S_IRWXG | stat.S_IRWXO)
        ]
        assert loose == []
    leaked = {
        str(p.relative_to(runs)): form
        for p in runs.rglob("*")
        if p.is_file()
        for form in forms
        if form in p.read_text(encoding="utf-8", errors="replace")
    }
    assert leaked == {}
    artifacts = runs / "s/case-artifacts/routing-add-column"
    raw = (artifacts / "accepted-session.jsonl").read_text()
    assert "[REDACTED:DB_PASSWORD]" in raw and "[REDACTED:DATABASE_URL:password]" in raw
    # Copied sessions are 0600 like every artifact.
    for path in (runs / "s").rglob("*"):
        if path.is_file() and path.name != ".lock":
            assert stat.S_IMODE(path.stat().st_mode) == 0o600, path


# ------------------------------------------------------------------ re-judging without scratch


def test_judge_after_the_scratch_is_gone_gives_the_same_verdicts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = tmp_path / "runs"
    cases = (
        "workflow-creates-migration-with-script",
        "workflow-keeps-shipped-migrations",
        "routing-add-column",
    )
    with scratch_dir() as scratch:
        args = ["run", "--repo", str(ROOT / "agentic-evals"), "--runs-dir", str(runs)]
        args += ["--scratch-root", str(scratch), "--behaviors", str(BEHAVIORS / "follows-skill")]
        args += ["--run-id", "j", "--json"]
        for case in cases:
            args += ["--case", case]
        code, _ = _cli(args, capsys)
        assert code == 0
        assert not run_scratch(scratch, "j").exists()  # the workspaces are gone
    ran = {c: json.loads((runs / f"j/case-results/{c}.json").read_text()) for c in cases}
    code, _ = _cli(["judge", str(runs / "j"), "--json"], capsys)
    assert code == 0
    for case in cases:
        again = json.loads((runs / f"j/case-results/{case}.json").read_text())
        assert again["status"] == ran[case]["status"] == "pass"
        assert [(a["summary"], a["status"]) for a in again["assertions"]] == [
            (a["summary"], a["status"]) for a in ran[case]["assertions"]
        ]
    snapshot = runs / "j/case-artifacts/workflow-creates-migration-with-script/attempts"
    manifest = json.loads((snapshot / "attempt-01/workspace/manifest.json").read_text())
    created = [e for e in manifest["files"] if e["path"].startswith("migrations/0001_")]
    assert [(e["change"], e["kept"]) for e in created] == [("created", "saved")]
    # Without the snapshot, the workspace checks cannot be decided: blocked, never passed.
    shutil.rmtree(snapshot / "attempt-01/workspace")
    code, _ = _cli(["judge", str(runs / "j"), "--json"], capsys)
    assert code == 1
    blocked = json.loads(
        (runs / "j/case-results/workflow-creates-migration-with-script.json").read_text()
    )
    assert blocked["status"] == "blocked"
    assert blocked["blocked_reason"] == "insufficient-evidence"


def test_a_disk_full_before_the_first_attempt_is_an_environment_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    runs = tmp_path / "runs"

    def full_disk(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), os.readlink(f"/proc/self/fd/{fd}"))

    monkeypatch.setattr("evaluator.artifacts.rundir.os.fsync", full_disk)
    with scratch_dir() as scratch:
        code, err = _cli(
            [
                "run",
                "--repo",
                str(ROOT / "agentic-evals"),
                "--runs-dir",
                str(runs),
                "--scratch-root",
                str(scratch),
                "--behaviors",
                str(BEHAVIORS / "follows-skill"),
                "--run-id",
                "early",
            ],
            capsys,
        )
        assert not run_scratch(scratch, "early").exists()
    assert code == 3
    assert err.startswith("agentic-eval: cannot write ") and err.count("\n") == 1
    assert "No space left on device; run early stopped, before starting" in err
    # No manifest could be written: nothing to resume, so the directory the run claimed goes
    # (before the ninth review a `.lock` alone stayed, and `--resume early` was "not a run").
    assert "then run it again" in err
    assert not (runs / "early").exists()


@pytest.mark.claude
def test_an_interrupted_claude_attempt_keeps_its_session(tmp_path: Path) -> None:
    """Resume records what a SIGKILLed run's attempt left, through the agent's adapter: Claude
    Code's transcript like Codex's rollout."""
    claude_or_skip()
    behaviors = tmp_path / "sleepy"
    behaviors.mkdir()
    data = yaml.safe_load((BEHAVIORS / "follows-skill/routing-add-column.yaml").read_text())
    data["steps"][:0] = [{"cmd": "sleep 100"}]
    (behaviors / "routing-add-column.yaml").write_text(yaml.safe_dump(data))
    runs = tmp_path / "runs"
    with scratch_dir() as scratch:
        common = ["--repo", str(ROOT / "agentic-evals"), "--runs-dir", str(runs)]
        # On disk: a resume records what a killed run's attempt left in its scratch (the in-memory
        # scratch goes with the run: tests/workspace/test_memory_scratch.py).
        common += ["--scratch-root", str(scratch), "--scratch-memory", "off", "--json"]
        first = subprocess.Popen(
            _evaluator(
                "run",
                *common,
                "--agent",
                "claude-code",
                "--behaviors",
                str(behaviors),
                "--case",
                "routing-add-column",
                "--run-id",
                "c",
            ),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        workspace = attempt_folder(run_scratch(scratch, "c") / "w", "routing-add-column", 1)
        _wait_for(lambda: any(b"sleep" in _cmdline(pid) for pid in _processes_under(workspace)))
        os.kill(first.pid, signal.SIGKILL)
        first.communicate(timeout=30)
        _wait_for(lambda: not _processes_under(run_scratch(scratch, "c")), timeout=20)
        (behaviors / "routing-add-column.yaml").write_text(
            (BEHAVIORS / "follows-skill/routing-add-column.yaml").read_text()
        )
        resumed = subprocess.run(
            _evaluator("run", *common, "--resume", "c"),
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert resumed.returncode == 0, resumed.stderr
    recorded = runs / "c/case-artifacts/routing-add-column/attempts/attempt-01"
    assert json.loads((recorded / "attempt.json").read_text())["interrupted"] is True
    session = (recorded / "interrupted-session.jsonl").read_text()
    assert '"sessionId"' in session  # Claude Code's transcript, as it stood when killed
    manifest = json.loads((runs / "c/manifest.json").read_text())
    assert manifest["agent"] == "claude-code" and manifest["agent_version"]
