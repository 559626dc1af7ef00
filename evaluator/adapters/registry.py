"""Adapter registry: agent name → the module that defines it, imported only when asked for.

One line registers an agent (`register_adapter("codex", "evaluator.adapters.codex.adapter", ...)`);
its module defines `ADAPTER`, an `AgentAdapter` instance. The runner names and the short flags of
its options are declared in that line too, so `--agent`'s choices and `run --help` are known
without importing any agent (nor pydantic: this module imports nothing heavy).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

from evaluator.errors import InputError

if TYPE_CHECKING:
    from evaluator.adapters.base import AgentAdapter


@dataclass(frozen=True)
class OptionAlias:
    """A command-line flag kept as a short form of `--agent-option KEY=VALUE` (`--codex-bin`)."""

    flag: str
    key: str
    help: str
    choices: tuple[str, ...] = ()
    is_path: bool = False


@dataclass(frozen=True)
class AdapterEntry:
    name: str
    module: str
    runners: tuple[str, ...]
    aliases: tuple[OptionAlias, ...] = ()
    # The short flag naming this agent's home in the commands that read one (`session locate`,
    # `attempt collect`, `install-skill`): a form of `--agent NAME --agent-home DIR`.
    home_flag: str | None = None


_ENTRIES: dict[str, AdapterEntry] = {}
DEFAULT_RUNNER = "codex-exec"
# How a run whose attempts an evaluator agent spawned in its own session names its agent in the
# manifest: `<adapter>-in-session`.
IN_SESSION_SUFFIX = "-in-session"


def register_adapter(
    name: str,
    module: str,
    *,
    runners: tuple[str, ...],
    aliases: tuple[OptionAlias, ...] = (),
    home_flag: str | None = None,
) -> None:
    taken = {runner for entry in _ENTRIES.values() for runner in entry.runners}
    clash = taken.intersection(runners)
    if name in _ENTRIES or clash:
        raise ValueError(f"adapter {name!r} or runner(s) {sorted(clash)} registered twice")
    _ENTRIES[name] = AdapterEntry(name, module, runners, aliases, home_flag)
    _load.cache_clear()


def unregister_adapter(name: str) -> None:
    """For tests that register an adapter of their own."""
    _ENTRIES.pop(name, None)
    _load.cache_clear()


def adapter_names() -> list[str]:
    return list(_ENTRIES)


def runner_names() -> list[str]:
    return sorted(runner for entry in _ENTRIES.values() for runner in entry.runners)


def agent_choices() -> list[str]:
    """Every name an `--agent` option takes: each agent's (its adapter) and each runner's."""
    return [*adapter_names(), *runner_names()]


def runner_named(name: str) -> str:
    """The runner an `--agent` value names: a runner itself, or an agent for its first runner,
    its CLI run headless on the prompt (`gemini` is `gemini-cli`): the commands that take a
    runner and those that take an agent accept the same names."""
    entry = _ENTRIES.get(name)
    return entry.runners[0] if entry is not None else name


def adapter_named(name: str) -> str:
    """The agent an `--agent` value names: an agent itself, or the agent of a runner."""
    for entry in _ENTRIES.values():
        if name in entry.runners:
            return entry.name
    return name


def default_adapter_name() -> str:
    """The adapter of the default runner: the agent a command uses when none is named."""
    return next(e.name for e in _ENTRIES.values() if DEFAULT_RUNNER in e.runners)


def home_flags() -> list[tuple[str, str]]:
    """(adapter, flag) for every adapter that declares a short flag for its home."""
    return [(e.name, e.home_flag) for e in _ENTRIES.values() if e.home_flag]


def option_aliases() -> list[tuple[str, OptionAlias]]:
    """Every adapter's short flags, with the adapter they set options of."""
    return [(entry.name, alias) for entry in _ENTRIES.values() for alias in entry.aliases]


@cache
def _load(name: str) -> AgentAdapter:
    from evaluator.adapters.base import AgentAdapter

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


def adapter_for_agent(recorded: str | None) -> AgentAdapter | None:
    """The adapter of an agent as a manifest records it (a runner name, `<adapter>-in-session`,
    or an adapter name), or None when it names none of ours (then a session is recognised)."""
    if not recorded:
        return None
    for entry in _ENTRIES.values():
        if recorded in (*entry.runners, entry.name, entry.name + IN_SESSION_SUFFIX):
            return _load(entry.name)
    return None


def all_adapters() -> list[AgentAdapter]:
    return [_load(name) for name in _ENTRIES]


def in_session_adapter(name: str | None = None) -> AgentAdapter:
    """The adapter that runs in-session attempts: `name`'s, or the one adapter that can."""
    if name is not None:
        adapter = get_adapter(name)
        if not adapter.in_session:
            raise InputError(f"{adapter.label} has no in-session mode", field="--agent")
        return adapter
    (adapter,) = [a for a in all_adapters() if a.in_session]
    return adapter


# The agents this project ships; one line each.
register_adapter(
    "codex",
    "evaluator.adapters.codex.adapter",
    runners=("codex-exec", "codex-subagent"),
    aliases=(OptionAlias("--codex-bin", "bin", "Path to the codex CLI.", is_path=True),),
    home_flag="--codex-home",
)
register_adapter(
    "claude",
    "evaluator.adapters.claude.adapter",
    runners=("claude-code", "claude-subagent"),
    aliases=(
        OptionAlias("--claude-bin", "bin", "Path to the claude CLI.", is_path=True),
        OptionAlias(
            "--claude-permission-mode",
            "permission_mode",
            "Claude Code's permission mode (default acceptEdits).",
            choices=("acceptEdits", "bypassPermissions", "default", "dontAsk", "plan"),
        ),
    ),
    home_flag="--claude-dir",
)
register_adapter(
    "gemini", "evaluator.adapters.gemini.adapter", runners=("gemini-cli", "gemini-subagent")
)
