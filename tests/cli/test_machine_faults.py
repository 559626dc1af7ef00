"""The machine's faults outside a run's attempts are exit 3 with a line that says what to do
(the ninth new user's review: an operator on a shared box). On main, `report` on a full or
read-only disk and `model-server --port` on a port taken were exit 70, "internal error"."""

from __future__ import annotations

import errno
import os
import socket
from pathlib import Path
from typing import Any

import pytest

from evaluator.artifacts.rundir import RunDir
from evaluator.cli.main import run_cli
from evaluator.pipeline.run import _refused_place
from tests.conftest import ROOT
from tests.interop.test_interop import make_run

BEHAVIORS = ROOT / "agentic-evals/targets/db-migrations/behaviors/follows-skill"


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EROFS, errno.EDQUOT])
def test_report_on_a_disk_that_refuses_writes_is_exit_3_naming_the_file(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    code: int,
) -> None:
    run_dir = make_run(tmp_path, "r", "codex-exec", {"c": ["pass"]})
    capsys.readouterr()

    def refused(fd: int) -> None:
        raise OSError(code, os.strerror(code), os.readlink(f"/proc/self/fd/{fd}"))

    monkeypatch.setattr("evaluator.artifacts.rundir.os.fsync", refused)
    assert run_cli(["report", str(run_dir.path)]) == 3
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"agentic-eval: cannot write {run_dir.path}/")
    assert os.strerror(code) in lines[0] and "then run again" in lines[0]
    assert "internal error" not in err


def test_an_error_of_another_kind_is_still_an_internal_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The look-alike: an OSError the disk's state does not explain is a bug to report."""
    run_dir = make_run(tmp_path, "r", "codex-exec", {"c": ["pass"]})
    capsys.readouterr()

    def broken(fd: int) -> None:
        raise OSError(errno.EBADF, os.strerror(errno.EBADF))

    monkeypatch.setattr("evaluator.artifacts.rundir.os.fsync", broken)
    assert run_cli(["report", str(run_dir.path)]) == 70
    assert "internal error: OSError" in capsys.readouterr().err


def test_model_server_on_a_port_taken_is_exit_3(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        code = run_cli(["model-server", "--behaviors", str(BEHAVIORS), "--port", str(port)])
    assert code == 3
    err = capsys.readouterr().err
    assert f"--port: cannot listen on 127.0.0.1:{port}: Address already in use" in err
    assert "0 picks a free one" in err and "internal error" not in err


def test_a_write_cut_short_names_the_disk_that_is_full(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A `write()` refused names no file: the line named the run directory even when the
    scratch (often another disk) was the full one, sending the user to free the wrong disk."""
    scratch, run_dir = tmp_path / "scratch", RunDir(tmp_path / "runs/r")
    real_statvfs = os.statvfs

    def statvfs(path: Any) -> Any:
        stats = real_statvfs(path)
        if Path(path) != full:
            return stats
        values = list(stats)
        values[4] = 0  # f_bavail
        return os.statvfs_result(values)

    monkeypatch.setattr("evaluator.pipeline.run.os.statvfs", statvfs)
    cut_short = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    scratch.mkdir()
    run_dir.path.mkdir(parents=True)
    for full in (scratch, run_dir.path):
        assert _refused_place(cut_short, run_dir, scratch) == full
    named = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(tmp_path / "x"))
    assert _refused_place(named, run_dir, scratch) == str(tmp_path / "x")
