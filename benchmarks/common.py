"""Small helpers shared by the benchmark scripts: timing and table printing."""

from __future__ import annotations

import contextlib
import os
import resource
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")
ROOT = Path(__file__).resolve().parent.parent
SCRATCH = Path("/var/tmp/agentic-eval-bench")


def timed(fn: Callable[[], T]) -> tuple[T, float]:
    start = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - start


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


def table(title: str, header: Sequence[str], rows: Sequence[Sequence[object]]) -> None:
    cells = [list(map(str, header))] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    print(f"\n{title}")
    print("| " + " | ".join(h.ljust(w) for h, w in zip(cells[0], widths, strict=True)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for row in cells[1:]:
        print("| " + " | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) + " |")


class TreeCpu:
    """CPU time (user + system) of this process and of every process it starts, however they
    end. `getrusage(RUSAGE_CHILDREN)` counts a descendant only when every process between it
    and us waited for it; an agent in the jail is reaped inside the jail's own pid namespace,
    so rusage loses it. Where this process may make a cpuacct cgroup (root, cgroup v1) it moves
    itself into one and reads the cgroup's counter, which every descendant adds to; elsewhere
    it falls back to rusage and says so (`source`)."""

    HIERARCHY = Path("/sys/fs/cgroup/cpuacct")

    def __init__(self) -> None:
        self.group: Path | None = None
        # Processes that end only with this interpreter (the agents' reaper, the eBPF loader)
        # keep a group from being removed at `close`: earlier runs' groups, empty by now, go.
        for stale in self.HIERARCHY.glob("agentic-eval-bench-*"):
            with contextlib.suppress(OSError):
                stale.rmdir()
        group = self.HIERARCHY / f"agentic-eval-bench-{os.getpid()}"
        try:
            group.mkdir()
            (group / "cgroup.procs").write_text(str(os.getpid()))
        except OSError:
            with contextlib.suppress(OSError):
                group.rmdir()
            return
        self.group = group

    @property
    def source(self) -> str:
        return "cpuacct cgroup" if self.group else "rusage (reaped children only)"

    def seconds(self) -> float:
        if self.group is not None:
            return int((self.group / "cpuacct.usage").read_text()) / 1e9
        total = 0.0
        for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
            usage = resource.getrusage(who)
            total += usage.ru_utime + usage.ru_stime
        return total

    def close(self) -> None:
        """Back to the hierarchy's root; the group is removed once nothing is left in it."""
        if self.group is None:
            return
        with contextlib.suppress(OSError):
            (self.HIERARCHY / "cgroup.procs").write_text(str(os.getpid()))
            self.group.rmdir()
        self.group = None
