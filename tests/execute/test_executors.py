"""Executors and the driver: bundles, the registry, one writer, attempts lost with a worker."""

from __future__ import annotations

import json
import sys
from collections import Counter
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest

from evaluator.artifacts.rundir import RunDir
from evaluator.errors import EnvironmentProblem, InputError
from evaluator.execute import ExecutorSettings, executor_class, open_executor
from evaluator.execute.base import Executor
from evaluator.pipeline import attempt as attempt_module
from evaluator.pipeline import run as run_module
from evaluator.pipeline.attempt import AttemptSpec, perform_failed, take_bundle
from evaluator.pipeline.progress import PlainProgress
from evaluator.pipeline.run import Run, RunOptions
from tests.conftest import ROOT
from tests.support import scratch_dir

BEHAVIORS = ROOT / "agentic-evals/targets/db-migrations/behaviors/follows-skill"
CASE = "routing-add-column"


def test_a_bundle_is_the_staged_attempt_as_data_written_attempt_json_last(tmp_path: Path) -> None:
    staging = RunDir(tmp_path / "staging" / "r1")
    directory = staging.attempt_artifacts(CASE, 3)
    (directory / "workspace").mkdir(parents=True)
    (directory / "workspace" / "a.sql").write_text("select 1;\n")
    (directory / "attempt.json").write_text(json.dumps({"attempt": 3, "reason": "why"}))
    bundle = take_bundle(staging, CASE, 3)
    assert not directory.exists()  # taken: the staging area keeps nothing
    prefix = f"case-artifacts/{CASE}/attempts/attempt-03"
    assert sorted(bundle.files) == [f"{prefix}/attempt.json", f"{prefix}/workspace/a.sql"]
    bundle.mark_interrupted("the run was stopped during it")
    order: list[str] = []
    run_dir = RunDir(tmp_path / "runs" / "r1")

    def recording(path: Path, content: bytes, *, sync: bool = True) -> None:
        order.append(path.name)
        real_write(path, content, sync=sync)

    real_write = attempt_module.write_bytes_atomic
    attempt_module.write_bytes_atomic = recording  # type: ignore[assignment]
    try:
        bundle.write(run_dir)
    finally:
        attempt_module.write_bytes_atomic = real_write  # type: ignore[assignment]
    assert order == ["a.sql", "attempt.json"]
    written = json.loads((run_dir.path / prefix / "attempt.json").read_text())
    assert written["interrupted"] is True
    assert written["reason"] == "the run was stopped during it; why"
    assert (run_dir.path / prefix / "workspace" / "a.sql").read_text() == "select 1;\n"


def test_the_registry_names_each_executor_and_refuses_others() -> None:
    assert executor_class("local").name == "local"
    with pytest.raises(InputError, match="unknown executor 'slurm'"):
        executor_class("slurm")
    local = open_executor("local", lambda n: n * 2, ExecutorSettings(workers=2))
    try:
        assert [local.submit(n).result() for n in (1, 2)] == [2, 4]
    finally:
        local.close()


def test_ray_without_its_extra_is_one_environment_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # what an interpreter without ray raises
    with pytest.raises(EnvironmentProblem, match=r"pip install 'agentic-eval\[ray\]'"):
        executor_class("ray").check_available()


class WorkerLost(Exception):
    pass


class Synthetic(Executor[AttemptSpec, Any]):
    """Runs no agent: each attempt comes back blocked at once, or lost with its worker."""

    name = "synthetic"
    lose: Callable[[AttemptSpec], bool] = staticmethod(lambda spec: False)  # type: ignore[assignment]

    def submit(self, spec: AttemptSpec) -> Future[Any]:
        future: Future[Any] = Future()
        if type(self).lose(spec):
            future.set_exception(WorkerLost("gone"))
        else:
            future.set_result(perform_failed(spec, "synthetic outcome"))
        return future

    def lost(self, error: BaseException) -> bool:
        return isinstance(error, WorkerLost)

    def stop(self) -> None:
        pass

    def close(self) -> None:
        pass


