"""Wall time of one scripted attempt: plain, under strace, inside bubblewrap, and both.

The four set-ups run interleaved (plain, trace, jail, both, plain, ...) so load on the machine
hits them alike; ratios are against plain in the same run. Also prints the trace's size.
`--before` adds the jail and jail + trace set-ups as they were before the jail's locale aliases
(28 November), interleaved with the others; `--unseeded` adds plain and jail + trace with an
empty CODEX_HOME, as before the home seed (29 November: Codex unpacks its skills and migrates
its databases itself); `--pinned` adds plain and jail + trace with the attempt's whole process
tree (strace and its tracees) pinned to one core by `taskset`, an experiment: a ptrace stop then
never wakes a process on the other core. `--bpftrace PROGRAM` adds the jail under an eBPF tracer
instead of strace (benchmarks/ebpf_prototype.py writes the program; docs/benchmarks.md, "An eBPF
tracer"): one bpftrace, started before the runs, traces every process below the one that execs a
marker program (PROGRAM's first argument), which wraps only those attempts; its own CPU time is
counted apart, and the lines it wrote per attempt are the trace lines. `--unnetworked` adds jail +
trace without the network syscalls (`socket`, `seccomp`, `prctl`: traced since 29 November);
`--unpaired` adds jail + trace without `socketpair` (traced since the ninth session's leftovers:
a Unix datagram socket is a channel the trace cannot see into). `--unarchived` adds the jail and
jail + trace without the jail's locale archive (as before the thirteenth session). `--ebpf` adds
the jail under the product's eBPF tracer (`--tracer ebpf`: root, BTF, the loader built by
./dev setup), with the loader's own CPU counted apart (it reports it at its exit); the kernel
program's time is in the traced tasks, so in the tree's. It runs it with a loader per attempt
(`AGENTIC_EVAL_EBPF_PER_RUN=0`), and adds the same under one loader per run (the default since
session 15: the attempt runs the loader's client, the loader started once before the runs),
whose own CPU during each attempt is counted apart too. Where `perf` works, the CPU time of the attempt's whole process tree (the agent, its tools and strace) is measured too:
on a shared machine it is the steadier figure.
Run: .venv/bin/python -m benchmarks.trace_overhead [runs] [--before] [--unseeded] [--pinned]
     [--bpftrace PROGRAM] [--unnetworked] [--unpaired] [--unarchived] [--ebpf]
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
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
from evaluator.sandbox import LaunchPolicy, bwrap, get_tracer, tracer
from evaluator.sandbox.ebpf import PER_RUN_ENV, EbpfTracer, SharedLoader, shared_loader
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
EBPF = {"bwrap + bpftrace": SETUPS["bwrap"]}
LOADER = {
    "bwrap + ebpf": LaunchPolicy(
        jail="bwrap", trace=True, hidden=(ROOT, Path.home()), tracer="ebpf"
    )
}
PER_RUN = {
    "bwrap + ebpf (per run)": LaunchPolicy(
        jail="bwrap", trace=True, hidden=(ROOT, Path.home()), tracer="ebpf"
    )
}
LOADER_CPU_ENV = "AGENTIC_EVAL_EBPF_CPU_FILE"
UNNETWORKED = {"bwrap + strace (no socket)": SETUPS["bwrap + strace"]}
NETWORK_SYSCALLS = ("socket", "seccomp", "prctl")
UNPAIRED = {"bwrap + strace (no socketpair)": SETUPS["bwrap + strace"]}
UNARCHIVED = {
    "bwrap (no locale archive)": SETUPS["bwrap"],
    "bwrap + strace (no locale archive)": SETUPS["bwrap + strace"],
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
def without_locale_archive(off: bool) -> Iterator[None]:
    """The jail without its locale archive (as before the thirteenth session), for one attempt."""
    built = bwrap._built_locale_archive
    if off:
        bwrap._built_locale_archive = lambda: None
    try:
        yield
    finally:
        bwrap._built_locale_archive = built


@contextmanager
def without_syscalls(removed: tuple[str, ...]) -> Iterator[None]:
    """strace without the `removed` syscalls, for the duration of one attempt."""
    syscalls = tracer.SYSCALLS
    if removed:
        kept = [name for name in syscalls.split(",") if name not in removed]
        tracer.SYSCALLS = ",".join(kept)
    try:
        yield
    finally:
        tracer.SYSCALLS = syscalls


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


@contextmanager
def marked(marker: Path | None) -> Iterator[None]:
    """Runs the attempt's argv under `marker` (a copy of `env`), the process bpftrace follows."""
    wrap = LaunchPolicy.wrap
    if marker is not None:

        def under_marker(policy: LaunchPolicy, *args: object, **kwargs: object) -> object:
            argv, trace = wrap(policy, *args, **kwargs)  # type: ignore[arg-type]
            return [str(marker), *argv], trace

        LaunchPolicy.wrap = under_marker  # type: ignore[assignment, method-assign]
    try:
        yield
    finally:
        LaunchPolicy.wrap = wrap  # type: ignore[method-assign]


