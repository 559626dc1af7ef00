"""Parse + normalise + isolation throughput against a bare `json.loads` loop, and peak memory.

The sessions are synthetic but shaped like codex 0.169 rollouts: exec_command calls, their
CommandExecution items with parsed_cmd, outputs of a few KB, patches, token counts; every
command is distinct (none is served by a cache). Two measurements, both side by side with the
`json.loads` loop over the same file, interleaved so that a machine whose speed drifts (shared
with other jobs) hits both alike:

- in one process, the evidence functions against the loop (`--repeat` times);
- whole processes (`--processes N` pairs, the issue's measure): a fresh interpreter that reads
  the file into evidence and an isolation verdict, against a fresh interpreter running the loop,
  so start-up and imports count. Give `--checkout DIR` (repeatable) to time other checkouts the
  same way in the same rounds (e.g. `git worktree add DIR main`): each runs from its own
  directory under this venv's interpreter.

`--shape codex` or `--shape claude` writes a session shaped like a real Codex rollout or Claude
Code transcript instead (`benchmarks/session_shapes.py`: a realistic mix of commands and output
sizes, reasoning items, token counts; about one command per 24 KB).

The whole processes and the peak-memory probes run with bytecode caching on (an environment's
PYTHONDONTWRITEBYTECODE is dropped for them), the timed ones after one untimed run per checkout:
an installed package has its bytecode, and without it each evidence process compiles the
project's modules again (about 0.07 s of CPU, and more memory).

Peak RSS is measured in a fresh child process on the `--big-mb` session.
Run: .venv/bin/python -m benchmarks.evidence_throughput [--mb 100] [--big-mb 500] [--processes 10]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

from benchmarks.common import ROOT, SCRATCH, median, table, timed
from benchmarks.session_shapes import SHAPES, write_shaped
from evaluator.adapters import normalize_session
from evaluator.isolation import assess_isolation

WORKSPACE = "/var/tmp/bench/ws"


def _lines(index: int, output_kb: int = 3) -> list[dict[str, Any]]:
    call = f"call_{index}"
    line = "line of output from a command that printed a fair amount of text\n"
    output = (line * (output_kb * 1000 // len(line) + 17))[: output_kb * 1000 + index % 997]
    ts = "2026-11-22T06:15:55.562Z"
    return [
        {
            "timestamp": ts,
            "type": "response_item",
            "payload": {
                "type": "function_call",
                "name": "exec_command",
                "arguments": json.dumps(
                    {
                        "cmd": f"cd sub && sed -n '1,80p' notes/file_{index % 50}.md | head -40 > out/{index}.txt"
                    }
                ),
                "call_id": call,
            },
        },
        {
            "timestamp": ts,
            "type": "event_msg",
            "payload": {
                "type": "item_completed",
                "item": {
                    "type": "CommandExecution",
                    "id": call,
                    "command": ["/bin/bash", "-c", "sed ..."],
                    "cwd": f"file://{WORKSPACE}",
                    "parsed_cmd": [
                        {
                            "type": "read",
                            "cmd": "sed",
                            "name": f"file_{index % 50}.md",
                            "path": f"sub/notes/file_{index % 50}.md",
                        }
                    ],
                    "exit_code": 0,
                    "aggregated_output": output,
                },
            },
        },
        {
            "timestamp": ts,
            "type": "response_item",
            "payload": {
                "type": "function_call_output",
                "call_id": call,
                "output": f"Chunk ID: 1\nWall time: 0.0 seconds\nProcess exited with code 0\nOutput:\n{output}",
            },
        },
        {
            "timestamp": ts,
            "type": "event_msg",
            "payload": {
                "type": "token_count",
                "info": {"total_token_usage": {"input_tokens": index}},
            },
        },
    ] + (
        [
            {
                "timestamp": ts,
                "type": "response_item",
                "payload": {
                    "type": "custom_tool_call",
                    "name": "apply_patch",
                    "call_id": f"p{index}",
                    "input": f"*** Begin Patch\n*** Add File: gen/{index}.txt\n+x\n*** End Patch\n",
                },
            }
        ]
        if index % 10 == 0
        else []
    )


def write_session(path: Path, megabytes: int, output_kb: int = 3, shape: str = "synthetic") -> int:
    if shape != "synthetic":
        return write_shaped(path, shape, megabytes, WORKSPACE)
    target = megabytes * 1024 * 1024
    written = 0
    with path.open("w", encoding="utf-8") as handle:
        meta = {
            "timestamp": "2026-11-22T06:15:55.000Z",
            "type": "session_meta",
            "payload": {
                "id": "bench",
                "session_id": "bench",
                "cwd": WORKSPACE,
                "cli_version": "0.169.0",
                "source": "exec",
            },
        }
        handle.write(json.dumps(meta) + "\n")
        index = 0
        while written < target:
            for line in _lines(index, output_kb):
                text = json.dumps(line) + "\n"
                handle.write(text)
                written += len(text)
            index += 1
        handle.write(
            json.dumps(
                {
                    "timestamp": "x",
                    "type": "event_msg",
                    "payload": {"type": "task_complete", "last_agent_message": "done"},
                }
            )
            + "\n"
        )
    return path.stat().st_size


def analyse(path: Path) -> int:
    evidence = normalize_session(path)
    report = assess_isolation(evidence, Path(WORKSPACE), record_violations=False)
    assert report.verdict == "contained", report.reason
    return evidence.record_count


def json_loads_loop(path: Path) -> None:
    """The floor any reader of the session pays: read each line and decode its JSON."""
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            json.loads(line)


# The two whole processes: the same code whichever checkout it runs from.
LOADS_PROCESS = (
    "import json, sys\n"
    "with open(sys.argv[1], encoding='utf-8') as handle:\n"
    "    for line in handle:\n"
    "        json.loads(line)\n"
)
EVIDENCE_PROCESS = (
    "import sys\n"
    "from pathlib import Path\n"
    "from evaluator.adapters import normalize_session\n"
    "from evaluator.isolation import assess_isolation\n"
    "evidence = normalize_session(Path(sys.argv[1]))\n"
    "report = assess_isolation(evidence, Path(sys.argv[2]), record_violations=False)\n"
    "assert report.verdict == 'contained', report.reason\n"
)


# The processes' environment: bytecode is cached, as for an installed package.
CHILD_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def process_times(code: str, path: Path, cwd: Path) -> tuple[float, float]:
    """(wall, CPU) seconds of one fresh interpreter running `code` on `path` from `cwd`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-c", code, str(path), WORKSPACE], cwd=cwd, check=True, env=CHILD_ENV
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def check_checkout(checkout: Path) -> None:
    """A process started in `checkout` must import that checkout's package."""
    done = subprocess.run(
        [sys.executable, "-c", "import evaluator; print(evaluator.__file__)"],
        cwd=checkout,
        capture_output=True,
        text=True,
        check=True,
    )
    imported = Path(done.stdout.strip()).resolve()
    if not imported.is_relative_to(checkout.resolve()):
        raise SystemExit(f"from {checkout}, python imports {imported}: not that checkout")


