"""Stage 4's agents: one adapter per agent, the only place that knows it (docs/architecture.md).

Importing this package imports no agent and nothing heavy: `registry` maps names to modules, and
the functions below import what they need when called. The contract is `adapters.base`.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from evaluator.adapters.registry import (
    DEFAULT_RUNNER,
    IN_SESSION_SUFFIX,
    OptionAlias,
    adapter_for_agent,
    adapter_for_runner,
    adapter_named,
    adapter_names,
    agent_choices,
    all_adapters,
    default_adapter_name,
    get_adapter,
    home_flags,
    in_session_adapter,
    option_aliases,
    register_adapter,
    runner_named,
    runner_names,
    unregister_adapter,
)
from evaluator.errors import InputError

if TYPE_CHECKING:
    from evaluator.adapters.base import AgentAdapter
    from evaluator.agents.base import AgentRunner
    from evaluator.evidence.records import SessionEvidence
    from evaluator.evidence.tool_texts import ToolTextSource
    from evaluator.sessions.base import SessionStore


def agent_names() -> tuple[str, ...]:
    """What case authors call the agents ("Claude Code", "Claude", "Codex CLI", "Codex"): each
    adapter's label and its name as a word, for the criteria compiler, which may not name an
    agent itself ("Codex ran `make test`" is the session's one agent running it)."""
    names: list[str] = []
    for adapter in all_adapters():
        for name in (adapter.label, *adapter.markers.words):
            if name.lower() not in names:
                names.append(name.lower())
    return tuple(names)


def get_runner(name: str, options: Mapping[str, object] | None = None) -> AgentRunner:
    """The runner `name`, ready to run, with its adapter's options (`--agent-option`)."""
    adapter = adapter_for_runner(name)
    return adapter.runner(name, adapter.options(options or {}))


def get_store(adapter: str, home: Path) -> SessionStore:
    """The session store of `adapter` over the agent home `home`."""
    return get_adapter(adapter).session_store(home)


def session_adapter(path: Path) -> AgentAdapter:
    """The adapter whose agent wrote the session file `path`, for a file no runner of ours
    recorded (`session inspect FILE`, an imported session): by each adapter's own check of the
    first record, which exactly one adapter may accept. A file no adapter recognises is read by
    the default agent's, which reports what it cannot read; one that several accept is refused
    (name its agent instead)."""
    claimed = recognising_adapters(path)
    if len(claimed) > 1:
        names = ", ".join(adapter.name for adapter in claimed)
        raise InputError(
            f"the session format is claimed by several agents ({names}); name its agent",
            path=path,
            field="--agent",
        )
    return claimed[0] if claimed else adapter_for_runner(DEFAULT_RUNNER)


def recognising_adapters(path: Path) -> list[AgentAdapter]:
    """The adapters whose own check of the session file's first record accepts it."""
    from evaluator.evidence.jsonl import first_object

    first = first_object(path)
    return [adapter for adapter in all_adapters() if adapter.recognizes_session(first)]


def tool_text_source(
    path: Path | None, adapter: AgentAdapter | None = None
) -> ToolTextSource | None:
    """The session file `path` with its agent's reader of whole tool inputs and outputs:
    `adapter`'s when the caller knows which agent wrote it, else the one that recognises it."""
    from evaluator.evidence.tool_texts import ToolTextSource

    if path is None or not path.is_file():
        return None
    return ToolTextSource(path, (adapter or session_adapter(path)).tool_texts)


def normalize_session(
    path: Path,
    *,
    home: str | None = None,
    adapter: AgentAdapter | None = None,
    skill_links: Mapping[str, str] | None = None,
) -> SessionEvidence:
    """A session file as agent-neutral evidence, read by `adapter` when the caller knows which
    agent wrote it (a runner's own session), else by the adapter that recognises it.
    `skill_links`: the attempt's links to its skill in the agent's home (`AgentAdapter.normalize`)."""
    return (adapter or session_adapter(path)).normalize(path, home=home, skill_links=skill_links)


__all__ = [
    "DEFAULT_RUNNER",
    "IN_SESSION_SUFFIX",
    "OptionAlias",
    "adapter_for_agent",
    "adapter_for_runner",
    "adapter_named",
    "adapter_names",
    "agent_choices",
    "all_adapters",
    "default_adapter_name",
    "get_adapter",
    "get_runner",
    "get_store",
    "home_flags",
    "in_session_adapter",
    "normalize_session",
    "option_aliases",
    "recognising_adapters",
    "register_adapter",
    "runner_named",
    "runner_names",
    "session_adapter",
    "tool_text_source",
    "unregister_adapter",
]
