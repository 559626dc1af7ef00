"""`local`: attempts on a thread pool in the driver's process (agents are subprocesses)."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from evaluator.agents.process import kill_active
from evaluator.execute.base import Executor, ExecutorSettings


class LocalExecutor(Executor[Any, Any]):
    name = "local"

    def __init__(self, work: Callable[[Any], Any], settings: ExecutorSettings) -> None:
        super().__init__(work, settings)
        self.pool = ThreadPoolExecutor(max_workers=settings.workers, thread_name_prefix="attempt")

    def submit(self, spec: Any) -> Future[Any]:
        return self.pool.submit(self.work, spec)

    def stop(self) -> None:
        kill_active()

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)


EXECUTOR = LocalExecutor
