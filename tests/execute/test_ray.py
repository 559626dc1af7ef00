"""`--executor ray` on a local Ray instance (2 CPUs): the same verdicts as `local`, each
attempt.json written once by the driver, a killed worker's attempt rerun once with its agent
gone, and a run started with one executor resumed with the other."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from evaluator.artifacts.models import CaseResult
from evaluator.pipeline import attempt as attempt_module
from evaluator.pipeline.progress import PlainProgress
from evaluator.pipeline.run import Run, RunOptions, RunOutcome
from tests.conftest import ROOT, in_ci
from tests.support import codex_or_skip, scratch_dir

pytestmark = [pytest.mark.ray, pytest.mark.codex]
BEHAVIORS = ROOT / "agentic-evals/targets/db-migrations/behaviors/follows-skill"
TASK_TITLE = b"agentic-eval-attempt"  # Ray names a worker's process after the task it runs


@pytest.fixture(scope="module")
def ray_instance() -> Iterator[Any]:
    try:
        import ray
    except ImportError:
        if in_ci():
            pytest.fail("the ray extra is required in CI")
        pytest.skip("ray is not installed (pip install 'agentic-eval[ray]')")
    ray.init(num_cpus=2, object_store_memory=100 * 1024 * 1024, include_dashboard=False)
    try:
        yield ray
    finally:
        ray.shutdown()


def _run(tmp_path: Path, scratch: Path, run: Run | None = None, **given: Any) -> RunOutcome:
    given.setdefault("workers", 2)
    options = RunOptions(
        repo=ROOT / "agentic-evals",
        behaviors=BEHAVIORS,
        runs_dir=tmp_path / "runs",
        scratch_root=scratch,
        **given,
    )
    if run is not None:
        run.options = options
        return run.execute()
    return Run(options, PlainProgress()).execute()


def verdicts(results: list[CaseResult]) -> dict[str, Any]:
    """What a run decided, without ids, paths and times."""
    return {
        r.case_id: (
            r.status,
            r.blocked_reason,
            [(a.entry_id, a.status) for a in r.assertions],
            [(a.status, a.blocked_reason, a.valid, a.isolation) for a in r.attempts],
        )
        for r in results
    }


@pytest.fixture(scope="module")
def local_verdicts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    codex_or_skip()
    with scratch_dir() as scratch:
        outcome = _run(tmp_path_factory.mktemp("local"), scratch)
    assert outcome.manifest.run_state == "completed"
    return verdicts(outcome.results)


def test_ray_gives_the_verdicts_of_local_with_each_attempt_written_once(
    ray_instance: Any,
    local_verdicts: dict[str, Any],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    codex_or_skip()
    writes: Counter[str] = Counter()
    real_write = attempt_module.write_bytes_atomic

    def counting(path: Path, content: bytes, *, sync: bool = True) -> None:
        writes[path.relative_to(tmp_path).as_posix()] += 1
        real_write(path, content, sync=sync)

    monkeypatch.setattr(attempt_module, "write_bytes_atomic", counting)
    with scratch_dir() as scratch:
        outcome = _run(tmp_path, scratch, executor="ray")
    assert verdicts(outcome.results) == local_verdicts
    assert len(local_verdicts) == 10
    on_disk = sorted(
        p.relative_to(tmp_path).as_posix() for p in tmp_path.glob("runs/*/**/attempt.json")
    )
    assert len(on_disk) == 10
    assert {path: writes[path] for path in on_disk} == dict.fromkeys(on_disk, 1)
    assert "attempts ran on the ray executor" in outcome.manifest.notes


def _pids_mentioning(needle: bytes) -> list[int]:
    found = []
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            if needle in (entry / "cmdline").read_bytes() and int(entry.name) != os.getpid():
                found.append(int(entry.name))
        except (OSError, ValueError):
            continue
    return found


def _ancestors(pid: int) -> list[int]:
    """`pid`'s parent, its parent's parent, and so on up to init."""
    found = []
    while pid > 1:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            break  # gone meanwhile
        pid = int(stat.rsplit(")", 1)[1].split()[1])
        found.append(pid)
    return found


def test_a_killed_worker_gives_one_rerun_and_leaves_no_agent(
    ray_instance: Any, tmp_path: Path
) -> None:
    codex_or_skip()
    killed: list[int] = []
    with scratch_dir() as scratch:
        first_workspace = str(scratch).encode()

        def kill_first_worker() -> None:
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline and not killed:
                agents = [p for p in _pids_mentioning(first_workspace) if p not in killed]
                # only the worker running this attempt: another run on the machine (a parallel
                # test, another checkout's suite) may have Ray workers with the same title
                titled = set(_pids_mentioning(TASK_TITLE))
                workers = sorted({p for a in agents for p in _ancestors(a) if p in titled})
                if agents and workers:
                    os.kill(workers[0], signal.SIGKILL)
                    killed.append(workers[0])
                time.sleep(0.1)

        killer = threading.Thread(target=kill_first_worker, daemon=True)
        killer.start()
        outcome = _run(
            tmp_path,
            scratch,
            executor="ray",
            cases=("routing-add-column",),
            workers=1,
            scripted_latency_s=1.0,  # slow enough replies to kill the worker mid-attempt
        )
        killer.join()
        leftover = _pids_mentioning(str(scratch / outcome.run_dir.run_id).encode())
    assert killed, "no Ray worker ran an attempt"
    (result,) = outcome.results
    lost, rerun = result.attempts
    assert lost.interrupted and "lost with its worker" in (lost.reason or "")
    assert not rerun.interrupted and result.status == "pass"
    assert leftover == []
    records = list(outcome.run_dir.path.glob("case-artifacts/*/attempts/*/attempt.json"))
    assert len(records) == 2


class StopAfterFirstCase(PlainProgress):
    def __init__(self) -> None:
        super().__init__()
        self.run: Run | None = None

    def case_finished(self, result: CaseResult) -> None:
        super().case_finished(result)
        assert self.run is not None
        self.run.stop.set()


def test_a_run_started_with_local_resumes_with_ray(
    ray_instance: Any, local_verdicts: dict[str, Any], tmp_path: Path
) -> None:
    codex_or_skip()
    cases = ("routing-add-column", "routing-rename-table", "bootstrap-reads-skill-first")
    progress = StopAfterFirstCase()
    with scratch_dir() as scratch:
        run = Run(RunOptions(repo=ROOT / "agentic-evals"), progress)
        progress.run = run
        stopped = _run(tmp_path, scratch, run, cases=cases, workers=1, run_id="both")
        assert stopped.interrupted and len(stopped.results) == 1
        resumed = _run(tmp_path, scratch, executor="ray", resume="both")
    assert resumed.manifest.run_state == "completed"
    assert verdicts(resumed.results) == {case: local_verdicts[case] for case in cases}
    manifest = json.loads((resumed.run_dir.path / "manifest.json").read_text())
    assert any("resumed at" in note for note in manifest["notes"])


class StopWhenAgentRuns(PlainProgress):
    """Stops the run (as Ctrl-C does) once the first attempt's agent is running."""

    def __init__(self, scratch: Path) -> None:
        super().__init__()
        self.run: Run | None = None
        self.scratch = scratch

    def attempt_started(self, case_id: str, number: int) -> None:
        super().attempt_started(case_id, number)
        threading.Thread(target=self._stop_once_running, daemon=True).start()

    def _stop_once_running(self) -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not _pids_mentioning(str(self.scratch).encode()):
            time.sleep(0.1)
        assert self.run is not None
        self.run.stop.set()