@contextmanager
def per_run(enabled: bool) -> Iterator[None]:
    """The eBPF tracer's one loader per run for this attempt (the loader already started)."""
    before = os.environ.get(PER_RUN_ENV)
    os.environ[PER_RUN_ENV] = "1" if enabled else "0"
    try:
        yield
    finally:
        if before is None:
            del os.environ[PER_RUN_ENV]
        else:
            os.environ[PER_RUN_ENV] = before


@contextmanager
def loader_cpu(output: Path, enabled: bool) -> Iterator[None]:
    """Has the eBPF loader write its own CPU time (not its child's) to `output` at its exit."""
    wrap = LaunchPolicy.wrap
    if enabled:

        def reported(policy: LaunchPolicy, *args: object, **kwargs: object) -> object:
            argv, trace = wrap(policy, *args, **kwargs)  # type: ignore[arg-type]
            return ["env", f"{LOADER_CPU_ENV}={output}", *argv], trace

        LaunchPolicy.wrap = reported  # type: ignore[assignment, method-assign]
    try:
        yield
    finally:
        LaunchPolicy.wrap = wrap  # type: ignore[method-assign]


def start_bpftrace(program: Path, marker: Path, output: Path) -> subprocess.Popen[bytes]:
    """bpftrace on `program`, once attached: once it reports the marker running `true`."""
    process = subprocess.Popen(
        ["bpftrace", "-q", "-B", "none", "-o", str(output), str(program), str(marker)],
        env={**os.environ, "BPFTRACE_STRLEN": "64", "BPFTRACE_PERF_RB_PAGES": "1024"},
    )
    deadline = time.monotonic() + 180
    while not (output.exists() and b"/true" in output.read_bytes()):
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            process.wait()
            raise SystemExit(f"bpftrace did not start on {program}")
        subprocess.run([str(marker), "true"], check=True)
        time.sleep(0.5)
    return process


