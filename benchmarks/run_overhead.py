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
[--layers "evidence only,jail + trace (default)"] [--rounds 10 --ideal-attempts 8]
[--start-gate on,off] [--scratch-memory auto,off]
[--skip-overhead | --skip-parallel]
"""

from __future__ import annotations

import argparse
import os
import shutil
import time
import uuid
from contextlib import nullcontext
from pathlib import Path
from typing import cast

import yaml

from benchmarks.common import ROOT, SCRATCH, TreeCpu, median, table
from benchmarks.phases import PhaseProbe
from evaluator.pipeline import attempt as attempt_module
from evaluator.pipeline.attempt import AttemptResult
from evaluator.pipeline.progress import PlainProgress
from evaluator.pipeline.run import Run, RunOptions
from evaluator.sandbox.ebpf import stop_shared_loaders
from evaluator.vocabulary import SCRATCH_MEMORY_CHOICES, ScratchMemory
from evaluator.workspace.memory import enter_private_mounts

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
    scratch_memory: ScratchMemory = "auto",
) -> float:
    options = RunOptions(
        scratch_memory=scratch_memory,
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
    parser.add_argument(
        "--layers",
        default="evidence only",
        help=f"Layer sets of the parallel table, comma-separated, of: {', '.join(LAYERS)}.",
    )
    parser.add_argument("--rounds", type=int, default=1, help="Rounds of the parallel table.")
    parser.add_argument(
        "--start-gate",
        default="on",
        help="The agents' start gate in the parallel table: on (one slot per core), off, a number"
        " of slots, or several of these comma-separated (each in turn).",
    )
    parser.add_argument(
        "--ideal-attempts",
        type=int,
        default=0,
        help="Attempts of each round's 1-worker run (the ideal); default: --attempts.",
    )
    parser.add_argument(
        "--scratch-memory",
        default="auto",
        help="The runs' scratch (evaluator/workspace/memory.py): auto (the default: in memory"
        " where the process may mount it), off (on disk), or both comma-separated (each in turn).",
    )
    args = parser.parse_args()
    scratches = [cast(ScratchMemory, m.strip()) for m in args.scratch_memory.split(",")]
    if not all(m in SCRATCH_MEMORY_CHOICES for m in scratches):
        parser.error(f"--scratch-memory: {args.scratch_memory!r}; give auto, on, off or a list")
    # As the CLI does before a command that runs agents starts a thread.
    unavailable = enter_private_mounts() if scratches != ["off"] else None
    if unavailable:
        print(f"scratch on disk: {unavailable}")
    base = SCRATCH / f"run-{uuid.uuid4().hex[:6]}"
    meter = TreeCpu()
    try:
        if not args.skip_overhead:
            overhead(base, args.overhead_attempts)
        if not args.skip_parallel:
            workers = sorted({1, *(int(w) for w in args.workers.split(","))})
            layer_names = [name.strip() for name in args.layers.split(",")]
            unknown = [name for name in layer_names if name not in LAYERS]
            if unknown:
                parser.error(f"--layers: unknown {unknown}; known: {', '.join(LAYERS)}")
            if not all(g in ("on", "off") or g.isdigit() for g in args.start_gate.split(",")):
                parser.error(f"--start-gate: {args.start_gate!r}; give on, off, slots, or a list")
            parallel(
                base,
                args.attempts,
                workers,
                args.phases,
                layer_names,
                args.rounds,
                args.ideal_attempts or args.attempts,
                meter,
                [gate.strip() for gate in args.start_gate.split(",")],
                scratches,
            )
    finally:
        shutil.rmtree(base, ignore_errors=True)
        stop_shared_loaders()  # the eBPF loader is in the meter's group: end it before leaving
        meter.close()


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


def parallel(
    base: Path,
    attempts: int,
    worker_counts: list[int],
    phases: bool,
    layer_names: list[str],
    rounds: int,
    ideal_attempts: int,
    meter: TreeCpu,
    gates: list[str],
    scratches: list[ScratchMemory],
) -> None:
    two_turns = _behaviors(
        base / "two", [{"cmd": f"cat {SKILL}/references/add-column.md"}, {"final": "done"}]
    )
    cores = os.cpu_count() or 1
    # Per layer set and worker count, one (wall, ideal, CPU) per round. The rounds interleave
    # every layer set and worker count, so the machine's drift falls on all of them alike; each
    # round measures its own ideal (the 1-worker attempt time of that round).
    figures: dict[tuple[str, int], list[tuple[float, float, float]]] = {}
    probes: dict[tuple[str, int], PhaseProbe] = {}
    for _ in range(rounds):
        for name, scratch in ((n, m) for n in layer_names for m in scratches):
            layers = LAYERS[name]
            # The ideal on the same scratch as the runs it bounds: memory makes one attempt
            # faster too, so each scratch is held to its own.
            kind = name if len(scratches) == 1 else f"{name}, scratch memory {scratch}"
            before = meter.seconds()
            one = _run(base, two_turns, ideal_attempts, 1, 1.0, layers, scratch)
            one_cpu = meter.seconds() - before
            per_attempt = one / ideal_attempts
            figures.setdefault((kind, 1), []).append((one, one, one_cpu))
            for gate in gates:
                label = kind if len(gates) == 1 else f"{kind}, start gate {gate}"
                os.environ["AGENTIC_EVAL_START_GATE"] = {"off": "0", "on": ""}.get(gate, gate)
                for workers in worker_counts:
                    if workers == 1:
                        continue
                    probe = probes.setdefault((label, workers), PhaseProbe())
                    with probe.installed() if phases else nullcontext(probe):
                        before = meter.seconds()
                        wall = _run(base, two_turns, attempts, workers, 1.0, layers, scratch)
                        cpu = meter.seconds() - before
                    figures.setdefault((label, workers), []).append(
                        (wall, attempts * per_attempt / workers, cpu)
                    )
                os.environ.pop("AGENTIC_EVAL_START_GATE", None)
    rows = []
    for (name, workers), runs in figures.items():
        # What no scheduler can beat: the latency-bound ideal, or the CPU the agents, their
        # tools and the evaluator burned spread over every core, whichever is longer.
        ratios = [wall / max(ideal, cpu / cores) for wall, ideal, cpu in runs]
        count = ideal_attempts if workers == 1 else attempts
        rows.append(
            [
                name,
                str(workers),
                str(count),
                f"{median([r[0] for r in runs]):.1f} s",
                f"{median([r[1] for r in runs]):.1f} s",
                f"{median([r[2] for r in runs]):.1f} s",
                f"{median([r[2] / count for r in runs]) * 1000:.0f} ms",
                f"{median(ratios):.2f}x" if workers > 1 else "",
                f"{min(ratios):.2f}-{max(ratios):.2f}x" if workers > 1 else "",
            ]
        )
    table(
        f"2 turns at 1 s model latency each, {rounds} round(s) interleaved, medians (ideal ="
        f" the round's 1-worker attempt time x attempts / workers; physical limit = max(ideal,"
        f" CPU of the run / {cores} cores); CPU: {meter.source}; target at 8 workers: within"
        " 1.15x of that limit)",
        [
            "layers",
            "workers",
            "attempts",
            "wall",
            "ideal",
            "CPU",
            "CPU per attempt",
            "wall / limit",
            "range",
        ],
        rows,
    )
    if phases:
        by_phase: dict[str, list[str]] = {}
        for key in probes:
            for phase, med, most in probes[key].rows():
                by_phase.setdefault(phase, []).append(f"{med} / {most}" if most else med)
        table(
            "Where an attempt's time went, per phase (median / max over the attempts; start-ups"
            " at once: the mean number of agents starting while any is)",
            ["phase", *(f"{name}, {workers} workers" for name, workers in probes)],
            [[phase, *cells] for phase, cells in by_phase.items()],
        )


if __name__ == "__main__":
    main()