def test_a_ray_run_stopped_mid_attempt_lists_it_and_resumes_with_local(
    ray_instance: Any, local_verdicts: dict[str, Any], tmp_path: Path
) -> None:
    codex_or_skip()
    with scratch_dir() as scratch:
        progress = StopWhenAgentRuns(scratch)
        run = Run(RunOptions(repo=ROOT / "agentic-evals"), progress)
        progress.run = run
        stopped = _run(
            tmp_path,
            scratch,
            run,
            executor="ray",
            cases=("routing-add-column",),
            workers=1,
            run_id="stopped",
            scripted_latency_s=1.0,
        )
        assert stopped.interrupted and stopped.results == []
        assert _pids_mentioning(str(scratch).encode()) == []
        first = stopped.run_dir.path / "case-artifacts/routing-add-column/attempts/attempt-01"
        record = json.loads((first / "attempt.json").read_text())
        assert record["interrupted"] and "the run was stopped during it" in record["reason"]
        resumed = _run(tmp_path, scratch, resume="stopped")
    assert resumed.manifest.run_state == "completed"
    (result,) = resumed.results
    assert [(a.attempt, a.interrupted) for a in result.attempts] == [(1, True), (2, False)]
    assert (
        verdicts(resumed.results)["routing-add-column"][:3]
        == (local_verdicts["routing-add-column"][:3])
    )
