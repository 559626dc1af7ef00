"""Scripted model server that plays agent behaviours for the real agent CLIs, one module per
provider API (`protocol.py`: Responses, `anthropic.py`: Messages, `gemini.py`: Gemini).

The names below load on first use, so the Codex adapter can read Responses items
(`responses_items`) without starting up the server and the behaviour models.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from evaluator.modelserver.behaviors import Behavior, BehaviorLibrary, load_behaviors
    from evaluator.modelserver.server import ScriptedModelServer

_LAZY = {
    "Behavior": "evaluator.modelserver.behaviors",
    "BehaviorLibrary": "evaluator.modelserver.behaviors",
    "load_behaviors": "evaluator.modelserver.behaviors",
    "ScriptedModelServer": "evaluator.modelserver.server",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)


__all__ = ["Behavior", "BehaviorLibrary", "ScriptedModelServer", "load_behaviors"]
