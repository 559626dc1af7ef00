"""Start-up of the command line: `--version`, `--help` and a command's `--help`, whole processes.

Target: `--version` and `--help` under 0.3 s wall (median of 10), any command's start-up under
0.5 s. Each figure is a fresh `python -m evaluator ...` process, wall time, so interpreter
start-up is included (the `python -c pass` row is that floor). Give `--checkout` twice to compare
two checkouts side by side (for example the current one and `git archive OLD | tar -x -C DIR`):
every checkout runs under this venv's interpreter, from its own directory, interleaved, so the
machine's load hits all alike. `modules` is how many modules the process's `import` statements
loaded (`-X importtime`; a module loaded through importlib, as the lazy group loads a command's
module, is not counted, the modules it imports are).

Run: .venv/bin/python -m benchmarks.startup [--runs 10] [--checkout DIR ...] [--command="run --help" ...]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.common import ROOT, median, table

COMMANDS = ["--version", "--help", "validate --help"]
FLOOR = "(python -c pass)"


def argv(command: str) -> list[str]:
    if command == FLOOR:
        return [sys.executable, "-c", "pass"]
    return [sys.executable, "-m", "evaluator", *command.split()]


def check_checkout(checkout: Path) -> None:
    """`python -m evaluator` run from `checkout` must import that checkout's package (the venv's
    editable install comes after the current directory on sys.path)."""
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


def wall_s(command: str, checkout: Path) -> float:
    start = time.perf_counter()
    subprocess.run(
        argv(command),
        cwd=checkout,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=True,
    )
    return time.perf_counter() - start


def module_count(command: str, checkout: Path) -> int:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", *argv(command)[1:]],
        cwd=checkout,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        check=True,
    )
    return sum(1 for line in done.stderr.splitlines() if line.startswith("import time:")) - 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10, help="Processes per command and checkout.")
    parser.add_argument(
        "--checkout",
        type=Path,
        action="append",
        help="A checkout to measure (repeat to compare; default: this one).",
    )
    parser.add_argument(
        "--command",
        action="append",
        help=f"Arguments after `agentic-eval` (repeatable; default: {', '.join(COMMANDS)}).",
    )
    args = parser.parse_args()
    checkouts: list[Path] = args.checkout or [ROOT]
    commands = [FLOOR, *(args.command or COMMANDS)]
    for checkout in checkouts:
        check_checkout(checkout)
    load_before = os.getloadavg()
    times: dict[tuple[str, Path], list[float]] = {(c, k): [] for c in commands for k in checkouts}
    for _ in range(args.runs):
        # interleaved: each round runs every command once in every checkout
        for command in commands:
            for checkout in checkouts:
                times[command, checkout].append(wall_s(command, checkout))
    load_after = os.getloadavg()
    rows = []
    for command in commands:
        first = median(times[command, checkouts[0]])
        for checkout in checkouts:
            values = times[command, checkout]
            rows.append(
                (
                    command,
                    checkout.resolve(),
                    f"{median(values) * 1000:.0f} ms",
                    f"{min(values) * 1000:.0f} / {max(values) * 1000:.0f} ms",
                    f"{median(values) / first:.2f}x",
                    module_count(command, checkout),
                )
            )
    table(
        f"start-up, wall time of whole processes, {args.runs} runs each, interleaved"
        f" (load average {load_before[0]:.2f} before, {load_after[0]:.2f} after)",
        ["command", "checkout", "median", "min / max", "vs first checkout", "modules"],
        rows,
    )


if __name__ == "__main__":
    main()
