"""The driver's cost per attempt, `local` against `ray`, and a 10,000-attempt run's driver side.

1. Real attempts (the real agent CLI, the scripted model, one case, 1 worker), with each
   executor in turn: per attempt, the time the driver thread spends submitting and landing it
   (writing its bundle, the case result), the bundle's size, and the wall time per attempt (the
   run's wall time over its attempts, the fixed start-up left out by differencing two runs).
2. The driver alone: a synthetic executor hands back ready outcomes at once (no agent, no
   workspace), K attempts on each of the demo target's 10 cases, so that what is measured is the
   driver's bookkeeping, bundle writes, case results and reports for 10,000 attempts.
Run: .venv/bin/python -m benchmarks.driver_overhead [--attempts 5] [--simulated 10000]
"""

from __future__ import annotations

import argparse
import shutil
import time
import uuid
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import replace
from pathlib import Path
from typing import Any

from benchmarks.common import ROOT, SCRATCH, median, table
from evaluator import execute as execute_module
from evaluator.execute.base import Executor
from evaluator.pipeline import run as run_module
from evaluator.pipeline.attempt import (
    ArtifactBundle,
    AttemptOutcome,
    AttemptSpec,
    perform_failed,
)
from evaluator.pipeline.progress import PlainProgress
from evaluator.pipeline.run import Run, RunOptions

BEHAVIORS = ROOT / "agentic-evals/targets/db-migrations/behaviors/follows-skill"
CASE = "routing-add-column"
DEMO_CASES = 10


class DriverClock:
    """Time the driver thread spends on each attempt: submitting it, and landing it."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.attempts = 0
        self.bundle_bytes: list[int] = []
        self.patches: list[tuple[str, Callable[..., Any]]] = []

    def __enter__(self) -> DriverClock:
        for name in ("_submit", "_landed"):
            original = getattr(Run, name)
            self.patches.append((name, original))
            setattr(Run, name, self._timed(original))
        original_write = Run._write

        def write(run: Run, run_dir: Any, landed: AttemptOutcome) -> None:
            self.bundle_bytes.append(landed.bundle.size)
            original_write(run, run_dir, landed)

        self.patches.append(("_write", original_write))
        Run._write = write  # type: ignore[method-assign,assignment]
        return self

    def _timed(self, original: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any) -> Any:
            start = time.perf_counter()
            try:
                return original(*args)
            finally:
                self.seconds += time.perf_counter() - start
                if original.__name__ == "_submit":
                    self.attempts += 1

        return timed

    def __exit__(self, *exc: object) -> None:
        for name, original in self.patches:
            setattr(Run, name, original)


def _options(base: Path, **given: Any) -> RunOptions:
    return RunOptions(
        repo=ROOT / "agentic-evals",
        behaviors=BEHAVIORS,
        runs_dir=base / "runs",
        scratch_root=base / "scratch",
        run_id=f"b-{uuid.uuid4().hex[:6]}",
        sandbox="none",
        trace="off",
        **given,
    )


def _quiet() -> PlainProgress:
    return PlainProgress(open("/dev/null", "w"))


def real_runs(base: Path, executor: str, attempts: int) -> list[str]:
    walls = {}
    with DriverClock() as clock:
        for k in (1, attempts):
            start = time.perf_counter()
            options = _options(base, cases=(CASE,), attempts=k, workers=1, executor=executor)
            outcome = Run(options, _quiet()).execute()
            walls[k] = time.perf_counter() - start
            assert outcome.results[0].status == "pass"
    per_attempt = (walls[attempts] - walls[1]) / max(1, attempts - 1)
    return [
        executor,
        str(clock.attempts),
        f"{clock.seconds / clock.attempts * 1000:.1f} ms",
        f"{median(clock.bundle_bytes) / 1024:.0f} KB",
        f"{per_attempt:.2f} s",
    ]


class Synthetic(Executor[AttemptSpec, AttemptOutcome]):
    """Outcomes at once, copied from one made before the run: the driver is all that works."""

    name = "synthetic"
    template: AttemptOutcome | None = None

    def submit(self, spec: AttemptSpec) -> Future[AttemptOutcome]:
        template = Synthetic.template
        if template is None:
            template = Synthetic.template = perform_failed(spec, "synthetic outcome")
        old = template.bundle
        bundle = ArtifactBundle(spec.case.case_id, spec.number)
        old_prefix = old.attempt_path.rsplit("/", 1)[0]
        new_prefix = bundle.attempt_path.rsplit("/", 1)[0]
        bundle.files = {
            path.replace(old_prefix, new_prefix): content.replace(
                old_prefix.encode(), new_prefix.encode()
            )
            for path, content in old.files.items()
        }
        result = replace(template.result, case_id=spec.case.case_id, number=spec.number)
        future: Future[AttemptOutcome] = Future()
        future.set_result(AttemptOutcome(result, bundle))
        return future

    def stop(self) -> None:
        pass

    def close(self) -> None:
        pass


def simulated(base: Path, total: int) -> list[str]:
    per_case = max(1, total // DEMO_CASES)
    original = execute_module.executor_class
    run_module.executor_class = lambda name: Synthetic  # type: ignore[attr-defined]
    Synthetic.template = None
    try:
        with DriverClock() as clock:
            start = time.perf_counter()
            options = _options(base, attempts=per_case, workers=64)
            outcome = Run(options, _quiet()).execute()
            wall = time.perf_counter() - start
    finally:
        run_module.executor_class = original  # type: ignore[attr-defined]
    size = sum(f.stat().st_size for f in outcome.run_dir.path.rglob("*") if f.is_file())
    return [
        str(clock.attempts),
        f"{wall:.1f} s",
        f"{wall / clock.attempts * 1000:.2f} ms",
        f"{clock.seconds / clock.attempts * 1000:.2f} ms",
        f"{size / 1024 / 1024:.1f} MB",
    ]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--attempts", type=int, default=5, help="Real attempts per executor.")
    parser.add_argument("--simulated", type=int, default=10_000, help="Synthetic attempts.")
    parser.add_argument("--skip-ray", action="store_true", help="Real attempts with local only.")
    args = parser.parse_args()
    base = SCRATCH / f"driver-{uuid.uuid4().hex[:6]}"
    base.mkdir(parents=True)
    (base / "scratch").mkdir(mode=0o700)
    try:
        executors = ["local"] if args.skip_ray else ["local", "ray"]
        if not args.skip_ray:
            import ray

            # What the tests use: two CPUs, a bounded object store.
            ray.init(num_cpus=2, object_store_memory=100 * 1024 * 1024, include_dashboard=False)
        try:
            rows = [real_runs(base, executor, args.attempts) for executor in executors]
        finally:
            if not args.skip_ray:
                ray.shutdown()
        table(
            f"Driver cost per real attempt ({CASE}, 1 worker, evidence only)",
            ["executor", "attempts", "driver thread", "bundle (median)", "wall per attempt"],
            rows,
        )
        table(
            f"The driver alone: {args.simulated} synthetic attempts over {DEMO_CASES} cases",
            ["attempts", "wall", "wall per attempt", "driver thread", "run dir"],
            [simulated(base, args.simulated)],
        )
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
