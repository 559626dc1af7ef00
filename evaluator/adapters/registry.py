"""Adapter registry: agent name → the module that defines it, imported only when asked for.

One line registers an agent (`register_adapter("codex", "evaluator.adapters.codex", runners=...)`);
its module defines `ADAPTER`, an `AgentAdapter` instance. The runner names are declared here
too, so `--agent`'s choices are known without importing any agent.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from functools import cache

from evaluator.adapters.base import AgentAdapter
from evaluator.errors import InputError


@dataclass(frozen=True)
class AdapterEntry:
    name: str
    module: str
    runners: tuple[str, ...]


_ENTRIES: dict[str, AdapterEntry] = {}
DEFAULT_RUNNER = "codex-exec"


def register_adapter(name: str, module: str, *, runners: tuple[str, ...]) -> None:
    taken = {runner for entry in _ENTRIES.values() for runner in entry.runners}
    clash = taken.intersection(runners)
    if name in _ENTRIES or clash:
        raise ValueError(f"adapter {name!r} or runner(s) {sorted(clash)} registered twice")
    _ENTRIES[name] = AdapterEntry(name, module, runners)
    _load.cache_clear()


def unregister_adapter(name: str) -> None:
    """For tests that register an adapter of their own."""
    _ENTRIES.pop(name, None)
    _load.cache_clear()


def adapter_names() -> list[str]:
    return list(_ENTRIES)


def runner_names() -> list[str]:
    return sorted(runner for entry in _ENTRIES.values() for runner in entry.runners)


@cache
def _load(name: str) -> AgentAdapter:
    adapter = importlib.import_module(_ENTRIES[name].module).ADAPTER
    if not isinstance(adapter, AgentAdapter) or adapter.name != name:
        raise TypeError(f"{_ENTRIES[name].module}.ADAPTER is not the {name!r} AgentAdapter")
    return adapter


def get_adapter(name: str) -> AgentAdapter:
    if name not in _ENTRIES:
        raise InputError(f"unknown agent {name!r} (known: {', '.join(adapter_names())})")
    return _load(name)


def adapter_for_runner(runner: str) -> AgentAdapter:
    for entry in _ENTRIES.values():
        if runner in entry.runners:
            return _load(entry.name)
    raise InputError(
        f"unknown agent {runner!r} (known: {', '.join(runner_names())})", field="--agent"
    )


def all_adapters() -> list[AgentAdapter]:
    return [_load(name) for name in _ENTRIES]


# The agents this project ships; one line each.
register_adapter("codex", "evaluator.adapters.codex", runners=("codex-exec", "codex-subagent"))
register_adapter("claude", "evaluator.adapters.claude", runners=("claude-code", "claude-subagent"))
