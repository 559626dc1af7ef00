"""Live progress: a rich table on a terminal, plain lines otherwise (or with --json)."""

from __future__ import annotations

import sys
import threading
import time
from collections import Counter
from typing import Protocol, TextIO

from rich.console import Console
from rich.live import Live
from rich.table import Table

from evaluator.artifacts.models import CaseResult
from evaluator.pipeline.attempt import AttemptResult


class Progress(Protocol):
    def start(self, run_id: str, case_ids: list[str], attempts: int) -> None: ...
    def attempt_started(self, case_id: str, number: int) -> None: ...
    def attempt_finished(self, result: AttemptResult) -> None: ...
    def case_finished(self, result: CaseResult) -> None: ...
    def stop(self) -> None: ...


class PlainProgress:
    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr
        self.started = time.time()
        self.counts: Counter[str] = Counter()
        self.total = 0
        self.lock = threading.Lock()

    def _print(self, text: str) -> None:
        with self.lock:
            print(f"[{time.time() - self.started:6.1f}s] {text}", file=self.stream, flush=True)

    def start(self, run_id: str, case_ids: list[str], attempts: int) -> None:
        self.total = len(case_ids)
        self._print(f"run {run_id}: {len(case_ids)} case(s) x {attempts} attempt(s)")
        for case_id in case_ids:
            self._print(f"  planned: {case_id}")

    def attempt_started(self, case_id: str, number: int) -> None:
        return

    def attempt_finished(self, result: AttemptResult) -> None:
        why = ": ".join(part for part in (result.blocked_reason, result.reason) if part)
        # A failed attempt that records why (a trigger attempt: the skill did not fire, or
        # fired against the expectation) says it, as a blocked one does: `fail` alone told a
        # missed prompt from a misfire in the closing table only.
        extra = f" ({why})" if result.status != "pass" and why else ""
        self._print(f"  {result.case_id} attempt {result.number:02d}: {result.status}{extra}")

    def case_finished(self, result: CaseResult) -> None:
        self.counts[result.status] += 1
        done = sum(self.counts.values())
        # The bracket is the run's tally of cases, not this case's attempts: "eval-15: BLOCKED
        # [5/5; pass 0, fail 4, blocked 1]" read as eval-15's own counts.
        self._print(
            f"{result.case_id}: {result.status.upper()} [cases done {done}/{self.total}:"
            f" pass {self.counts['pass']}, fail {self.counts['fail']}, blocked {self.counts['blocked']}]"
        )

    def stop(self) -> None:
        return


class RichProgress:
    def __init__(self) -> None:
        self.console = Console(stderr=True)
        self.started = time.time()
        self.counts: Counter[str] = Counter()
        self.running: dict[str, float] = {}
        self.finished: list[CaseResult] = []
        self.total = 0
        self.run_id = ""
        self.lock = threading.Lock()
        self.live = Live(
            self._table(),
            console=self.console,
            refresh_per_second=4,
            transient=False,
            get_renderable=self._table,
        )

    def _table(self) -> Table:
        table = Table(title=f"agentic-eval {self.run_id}", expand=False)
        table.add_column("case")
        table.add_column("status")
        for result in self.finished[-12:]:
            colour = {"pass": "green", "fail": "red", "blocked": "yellow"}[result.status]
            table.add_row(result.case_id, f"[{colour}]{result.status}[/]")
        now = time.time()
        for key, since in sorted(self.running.items()):
            table.add_row(key, f"running {now - since:4.1f}s")
        done = sum(self.counts.values())
        table.caption = (
            f"{done}/{self.total} cases · pass {self.counts['pass']} · fail {self.counts['fail']}"
            f" · blocked {self.counts['blocked']} · {now - self.started:.1f}s"
        )
        return table

    def start(self, run_id: str, case_ids: list[str], attempts: int) -> None:
        self.run_id = run_id
        self.total = len(case_ids)
        self.console.print(
            f"run {run_id}: {len(case_ids)} case(s) x {attempts} attempt(s): {', '.join(case_ids)}"
        )
        self.live.start()

    def attempt_started(self, case_id: str, number: int) -> None:
        with self.lock:
            self.running[f"{case_id}#{number:02d}"] = time.time()

    def attempt_finished(self, result: AttemptResult) -> None:
        with self.lock:
            self.running.pop(f"{result.case_id}#{result.number:02d}", None)

    def case_finished(self, result: CaseResult) -> None:
        with self.lock:
            self.finished.append(result)
            self.counts[result.status] += 1

    def stop(self) -> None:
        self.live.stop()


def choose_progress(as_json: bool) -> Progress:
    if not as_json and sys.stderr.isatty():
        return RichProgress()
    return PlainProgress()
