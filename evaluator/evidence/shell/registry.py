"""The one table of handled commands: name → handler (and its model), filled by `@handles`.

Closed world: a command that is not in this table (after the `python3.N` pattern) makes the
session `unverifiable`. Every family module in `families/` registers its commands here;
`handled_commands()` lists them (docs/evidence-access.md lists the same set, a test checks it).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol, TypeVar

from evaluator.evidence.shell.model import CommandModel


class ModelWalker(Protocol):
    """What a model-only command needs of the walker (the registry knows no more of it: the
    walker imports the registry, never the other way)."""

    def modelled(
        self, name: str, entry: CommandModel, args: list[str | None], texts: list[str]
    ) -> None: ...


# Called with the walker, the command's base name, its words and their texts.
HandlerFn = Callable[..., None]
H = TypeVar("H", bound=HandlerFn)


@dataclass(frozen=True)
class Handler:
    run: HandlerFn  # called with the walker, the command's base name, its words and their texts
    model: CommandModel | None


_HANDLERS: dict[str, Handler] = {}
# Names matched by pattern, for versioned interpreters (`python3.12`): (pattern, handled name).
_PATTERNS: list[tuple[re.Pattern[str], str]] = []


def handles(*names: str, model: CommandModel | None = None) -> Callable[[H], H]:
    """Register the decorated function as the handler of `names` (with their model, if any)."""

    def register(function: H) -> H:
        for name in names:
            if name in _HANDLERS:
                raise ValueError(f"command {name!r} is handled twice")
            _HANDLERS[name] = Handler(function, model)
        return function

    return register


def handles_pattern(pattern: str, name: str) -> None:
    """Names that fully match `pattern` are handled as `name` is."""
    _PATTERNS.append((re.compile(pattern), name))


def lookup(name: str) -> Handler | None:
    handler = _HANDLERS.get(name)
    if handler is None:
        for pattern, handled in _PATTERNS:
            if pattern.fullmatch(name):
                return _HANDLERS[handled]
    return handler


def model_of(name: str) -> CommandModel | None:
    handler = _HANDLERS.get(name)
    return handler.model if handler is not None else None


def handled_commands() -> frozenset[str]:
    """Every command name the analysis models (versioned `python3.N` aside)."""
    return frozenset(_HANDLERS)


def command_models() -> Mapping[str, CommandModel]:
    """Every handled command that has a model, with it."""
    return {name: h.model for name, h in _HANDLERS.items() if h.model is not None}


def table(entries: Mapping[str, CommandModel]) -> None:
    """Commands their model alone describes; a key names one or more commands (`"cat tac"`)."""
    for names, entry in entries.items():
        handles(*names.split(), model=entry)(run_model)


def run_model(w: ModelWalker, name: str, args: list[str | None], texts: list[str]) -> None:
    entry = model_of(name)
    assert entry is not None
    w.modelled(name, entry, args, texts)
