"""`local`: attempts on a thread pool in the driver's process (agents are subprocesses)."""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from evaluator.agents.process import kill_active
from evaluator.execute.base import Executor, ExecutorSettings

# The CPU an agent CLI burns starting up (Codex 0.169: node, the native CLI, its state database
# and the system skills it writes into the fresh home; about 0.6 s per attempt with its turns).
# Claude Code and Gemini CLI start heavier: a low estimate only paces less. docs/benchmarks.md.
AGENT_START_CPU_S = 0.4


class LocalExecutor(Executor[Any, Any]):
    name = "local"

    def __init__(self, work: Callable[[Any], Any], settings: ExecutorSettings) -> None:
        super().__init__(work, settings)
        self.pool = ThreadPoolExecutor(max_workers=settings.workers, thread_name_prefix="attempt")

    def submit(self, spec: Any) -> Future[Any]:
        return self.pool.submit(self.work, spec)

    def start_interval_s(self) -> float:
        """More workers than cores: one start per core's share of a start-up, so that the
        start-ups in progress at once stay about as many as the cores (docs/benchmarks.md)."""
        cores = os.cpu_count() or 1
        return AGENT_START_CPU_S / cores if self.settings.workers > cores else 0.0

    def stop(self) -> None:
        kill_active()

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)


EXECUTOR = LocalExecutor
