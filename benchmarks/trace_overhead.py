"""Wall time of one scripted attempt: plain, under strace, inside bubblewrap, and both.

The four set-ups run interleaved (plain, trace, jail, both, plain, ...) so load on the machine
hits them alike; ratios are against plain in the same run. Also prints the trace's size.
`--before` adds the jail and jail + trace set-ups as they were before the jail's locale aliases
(28 November), interleaved with the others; `--unseeded` adds plain and jail + trace with an
empty CODEX_HOME, as before the home seed (29 November: Codex unpacks its skills and migrates
its databases itself); `--pinned` adds plain and jail + trace with the attempt's whole process
tree (strace and its tracees) pinned to one core by `taskset`, an experiment: a ptrace stop then
never wakes a process on the other core. Where `perf` works, the CPU time of the attempt's
whole process tree (the agent, its tools and strace) is measured too: on a shared machine it is
the steadier figure.
Run: .venv/bin/python -m benchmarks.trace_overhead [runs] [--before] [--unseeded] [--pinned]
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path

from benchmarks.common import ROOT, SCRATCH, median, table, timed
from evaluator.adapters import get_runner
from evaluator.adapters.codex.runner import CodexExecRunner
from evaluator.adapters.codex.trace import RECOGNIZER as CODEX_CALLS
from evaluator.agents import AgentRequest, ModelEndpoint
from evaluator.modelserver import Behavior, BehaviorLibrary, ScriptedModelServer
from evaluator.plan import open_repo
from evaluator.prompting import agent_prompt
from evaluator.sandbox import LaunchPolicy, bwrap
from evaluator.sandbox.strace_log import read_trace
from evaluator.workspace import build_workspace

SETUPS = {
    "plain": LaunchPolicy(),
    "strace": LaunchPolicy(trace=True),
    "bwrap": LaunchPolicy(jail="bwrap", hidden=(ROOT, Path.home())),
    "bwrap + strace": LaunchPolicy(jail="bwrap", trace=True, hidden=(ROOT, Path.home())),
}
BEFORE = {
    "bwrap (before)": SETUPS["bwrap"],
    "bwrap + strace (before)": SETUPS["bwrap + strace"],
}
UNSEEDED = {
    "plain (empty home)": SETUPS["plain"],
    "bwrap + strace (empty home)": SETUPS["bwrap + strace"],
}
PINNED = {
    "plain (one core)": SETUPS["plain"],
    "bwrap + strace (one core)": SETUPS["bwrap + strace"],
}
STEPS = [
    {"cmd": "cat .agents/skills/db-migrations/SKILL.md"},
    {"cmd": "ls -la .agents/skills/db-migrations/references"},
    {"cmd": "python3 -c 'print(1)' && git status --short || true"},
    {"final": "done"},
]


@contextmanager
def jail_as_before(before: bool) -> Iterator[None]:
    """The jail without its locale aliases, for the duration of one attempt."""
    view = bwrap._locale_view
    if before:
        bwrap._locale_view = lambda hidden, private: []
    try:
        yield
    finally:
        bwrap._locale_view = view


@contextmanager
def one_core(pinned: bool, core: int = 0) -> Iterator[None]:
    """Runs the attempt's argv under `taskset -c core` (affinity is inherited by every child)."""
    wrap = LaunchPolicy.wrap
    if pinned:

        def on_one_core(policy: LaunchPolicy, *args: object, **kwargs: object) -> object:
            argv, trace = wrap(policy, *args, **kwargs)  # type: ignore[arg-type]
            return ["taskset", "-c", str(core), *argv], trace

        LaunchPolicy.wrap = on_one_core  # type: ignore[assignment, method-assign]
    try:
        yield
    finally:
        LaunchPolicy.wrap = wrap  # type: ignore[method-assign]