def whole_processes(path: Path, checkouts: list[Path], rounds: int) -> list[list[str]]:
    """Rows: each checkout's evidence process against the `json.loads` process, interleaved."""
    loads: list[tuple[float, float]] = []
    runs: dict[Path, list[tuple[float, float]]] = {c: [] for c in checkouts}
    for checkout in checkouts:  # untimed: writes each checkout's bytecode
        process_times(EVIDENCE_PROCESS, path, checkout)
    for _ in range(rounds):
        loads.append(process_times(LOADS_PROCESS, path, ROOT))
        for checkout in checkouts:
            runs[checkout].append(process_times(EVIDENCE_PROCESS, path, checkout))
    rows = [
        [
            "`json.loads` loop",
            f"{median([w for w, _ in loads]):.2f} s",
            f"{median([c for _, c in loads]):.2f} s",
            "1.00x",
            "1.00x",
        ]
    ]
    for checkout, times in runs.items():
        wall = [w0 / w for (w0, _), (w, _) in zip(loads, times, strict=True)]
        cpu = [c0 / c for (_, c0), (_, c) in zip(loads, times, strict=True)]
        rows.append(
            [
                f"evidence + isolation ({checkout})",
                f"{median([w for w, _ in times]):.2f} s",
                f"{median([c for _, c in times]):.2f} s",
                f"{min(wall):.2f}x / {median(wall):.2f}x / {max(wall):.2f}x",
                f"{min(cpu):.2f}x / {median(cpu):.2f}x / {max(cpu):.2f}x",
            ]
        )
    return rows


