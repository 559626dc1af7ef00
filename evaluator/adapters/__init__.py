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
    OptionAlias,
    adapter_for_runner,
    adapter_names,
    all_adapters,
    default_adapter_name,
    get_adapter,
    home_flags,
    in_session_adapter,
    option_aliases,
    register_adapter,
    runner_names,
    unregister_adapter,
)

if TYPE_CHECKING:
    from evaluator.adapters.base import AgentAdapter
    from evaluator.agents.base import AgentRunner
    from evaluator.evidence.records import SessionEvidence
    from evaluator.evidence.tool_texts import ToolTextSource
    from evaluator.sessions.base import SessionStore


def get_runner(name: str, options: Mapping[str, object] | None = None) -> AgentRunner:
    """The runner `name`, ready to run, with its adapter's options (`--agent-option`)."""
    adapter = adapter_for_runner(name)
    return adapter.runner(name, adapter.options(options or {}))


def get_store(adapter: str, home: Path) -> SessionStore:
    """The session store of `adapter` over the agent home `home`."""
    return get_adapter(adapter).session_store(home)


def session_adapter(path: Path) -> AgentAdapter:
    """The adapter whose agent wrote the session file `path`, by its first record; a file no
    adapter recognises is read by the default agent's, which reports what it cannot read."""
    from evaluator.evidence.jsonl import first_object

    first = first_object(path)
    for adapter in all_adapters():
        if adapter.recognizes_session(first):
            return adapter
    return adapter_for_runner(DEFAULT_RUNNER)


def tool_text_source(path: Path | None) -> ToolTextSource | None:
    """The session file `path` with its agent's reader of whole tool inputs and outputs."""
    from evaluator.evidence.tool_texts import ToolTextSource

    if path is None or not path.is_file():
        return None
    return ToolTextSource(path, session_adapter(path).tool_texts)


def normalize_session(path: Path, *, home: str | None = None) -> SessionEvidence:
    """A session file, whichever agent wrote it, as agent-neutral evidence."""
    return session_adapter(path).normalize(path, home=home)


__all__ = [
    "DEFAULT_RUNNER",
    "OptionAlias",
    "adapter_for_runner",
    "adapter_names",
    "all_adapters",
    "default_adapter_name",
    "get_adapter",
    "get_runner",
    "get_store",
    "home_flags",
    "in_session_adapter",
    "normalize_session",
    "option_aliases",
    "register_adapter",
    "runner_names",
    "session_adapter",
    "tool_text_source",
    "unregister_adapter",
]
