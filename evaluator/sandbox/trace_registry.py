"""Tracer registry: `@register_tracer("name")` on a TraceBackend subclass; `auto` (the default)
picks the most preferred tracer that can run here (`TraceBackend.preference`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from evaluator.errors import InputError
from evaluator.sandbox.trace_base import TraceBackend

T = TypeVar("T", bound=type[TraceBackend])
_TRACERS: dict[str, type[TraceBackend]] = {}
AUTO_TRACER = "auto"
DEFAULT_TRACER = AUTO_TRACER
# The tracer `auto` names when none can run, and a resolved policy's default: the one that needs
# no privilege.
FALLBACK_TRACER = "strace"


def register_tracer(name: str) -> Callable[[T], T]:
    def decorate(cls: T) -> T:
        if name in _TRACERS:
            raise ValueError(f"tracer {name!r} registered twice")
        cls.name = name
        _TRACERS[name] = cls
        return cls

    return decorate


def tracer_names() -> list[str]:
    return sorted(_TRACERS)


def tracer_choices() -> list[str]:
    """What `--tracer` accepts: `auto` and each tracer's name."""
    return [AUTO_TRACER, *tracer_names()]


def tracers_by_preference() -> list[str]:
    """`auto`'s order: the cheapest first (the agent's own wall time is the cost)."""
    return sorted(_TRACERS, key=lambda name: (-_TRACERS[name].preference, name))


def get_tracer(name: str) -> TraceBackend:
    cls = _TRACERS.get(name)
    if cls is None:
        raise InputError(
            f"unknown tracer {name!r} (known: {', '.join(tracer_names())})", field="--tracer"
        )
    return cls()