def process_cpu_seconds(pid: int) -> float:
    """User + system time of one process so far (not its children)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def process_run_seconds(pid: int) -> float:
    """Time one process (all its threads) ran on a CPU so far, in ns resolution (schedstat):
    the loader per run's share of one attempt is a few milliseconds, below /proc/PID/stat's
    clock ticks."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        total += int((task / "schedstat").read_text().split()[0])
    return total / 1e9


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
    program = None
    if "--bpftrace" in sys.argv:
        at = sys.argv.index("--bpftrace")
        program = Path(sys.argv[at + 1]).resolve()
        del sys.argv[at : at + 2]
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    runs = int(args[0]) if args else 5
    setups = {
        **SETUPS,
        **(BEFORE if "--before" in sys.argv else {}),
        **(UNSEEDED if "--unseeded" in sys.argv else {}),
        **(PINNED if "--pinned" in sys.argv else {}),
        **(EBPF if program is not None else {}),
        **(UNNETWORKED if "--unnetworked" in sys.argv else {}),
        **(UNPAIRED if "--unpaired" in sys.argv else {}),
        **(UNARCHIVED if "--unarchived" in sys.argv else {}),
        **(LOADER if "--ebpf" in sys.argv else {}),
        **(PER_RUN if "--ebpf" in sys.argv else {}),
    }
    if "--ebpf" in sys.argv:
        why_not = get_tracer("ebpf").unavailable()
        if why_not:
            raise SystemExit(f"--ebpf: {why_not}")
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
    tracer_cpu: list[float] = []
    loader_cpus: list[float] = []
    shared_cpus: list[float] = []
    shared: SharedLoader | None = None
    shared_start = 0.0
    bpftrace = None
    marker = scratch / "ebpf-root"
    events = scratch / "ebpf-events.txt"
    try:
        if program is not None:
            scratch.mkdir(parents=True, exist_ok=True)
            shutil.copy(shutil.which("env") or "/usr/bin/env", marker)
            bpftrace = start_bpftrace(program, marker, events)
        if "--ebpf" in sys.argv:
            shared, shared_start = timed(partial(shared_loader, EbpfTracer().binary))
            if shared is None:
                raise SystemExit("--ebpf: the loader per run did not start")
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
                    loader_counts = scratch / f"loader-cpu-{number:03d}.txt"
                    runner.seed_home = name not in UNSEEDED
                    traced_by_ebpf = bpftrace is not None and name in EBPF
                    if traced_by_ebpf:
                        assert bpftrace is not None
                        before_cpu = process_cpu_seconds(bpftrace.pid)
                        before_lines = events.read_bytes().count(b"\n")
                    if name in PER_RUN:
                        assert shared is not None
                        before_shared = process_run_seconds(shared.process.pid)
                    with (
                        marked(marker if traced_by_ebpf else None),
                        jail_as_before(name in BEFORE),
                        without_locale_archive(name in UNARCHIVED),
                        without_syscalls(
                            NETWORK_SYSCALLS
                            if name in UNNETWORKED
                            else ("socketpair",)
                            if name in UNPAIRED
                            else ()
                        ),
                        one_core(name in PINNED),
                        per_run(name in PER_RUN),
                        loader_cpu(loader_counts, name in LOADER),
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
                    if traced_by_ebpf:
                        assert bpftrace is not None
                        time.sleep(1)  # bpftrace prints what the attempt's last events left
                        tracer_cpu.append(process_cpu_seconds(bpftrace.pid) - before_cpu)
                        lines[name].append(events.read_bytes().count(b"\n") - before_lines)
                    if name in PER_RUN:
                        assert shared is not None and shared.alive()
                        shared_cpus.append(process_run_seconds(shared.process.pid) - before_shared)
                    if name in LOADER and loader_counts.exists():
                        loader_cpus.append(float(loader_counts.read_text()))
                    times[name].append(handle.duration_s)
                    seconds_cpu = cpu_seconds(counts) if with_cpu else None
                    if seconds_cpu is not None:
                        cpu[name].append(seconds_cpu)
                    if handle.trace_path is not None:
                        parsed, seconds = timed(partial(read_trace, handle.trace_path, CODEX_CALLS))
                        lines[name].append(parsed.lines)
                        parse_times.append(seconds)
    finally:
        if bpftrace is not None:
            bpftrace.send_signal(signal.SIGINT)
            bpftrace.wait(timeout=60)
            # bpftrace reports a full perf buffer as "Lost N events": a trace with holes.
            text = events.read_text(errors="replace")
            lost = [line for line in text.splitlines() if line.startswith("Lost ")]
            print(
                f"\nbpftrace lost events {len(lost)} times ({sum(int(x.split()[1]) for x in lost)})"
            )
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
    if tracer_cpu:
        print(f"\nbpftrace's own CPU per attempt: {median(tracer_cpu):.3f} s (median)")
    if loader_cpus:
        print(f"\nthe eBPF loader's own CPU per attempt: {median(loader_cpus):.3f} s (median)")
    if shared_cpus:
        print(
            f"\nthe loader per run: started in {shared_start:.3f} s once; its own CPU per attempt"
            f" {median(shared_cpus):.3f} s (median)"
        )
    print(f"\ntrace read and attributed in {median(parse_times) * 1000:.0f} ms (median)")


if __name__ == "__main__":
    main()
