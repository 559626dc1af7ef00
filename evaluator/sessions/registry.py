"""Session-store registry: `@register_store("name")` on a SessionStore subclass."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from evaluator.errors import InputError
from evaluator.sessions.base import SessionStore

S = TypeVar("S", bound=type[SessionStore])
_STORES: dict[str, type[SessionStore]] = {}


def register_store(name: str) -> Callable[[S], S]:
    def decorate(cls: S) -> S:
        cls.name = name
        _STORES[name] = cls
        return cls

    return decorate


def store_names() -> list[str]:
    return sorted(_STORES)


def get_store(name: str, home: Path) -> SessionStore:
    cls = _STORES.get(name)
    if cls is None:
        raise InputError(f"unknown session store {name!r} (known: {', '.join(store_names())})")
    return cls(home)  # type: ignore[call-arg]
