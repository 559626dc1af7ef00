"""Runner registry: `@register_runner("name")` on an AgentRunner subclass."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from evaluator.agents.base import AgentRunner, RunnerOptions
from evaluator.errors import InputError

R = TypeVar("R", bound=type[AgentRunner])
_RUNNERS: dict[str, type[AgentRunner]] = {}


def register_runner(name: str) -> Callable[[R], R]:
    def decorate(cls: R) -> R:
        if name in _RUNNERS:
            raise ValueError(f"runner {name!r} registered twice")
        cls.name = name
        _RUNNERS[name] = cls
        return cls

    return decorate


def runner_names() -> list[str]:
    return sorted(_RUNNERS)


def get_runner(name: str, options: RunnerOptions | None = None) -> AgentRunner:
    """The runner, ready to run: a missing agent CLI is an EnvironmentProblem here."""
    cls = _RUNNERS.get(name)
    if cls is None:
        raise InputError(
            f"unknown agent {name!r} (known: {', '.join(runner_names())})", field="--agent"
        )
    return cls(options or RunnerOptions())  # type: ignore[call-arg]
