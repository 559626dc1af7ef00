"""Judge-backend registry: `@register_backend("name")` on a JudgeBackend subclass."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from evaluator.errors import InputError
from evaluator.grader.base import JudgeBackend

B = TypeVar("B", bound=type[JudgeBackend])
_BACKENDS: dict[str, type[JudgeBackend]] = {}


def register_backend(name: str) -> Callable[[B], B]:
    def decorate(cls: B) -> B:
        if name in _BACKENDS:
            raise ValueError(f"judge backend {name!r} registered twice")
        cls.name = name
        _BACKENDS[name] = cls
        return cls

    return decorate


def backend_names() -> list[str]:
    return sorted(_BACKENDS)


def get_backend(name: str, **options: object) -> JudgeBackend:
    cls = _BACKENDS.get(name)
    if cls is None:
        raise InputError(
            f"unknown judge backend {name!r} (known: {', '.join(backend_names())})",
            field="--judge-backend",
        )
    return cls(**options)
