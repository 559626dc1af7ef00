"""The executor contract: submit a spec, get a future of its outcome; stop; close."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import ClassVar, Generic, TypeVar

S = TypeVar("S")  # what one unit of work is given (the driver's attempt spec)
R = TypeVar("R")  # what it returns (the attempt's outcome and artifact bundle)

# Ray's object store takes a share of memory by default; a run's bundles in flight are small
# (at most `workers` of them), so a bounded store is plenty and leaves the agents their memory.
DEFAULT_OBJECT_STORE_BYTES = 256 * 1024 * 1024


@dataclass(frozen=True)
class ExecutorSettings:
    workers: int  # attempts in flight at once (the driver submits no more than this)
    address: str | None = None  # a cluster to join (ray); None: this machine
    cpus_per_attempt: float = 1.0  # the resources one attempt asks the cluster for
    memory_per_attempt: int | None = None  # bytes; None: no memory request
    object_store_bytes: int = DEFAULT_OBJECT_STORE_BYTES


class Executor(ABC, Generic[S, R]):
    """Runs `work(spec)` somewhere. The driver bounds how many specs are in flight, writes
    every outcome itself, and retries an attempt `lost` says was lost with its worker."""

    name: ClassVar[str]

    @classmethod
    def check_available(cls) -> None:
        """Raises when this executor cannot run here (its extra is not installed): called
        before the run claims its directory."""

    def __init__(self, work: Callable[[S], R], settings: ExecutorSettings) -> None:
        self.work = work
        self.settings = settings

    @abstractmethod
    def submit(self, spec: S) -> Future[R]: ...

    def lost(self, error: BaseException) -> bool:
        """The attempt failed because its worker went away (not because of the attempt)."""
        return False

    @abstractmethod
    def stop(self) -> None:
        """The run is stopping: end every running attempt now (their agents too)."""

    @abstractmethod
    def close(self) -> None:
        """Release the workers; called once, after the last outcome was taken."""