def perf_works() -> bool:
    try:
        done = subprocess.run(
            ["perf", "stat", "-x,", "-e", "task-clock", "--", "true"],
            capture_output=True,
            timeout=20,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


@contextmanager
def cpu_counted(output: Path, enabled: bool) -> Iterator[None]:
    """Runs the attempt's argv under `perf stat` (CPU time of the whole process tree)."""
    wrap = LaunchPolicy.wrap
    if enabled:

        def counted(policy: LaunchPolicy, *args: object, **kwargs: object) -> object:
            argv, trace = wrap(policy, *args, **kwargs)  # type: ignore[arg-type]
            perf = ["perf", "stat", "-x,", "-e", "task-clock", "-o", str(output), "--"]
            return [*perf, *argv], trace

        LaunchPolicy.wrap = counted  # type: ignore[assignment, method-assign]
    try:
        yield
    finally:
        LaunchPolicy.wrap = wrap  # type: ignore[method-assign]


def cpu_seconds(output: Path) -> float | None:
    for line in output.read_text().splitlines():
        if "task-clock" in line:
            return float(line.split(",")[0]) / 1000
    return None


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    runs = int(args[0]) if args else 5
    setups = {
        **SETUPS,
        **(BEFORE if "--before" in sys.argv else {}),
        **(UNSEEDED if "--unseeded" in sys.argv else {}),
        **(PINNED if "--pinned" in sys.argv else {}),
    }
    with_cpu = perf_works()
    repo = open_repo(ROOT / "agentic-evals", None)
    target = repo.targets["db-migrations"]
    case = next(c for c in target.all_cases() if c.case_id == "routing-add-column")
    behavior = Behavior.model_validate(
        {"name": "bench", "match": {"prompt_contains": "default currency"}, "steps": STEPS}
    )
    scratch = SCRATCH / uuid.uuid4().hex[:8]
    times: dict[str, list[float]] = {name: [] for name in setups}
    cpu: dict[str, list[float]] = {name: [] for name in setups}
    lines: dict[str, list[int]] = {name: [] for name in setups}
    parse_times: list[float] = []
    runner = get_runner("codex-exec")
    assert isinstance(runner, CodexExecRunner)
    try:
        with ScriptedModelServer(BehaviorLibrary([behavior])) as server:
            endpoint = ModelEndpoint("mock-model", server.base_url, scripted=True)
            number = 0
            for _ in range(runs):
                for name, policy in setups.items():
                    number += 1
                    workspace = build_workspace(
                        case_workspace_root=scratch / "ws",
                        case=case,
                        target=target,
                        source_workspace=repo.source_workspace,
                        attempt=number,
                        environ={},
                    )
                    counts = scratch / f"cpu-{number:03d}.csv"
                    runner.seed_home = name not in UNSEEDED
                    with (
                        jail_as_before(name in BEFORE),
                        one_core(name in PINNED),
                        cpu_counted(counts, with_cpu),
                    ):
                        handle = runner.run(
                            AgentRequest(
                                workspace=workspace.path,
                                agent_dir=scratch / "agents" / f"{number:03d}",
                                prompt=agent_prompt(case.case.input.user_prompt),
                                endpoint=endpoint,
                                timeout_s=120,
                                launch=policy,
                            )
                        )
                    assert handle.fault is None, f"{name}: {handle.fault}"
                    times[name].append(handle.duration_s)
                    seconds_cpu = cpu_seconds(counts) if with_cpu else None
                    if seconds_cpu is not None:
                        cpu[name].append(seconds_cpu)
                    if handle.trace_path is not None:
                        parsed, seconds = timed(partial(read_trace, handle.trace_path, CODEX_CALLS))
                        lines[name].append(parsed.lines)
                        parse_times.append(seconds)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    plain = median(times["plain"])
    plain_cpu = median(cpu["plain"]) if cpu["plain"] else None
    rows = []
    for name, values in times.items():
        row = [
            name,
            f"{median(values):.2f} s",
            f"{min(values):.2f}-{max(values):.2f} s",
            f"{median(values) - plain:+.2f} s",
            f"{median(values) / plain:.2f}x",
        ]
        if plain_cpu is not None:
            used = median(cpu[name])
            row += [f"{used:.2f} s", f"{used / plain_cpu:.2f}x"]
        row.append(f"{median(lines[name]):.0f}" if lines[name] else "-")
        rows.append(row)
    header = ["set-up", "median", "range", "added", "ratio"]
    if plain_cpu is not None:
        header += ["CPU", "CPU ratio"]
    table(
        f"One scripted attempt (3 commands + answer), median of {runs} interleaved runs"
        f" (load average {os.getloadavg()[0]:.1f} at the end)",
        [*header, "trace lines"],
        rows,
    )
    print(f"\ntrace read and attributed in {median(parse_times) * 1000:.0f} ms (median)")


if __name__ == "__main__":
    main()
