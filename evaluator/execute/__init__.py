"""Where attempts run: an executor takes one attempt at a time and returns a future of its
outcome. A base (`base.Executor`), a registry (below) and one module per implementation:
`local` (a thread pool on this machine) and `ray` (one Ray task per attempt, on a cluster).

This package knows nothing of attempts: the driver (`pipeline/run.py`) gives an executor the
function to run and the specs to run it on. Importing it imports no implementation.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from evaluator.errors import InputError
from evaluator.execute.base import Executor, ExecutorSettings

# name -> module holding its `Executor` subclass as `EXECUTOR`
_MODULES = {"local": "evaluator.execute.local", "ray": "evaluator.execute.ray_tasks"}


def executor_names() -> list[str]:
    return list(_MODULES)


def executor_class(name: str) -> type[Executor[Any, Any]]:
    module = _MODULES.get(name)
    if module is None:
        raise InputError(
            f"unknown executor {name!r} (known: {', '.join(_MODULES)})", field="--executor"
        )
    cls: type[Executor[Any, Any]] = importlib.import_module(module).EXECUTOR
    return cls


def open_executor(
    name: str, work: Callable[[Any], Any], settings: ExecutorSettings
) -> Executor[Any, Any]:
    """The executor `name`, started: it runs `work` on each spec submitted to it."""
    return executor_class(name)(work, settings)


__all__ = ["Executor", "ExecutorSettings", "executor_class", "executor_names", "open_executor"]