def _run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lose: Callable[[AttemptSpec], bool]
) -> tuple[Path, Counter[str]]:
    monkeypatch.setattr(Synthetic, "lose", staticmethod(lose))
    monkeypatch.setattr(run_module, "executor_class", lambda name: Synthetic)
    writes: Counter[str] = Counter()
    real_write = attempt_module.write_bytes_atomic

    def counting(path: Path, content: bytes, *, sync: bool = True) -> None:
        writes[str(path.relative_to(tmp_path / "runs"))] += 1
        real_write(path, content, sync=sync)

    monkeypatch.setattr(attempt_module, "write_bytes_atomic", counting)
    with scratch_dir() as scratch:
        outcome = Run(
            RunOptions(
                repo=ROOT / "agentic-evals",
                cases=(CASE,),
                behaviors=BEHAVIORS,
                runs_dir=tmp_path / "runs",
                scratch_root=scratch,
                run_id="r1",
                sandbox="none",
                trace="off",
                keep_scratch=True,  # so that what staging kept can be looked at
            ),
            PlainProgress(),
        ).execute()
        assert not list(scratch.glob("**/attempt.json"))  # staged attempts were all taken
    assert outcome.manifest.run_state == "completed"
    return outcome.run_dir.path, writes


def _attempts(run_dir: Path) -> list[dict[str, Any]]:
    result = json.loads((run_dir / "case-results" / f"{CASE}.json").read_text())
    return list(result["attempts"])


@pytest.mark.usefixtures("stub_agent_clis")
def test_an_attempt_lost_with_its_worker_is_listed_and_run_again_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_dir, writes = _run(tmp_path, monkeypatch, lambda spec: spec.number == 1)
    first, second = _attempts(run_dir)
    assert first["interrupted"] and "lost with its worker (WorkerLost)" in first["reason"]
    assert not second["interrupted"] and second["reason"] == "synthetic outcome"
    assert second["retry_of"] is None  # a lost attempt is no invalid one: no rerun is used up
    attempt_files = {path: n for path, n in writes.items() if path.endswith("attempt.json")}
    assert attempt_files == {
        f"r1/case-artifacts/{CASE}/attempts/attempt-01/attempt.json": 1,
        f"r1/case-artifacts/{CASE}/attempts/attempt-02/attempt.json": 1,
    }


@pytest.mark.usefixtures("stub_agent_clis")
def test_an_attempt_lost_twice_is_blocked_environment_never_dropped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_dir, _ = _run(tmp_path, monkeypatch, lambda spec: True)
    first, second = _attempts(run_dir)
    assert first["interrupted"] and not second["interrupted"]
    assert (second["status"], second["blocked_reason"]) == ("blocked", "environment")
    assert "lost with its worker" in second["reason"]
    result = json.loads((run_dir / "case-results" / f"{CASE}.json").read_text())
    assert (result["status"], result["blocked_reason"]) == ("blocked", "environment")


class StopsTheRun(Synthetic):
    """The run is stopped (as by Ctrl-C) while its one attempt runs."""

    run: Run | None = None

    def submit(self, spec: AttemptSpec) -> Future[Any]:
        assert StopsTheRun.run is not None
        StopsTheRun.run.stop.set()
        return super().submit(spec)


@pytest.mark.usefixtures("stub_agent_clis")
def test_an_attempt_landing_after_the_stop_is_kept_interrupted_and_not_counted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(run_module, "executor_class", lambda name: StopsTheRun)
    with scratch_dir() as scratch:
        run = Run(
            RunOptions(
                repo=ROOT / "agentic-evals",
                cases=(CASE,),
                behaviors=BEHAVIORS,
                runs_dir=tmp_path / "runs",
                scratch_root=scratch,
                run_id="r1",
                sandbox="none",
                trace="off",
            ),
            PlainProgress(),
        )
        StopsTheRun.run = run
        outcome = run.execute()
    assert outcome.interrupted and outcome.manifest.run_state == "interrupted"
    assert outcome.results == []
    record = json.loads(
        (
            outcome.run_dir.path / f"case-artifacts/{CASE}/attempts/attempt-01/attempt.json"
        ).read_text()
    )
    assert record["interrupted"] and record["reason"].startswith("the run was stopped during it")
