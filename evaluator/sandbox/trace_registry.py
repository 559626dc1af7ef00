"""Tracer registry: `@register_tracer("name")` on a TraceBackend subclass."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from evaluator.errors import InputError
from evaluator.sandbox.trace_base import TraceBackend

T = TypeVar("T", bound=type[TraceBackend])
_TRACERS: dict[str, type[TraceBackend]] = {}
DEFAULT_TRACER = "strace"


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


def get_tracer(name: str) -> TraceBackend:
    cls = _TRACERS.get(name)
    if cls is None:
        raise InputError(
            f"unknown tracer {name!r} (known: {', '.join(tracer_names())})", field="--tracer"
        )
    return cls()
