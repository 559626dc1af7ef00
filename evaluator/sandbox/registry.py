"""Jail registry: `@register_jail("name")` on a Jail subclass."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from evaluator.errors import InputError
from evaluator.sandbox.base import Jail

J = TypeVar("J", bound=type[Jail])
_JAILS: dict[str, type[Jail]] = {}


def register_jail(name: str) -> Callable[[J], J]:
    def decorate(cls: J) -> J:
        if name in _JAILS:
            raise ValueError(f"jail {name!r} registered twice")
        cls.name = name
        _JAILS[name] = cls
        return cls

    return decorate


def jail_names() -> list[str]:
    return sorted(_JAILS)


def get_jail(name: str) -> Jail:
    cls = _JAILS.get(name)
    if cls is None:
        raise InputError(
            f"unknown sandbox {name!r} (known: {', '.join(jail_names())})", field="--sandbox"
        )
    return cls()
