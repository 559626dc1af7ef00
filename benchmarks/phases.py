"""Where an attempt's wall time goes when attempts run in parallel: timestamps of each attempt's
phases, taken by wrapping the pipeline's own functions (no change to what a run does or writes).

Phases, in order: queued (the driver handed the spec to the executor) -> started (a worker took
it) -> agent start (workspace, agent home and trace set up) -> first model request (the agent
CLI's own start-up) -> last model answer -> agent end (the CLI exited) -> evaluated (located,
evidence, isolation, judged) -> staged (artifacts saved in the scratch, taken as a bundle) ->
written (the driver wrote the bundle into the run directory).
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from benchmarks.common import median
from evaluator.adapters.codex.runner import CodexExecRunner
from evaluator.modelserver.server import RequestRecord, ScriptedModelServer
from evaluator.pipeline import attempt as attempt_module
from evaluator.pipeline.run import Run

# Each phase: (label, the mark it starts at, the mark it ends at).
PHASES = (
    ("queued", "queued", "started"),
    ("set-up", "started", "agent_start"),
    ("agent start-up", "agent_start", "first_request"),
    ("model turns + tools", "first_request", "last_answer"),
    ("agent exit", "last_answer", "agent_end"),
    ("evaluate", "agent_end", "evaluated"),
    ("stage", "evaluated", "staged"),
    ("hand-over + write", "staged", "written"),
)


@dataclass
class AttemptMarks:
    marks: dict[str, float] = field(default_factory=dict)
    thread_cpu: float = 0.0  # CPU of the evaluator's own thread for this attempt
    requests: list[float] = field(default_factory=list)  # when the server answered each turn


class PhaseProbe:
    """Records the phases of every attempt run while it is installed (`with probe.installed()`)."""

    def __init__(self) -> None:
        self.attempts: dict[tuple[str, int], AttemptMarks] = {}
        self.by_thread_id: dict[str, tuple[str, int]] = {}
        self.requests: dict[str, list[float]] = {}
        self.latency_s = 0.0
        self.lock = threading.Lock()
        self.local = threading.local()

    def _mark(self, key: tuple[str, int], name: str, at: float | None = None) -> None:
        with self.lock:
            self.attempts.setdefault(key, AttemptMarks()).marks[name] = at or time.time()

    @contextmanager
    def installed(self) -> Iterator[PhaseProbe]:
        probe = self
        originals: list[tuple[Any, str, Any]] = []

        def patch(owner: Any, name: str, make: Callable[[Any], Any]) -> None:
            original = getattr(owner, name)
            originals.append((owner, name, original))
            setattr(owner, name, make(original))

        def submit(original: Any) -> Any:
            def wrapped(self: Run, executor: Any, slot: Any) -> Any:
                future = original(self, executor, slot)
                probe._mark((slot.case.case_id, slot.number), "queued")
                return future

            return wrapped

        def run_attempt(original: Any) -> Any:
            def wrapped(settings: Any, case: Any, number: int, *args: Any, **kwargs: Any) -> Any:
                key = (case.case_id, number)
                probe.local.key = key
                probe._mark(key, "started")
                cpu = time.thread_time()
                result = original(settings, case, number, *args, **kwargs)
                with probe.lock:
                    probe.attempts[key].thread_cpu = time.thread_time() - cpu
                return result

            return wrapped

        def runner_run(original: Any) -> Any:
            def wrapped(self: Any, request: Any) -> Any:
                key = probe.local.key
                probe._mark(key, "agent_start")
                handle = original(self, request)
                probe._mark(key, "agent_end")
                if handle.root_thread_id:
                    with probe.lock:
                        probe.by_thread_id[handle.root_thread_id] = key
                return handle

            return wrapped

        def evaluate(original: Any) -> Any:
            def wrapped(*args: Any, **kwargs: Any) -> Any:
                original(*args, **kwargs)
                probe._mark(probe.local.key, "evaluated")

            return wrapped

        def take_bundle(original: Any) -> Any:
            def wrapped(staging: Any, case_id: str, number: int) -> Any:
                bundle = original(staging, case_id, number)
                probe._mark((case_id, number), "staged")
                return bundle

            return wrapped

        def write(original: Any) -> Any:
            def wrapped(self: Run, run_dir: Any, landed: Any) -> None:
                original(self, run_dir, landed)
                probe._mark((landed.result.case_id, landed.result.number), "written")

            return wrapped

        def record(original: Any) -> Any:
            def wrapped(self: ScriptedModelServer, request: RequestRecord) -> None:
                original(self, request)
                if request.thread_id:
                    with probe.lock:
                        probe.latency_s = self.latency_s
                        probe.requests.setdefault(request.thread_id, []).append(request.at)

            return wrapped

        patch(Run, "_submit", submit)
        patch(attempt_module, "run_attempt", run_attempt)
        patch(CodexExecRunner, "run", runner_run)
        patch(attempt_module, "_evaluate", evaluate)
        patch(attempt_module, "take_bundle", take_bundle)
        patch(Run, "_write", write)
        patch(ScriptedModelServer, "_record", record)
        try:
            yield self
        finally:
            for owner, name, original in reversed(originals):
                setattr(owner, name, original)

    def settle(self) -> None:
        """Attaches the model server's answers to the attempts they belong to."""
        for thread_id, times in self.requests.items():
            key = self.by_thread_id.get(thread_id)
            if key is None:
                continue
            marks = self.attempts[key]
            # A request is logged on arrival and answered after the scripted latency.
            marks.marks["first_request"] = times[0]
            marks.marks["last_answer"] = times[-1] + self.latency_s
            marks.requests = times

    def rows(self) -> list[list[str]]:
        """One row per phase: median and max seconds over the attempts."""
        self.settle()
        rows = []
        complete = [a for a in self.attempts.values() if all(m in a.marks for _, m, _e in PHASES)]
        for label, start, end in PHASES:
            spans = [a.marks[end] - a.marks[start] for a in complete if end in a.marks]
            if spans:
                rows.append([label, f"{median(spans):.2f} s", f"{max(spans):.2f} s"])
        gaps = [
            later - (earlier + self.latency_s)
            for a in complete
            for earlier, later in itertools.pairwise(a.requests)
        ]
        if gaps:
            rows.append(["  of which between turns", f"{median(gaps):.2f} s", f"{max(gaps):.2f} s"])
        starting = [(a.marks["agent_start"], a.marks["first_request"]) for a in complete]
        if starting:
            rows.append(["agent start-ups at once", f"{_mean_overlap(starting):.1f}", ""])
        cpu = [a.thread_cpu for a in complete]
        if cpu:
            rows.append(
                [
                    "evaluator thread CPU",
                    f"{median(cpu) * 1000:.0f} ms",
                    f"{max(cpu) * 1000:.0f} ms",
                ]
            )
        return rows


def _mean_overlap(spans: list[tuple[float, float]]) -> float:
    """How many of `spans` are in progress at once, on average over the time any one is."""
    events = sorted([(start, 1) for start, _ in spans] + [(end, -1) for _, end in spans])
    busy = weighted = 0.0
    count, previous = 0, events[0][0]
    for at, step in events:
        if count:
            busy += at - previous
            weighted += count * (at - previous)
        count += step
        previous = at
    return weighted / busy if busy else 0.0
