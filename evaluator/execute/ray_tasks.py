"""`ray`: each attempt one Ray task, on a local Ray instance or a cluster (`--ray-address`).

The task returns the attempt's outcome with its artifact bundle through Ray's object store; the
driver writes it. Ray retries nothing itself (`max_retries=0`): an attempt lost with its worker
is rerun by the driver under a new number, because a rerun never reuses a workspace. Ray is an
optional extra (`pip install 'agentic-eval[ray]'`), imported only when this executor is chosen.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from evaluator.errors import EnvironmentProblem
from evaluator.execute.base import Executor, ExecutorSettings

# The driver makes every file an attempt creates private to the user (it holds what the agent
# saw); a Ray worker is its own process, started with Ray's umask, so the task sets it again.
PRIVATE_UMASK = 0o077


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise EnvironmentProblem(
            "--executor ray needs Ray: pip install 'agentic-eval[ray]'"
        ) from None
    return ray


def _in_worker(work: Callable[[Any], Any], spec: Any) -> Any:
    os.umask(PRIVATE_UMASK)
    return work(spec)


class RayExecutor(Executor[Any, Any]):
    name = "ray"

    @classmethod
    def check_available(cls) -> None:
        _import_ray()

    def __init__(self, work: Callable[[Any], Any], settings: ExecutorSettings) -> None:
        super().__init__(work, settings)
        ray = self.ray = _import_ray()
        self.started = False
        if not ray.is_initialized():
            # Our own instance on this machine is sized by the run; a cluster sizes itself.
            local = settings.address is None
            ray.init(
                address=settings.address,
                num_cpus=max(1, int(settings.workers * settings.cpus_per_attempt))
                if local
                else None,
                object_store_memory=settings.object_store_bytes if local else None,
                include_dashboard=False,
                log_to_driver=False,
                configure_logging=False,
            )
            self.started = True
        options: dict[str, Any] = {"num_cpus": settings.cpus_per_attempt, "max_retries": 0}
        if settings.memory_per_attempt is not None:
            options["memory"] = settings.memory_per_attempt
        self.task = ray.remote(_in_worker).options(name="agentic-eval-attempt", **options)
        self.work_ref = ray.put(work)
        self.lock = threading.Lock()
        self.running: dict[Future[Any], Any] = {}

    def submit(self, spec: Any) -> Future[Any]:
        ref = self.task.remote(self.work_ref, spec)
        future: Future[Any] = ref.future()
        with self.lock:
            self.running[future] = ref
        future.add_done_callback(self._forget)
        return future

    def _forget(self, future: Future[Any]) -> None:
        with self.lock:
            self.running.pop(future, None)

    def lost(self, error: BaseException) -> bool:
        errors = self.ray.exceptions
        return isinstance(
            error,
            (
                errors.WorkerCrashedError,
                errors.NodeDiedError,
                errors.LocalRayletDiedError,
                errors.ObjectLostError,
            ),
        )

    def stop(self) -> None:
        """Force-cancelling a task kills its worker; the agent it started dies with it (its
        parent-death signal), and the driver stops what is left on this machine."""
        with self.lock:
            refs = list(self.running.values())
        for ref in refs:
            self.ray.cancel(ref, force=True)

    def close(self) -> None:
        self.stop()
        if self.started:
            self.ray.shutdown()


EXECUTOR = RayExecutor
