"""Evaluator overhead per attempt, and parallel efficiency of the attempt pool.

1. Overhead: everything an attempt costs except the agent process (workspace, agent home,
   locating, parsing a ~100 KB session, isolation, judging, artifact writes), from real runs.
   Target: under 30 ms median with the session evidence alone, under 45 ms with the default
   jail + trace (issue 24).
2. Parallel efficiency: 48 scripted attempts with 1 s model latency per turn at 1, 4 and 8
   workers; wall time against the ideal (48 x the 1-worker attempt time / workers) and against
   the physical limit, max(ideal, CPU of the run / cores): on two cores the CPU the agents, their
   tools and the evaluator burn is the limit. Target: 8 workers within 1.15x of that limit.
Run: .venv/bin/python -m benchmarks.run_overhead [--attempts 48] [--workers 1,4,8] [--phases]
[--skip-overhead | --skip-parallel]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import time
import uuid
from contextlib import nullcontext
from pathlib import Path

import yaml

from benchmarks.common import ROOT, SCRATCH, median, table
from benchmarks.phases import PhaseProbe
from evaluator.pipeline import attempt as attempt_module
from evaluator.pipeline.attempt import AttemptResult
from evaluator.pipeline.progress import PlainProgress
from evaluator.pipeline.run import Run, RunOptions

SKILL = ".agents/skills/db-migrations"
PROMPT = "default currency per account"


def _behaviors(directory: Path, steps: list[dict[str, object]]) -> Path:
    directory.mkdir(parents=True)
    (directory / "b.yaml").write_text(
        yaml.safe_dump({"name": "bench", "match": {"prompt_contains": PROMPT}, "steps": steps})
    )
    return directory


class Timing:
    """Collects, for each attempt run while it is installed, its overhead (the attempt's wall
    time minus the agent process's own), the agent's time, and the CPU time of the thread that
    ran the attempt (the evaluator's own work, spawning the agent included; less noisy than wall
    time on a shared machine, where waiting for a core counts in the wall figure)."""

    original = staticmethod(attempt_module.run_attempt)

    def __init__(self) -> None:
        self.overheads: list[float] = []
        self.sizes: list[int] = []
        self.agent: list[float] = []
        self.cpu: list[float] = []
        self.install()

    def install(self) -> None:
        original = Timing.original

        def timed_attempt(*args: object, **kwargs: object) -> AttemptResult:
            start, cpu = time.perf_counter(), time.thread_time()
            result = original(*args, **kwargs)  # type: ignore[arg-type]
            total = time.perf_counter() - start
            self.cpu.append(time.thread_time() - cpu)
            assert result.handle is not None and result.status == "pass", result.reason
            self.overheads.append(total - result.handle.duration_s)
            self.agent.append(result.handle.duration_s)
            if result.session is not None:
                self.sizes.append(result.session.path.stat().st_size)
            return result

        attempt_module.run_attempt = timed_attempt

    @staticmethod
    def uninstall() -> None:
        attempt_module.run_attempt = Timing.original


# The isolation layers around the agent: the session evidence alone, and the default where the
# machine allows it (bubblewrap jail + strace trace, whose log is read after the agent exits).
LAYERS = {"evidence only": ("none", "off"), "jail + trace (default)": (None, "auto")}


def _run(
    base: Path,
    behaviors: Path,
    attempts: int,
    workers: int,
    latency: float,
    layers: tuple[str | None, str] = LAYERS["evidence only"],
) -> float:
    options = RunOptions(
        repo=ROOT / "agentic-evals",
        cases=("routing-add-column",),
        behaviors=behaviors,
        attempts=attempts,
        workers=workers,
        runs_dir=base / "runs",
        scratch_root=base / "scratch",
        run_id=f"w{workers}-{uuid.uuid4().hex[:12]}",  # one runs dir holds dozens of runs
        scripted_latency_s=latency,
        sandbox=layers[0],
        trace=layers[1],  # type: ignore[arg-type]
    )
    start = time.perf_counter()
    outcome = Run(options, PlainProgress(open("/dev/null", "w"))).execute()  # noqa: SIM115
    elapsed = time.perf_counter() - start
    assert outcome.results[0].stats and outcome.results[0].stats.passed == attempts
    return elapsed


def cpu_seconds() -> float:
    """CPU time (user + system) of this process and of every child it has reaped: the agents,
    their tools, the model server's threads and the evaluator's own work."""
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        usage = resource.getrusage(who)
        total += usage.ru_utime + usage.ru_stime
    return total


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--attempts", type=int, default=48)
    parser.add_argument("--overhead-attempts", type=int, default=12, help="Per set-up.")
    parser.add_argument("--skip-parallel", action="store_true", help="Only the overhead table.")
    parser.add_argument("--skip-overhead", action="store_true", help="Only the parallel table.")
    parser.add_argument(
        "--workers",
        default="1,4,8",
        help="Worker counts of the parallel table, comma-separated (1 is always run: the ideal).",
    )
    parser.add_argument(
        "--phases", action="store_true", help="Also where each attempt's time went, per phase."
    )
    args = parser.parse_args()
    base = SCRATCH / f"run-{uuid.uuid4().hex[:6]}"
    try:
        if not args.skip_overhead:
            overhead(base, args.overhead_attempts)
        if not args.skip_parallel:
            workers = sorted({1, *(int(w) for w in args.workers.split(","))})
            parallel(base, args.attempts, workers, args.phases)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def overhead(base: Path, attempts: int) -> None:
    big_steps: list[dict[str, object]] = [
        {"cmd": f"cat {SKILL}/SKILL.md {SKILL}/references/add-column.md"} for _ in range(14)
    ]
    big_steps = [
        {"cmd": f"cat {SKILL}/SKILL.md"},
        {"cmd": f"sed -n '1,80p' {SKILL}/references/add-column.md"},
        *big_steps,
        {"final": "ALTER TABLE accounts ADD COLUMN currency TEXT DEFAULT 'EUR';"},
    ]
    big = _behaviors(base / "big", big_steps)
    timings = {name: Timing() for name in LAYERS}
    # Interleaved, one attempt of each set-up in turn, so the machine's load (shared with
    # other jobs) drifts over both alike; the pairwise difference is the layers' own cost.
    for _ in range(attempts):
        for name, layers in LAYERS.items():
            timings[name].install()
            _run(base, big, 1, 1, 0.0, layers)
    Timing.uninstall()
    rows = []
    for name, timing in timings.items():
        rows.append(
            [
                name,
                f"{median(timing.sizes) / 1024:.0f} KB",
                f"{median(timing.agent) * 1000:.0f} ms",
                f"{min(timing.overheads) * 1000:.1f} ms",
                f"{median(timing.overheads) * 1000:.1f} ms",
                f"{max(timing.overheads) * 1000:.1f} ms",
                f"{min(timing.cpu) * 1000:.1f} / {median(timing.cpu) * 1000:.1f} ms",
            ]
        )
    evidence, default = (timings[name].overheads for name in LAYERS)
    extra = [b - a for a, b in zip(evidence, default, strict=True)]
    rows.append(
        [
            "difference, pair by pair",
            "",
            "",
            f"{min(extra) * 1000:.1f} ms",
            f"{median(extra) * 1000:.1f} ms",
            f"{max(extra) * 1000:.1f} ms",
            "",
        ]
    )
    table(
        f"Evaluator overhead per attempt (everything but the agent process; {attempts}"
        " attempts each, interleaved; targets < 30 ms evidence only, < 45 ms jail + trace)",
        [
            "layers",
            "session size",
            "agent (median)",
            "overhead min",
            "median",
            "max",
            "CPU min / median",
        ],
        rows,
    )


def parallel(base: Path, attempts: int, worker_counts: list[int], phases: bool) -> None:
    two_turns = _behaviors(
        base / "two", [{"cmd": f"cat {SKILL}/references/add-column.md"}, {"final": "done"}]
    )
    results: dict[str, tuple[int, float, float]] = {}
    probes: dict[str, PhaseProbe] = {}
    for workers in worker_counts:
        label = str(workers)
        probe = PhaseProbe()
        with probe.installed() if phases else nullcontext(probe):
            before = cpu_seconds()
            wall = _run(base, two_turns, attempts, workers, 1.0)
            results[label] = (workers, wall, cpu_seconds() - before)
        probes[label] = probe
    per_attempt = results["1"][1] / attempts
    cores = os.cpu_count() or 1
    rows = []
    for label, (workers, wall, cpu) in results.items():
        ideal = attempts * per_attempt / workers
        # What no scheduler can beat: the latency-bound ideal, or the CPU the agents, their
        # tools and the evaluator burned spread over every core, whichever is longer.
        limit = max(ideal, cpu / cores)
        rows.append(
            [
                label,
                f"{wall:.1f} s",
                f"{ideal:.1f} s",
                f"{cpu:.1f} s",
                f"{limit:.1f} s",
                f"{wall / ideal:.2f}x",
                f"{wall / limit:.2f}x",
            ]
        )
    table(
        f"{attempts} attempts, 2 turns at 1 s model latency each (ideal = 1-worker time /"
        f" workers; physical limit = max(ideal, CPU of the run / {cores} cores); target at 8"
        " workers: within 1.15x of the physical limit)",
        ["workers", "wall", "ideal", "CPU", "physical limit", "wall / ideal", "wall / limit"],
        rows,
    )
    if phases:
        by_phase: dict[str, list[str]] = {}
        for label in results:
            for phase, med, most in probes[label].rows():
                by_phase.setdefault(phase, []).append(f"{med} / {most}" if most else med)
        table(
            "Where an attempt's time went, per phase (median / max over the attempts; start-ups"
            " at once: the mean number of agents starting while any is)",
            ["phase", *(f"{label} worker(s)" for label in results)],
            [[phase, *cells] for phase, cells in by_phase.items()],
        )


if __name__ == "__main__":
    main()