def child_peak(path: Path) -> None:
    records = analyse(path)
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"records": records, "peak_mb": peak_kb / 1024}))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=int, default=100)
    parser.add_argument("--big-mb", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--child", type=Path, default=None)
    parser.add_argument(
        "--output-kb",
        type=int,
        default=3,
        help="Size of each command's output (it appears twice): fewer commands per MB.",
    )
    parser.add_argument("--processes", type=int, default=10, help="Whole-process pairs (0: none).")
    parser.add_argument(
        "--shape",
        choices=["synthetic", *SHAPES],
        default="synthetic",
        help="synthetic (one command per 7.7 KB, as measured before), or a real-shaped session.",
    )
    parser.add_argument(
        "--checkout",
        type=Path,
        action="append",
        default=[],
        help="Another checkout to time in the same rounds (repeatable; this one always runs).",
    )
    args = parser.parse_args()
    if args.child:
        child_peak(args.child)
        return
    checkouts = [ROOT, *args.checkout]
    for checkout in checkouts:
        check_checkout(checkout)
    SCRATCH.mkdir(parents=True, exist_ok=True)
    small = SCRATCH / f"session-{uuid.uuid4().hex[:6]}.jsonl"
    big = SCRATCH / f"session-big-{uuid.uuid4().hex[:6]}.jsonl"
    try:
        size = write_session(small, args.mb, args.output_kb, args.shape)
        # Interleaved with a bare `json.loads` loop over the same file, so that the ratio holds
        # on a machine whose speed drifts (shared with other jobs).
        runs, raw, ratios = [], [], []
        for _ in range(args.repeat):
            raw.append(timed(lambda: json_loads_loop(small))[1])
            runs.append(timed(lambda: analyse(small)))
            ratios.append(raw[-1] / runs[-1][1])
        seconds = median([s for _, s in runs])
        records = runs[0][0]
        rows = [
            [
                f"{size / 2**20:.0f} MB",
                f"{records:,}",
                f"{seconds:.2f} s",
                f"{size / 2**20 / seconds:.0f} MB/s",
                f"{min(ratios):.0%} / {median(ratios):.0%} / {max(ratios):.0%}",
                "",
            ]
        ]
        if args.processes:
            table(
                f"Whole processes on the {args.mb} MB {args.shape} file"
                f" ({args.output_kb} KB outputs if synthetic),"
                f" {args.processes} interleaved rounds:"
                " median wall and CPU time, and the `json.loads` process's time over each"
                " evidence process's in the same round (min / median / max; target >= 1.0x)",
                ["process", "wall", "CPU", "vs json.loads (wall)", "vs json.loads (CPU)"],
                whole_processes(small, checkouts, args.processes),
            )
        big_size = write_session(big, args.big_mb, args.output_kb, args.shape)
        probe = subprocess.run(
            [sys.executable, "-m", "benchmarks.evidence_throughput", "--child", str(big)],
            capture_output=True,
            text=True,
            check=True,
            env=CHILD_ENV,
        )
        peak = json.loads(probe.stdout)
        baseline = subprocess.run(
            [
                sys.executable,
                "-c",
                "import resource, evaluator.evidence, evaluator.isolation;"
                "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss/1024)",
            ],
            capture_output=True,
            text=True,
            check=True,
            env=CHILD_ENV,
        )
        rows.append(
            [
                f"{big_size / 2**20:.0f} MB",
                f"{peak['records']:,}",
                "",
                "",
                "",
                f"{peak['peak_mb']:.0f} MB (interpreter + imports alone: {float(baseline.stdout):.0f} MB; target < 150 MB)",
            ]
        )
        table(
            f"Session parse + normalise + isolation (median of {args.repeat} for the"
            f" {args.mb} MB file; `json.loads` ratio: its speed relative to a bare loop of"
            " json.loads over the same file, min / median / max)",
            ["session", "records", "time", "throughput", "vs json.loads", "peak RSS"],
            rows,
        )
    finally:
        small.unlink(missing_ok=True)
        big.unlink(missing_ok=True)


if __name__ == "__main__":
    main()
