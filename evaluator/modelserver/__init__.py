"""Scripted OpenAI Responses-API server that plays agent behaviours for the real Codex CLI."""

from evaluator.modelserver.behaviors import Behavior, BehaviorLibrary, load_behaviors
from evaluator.modelserver.server import ScriptedModelServer

__all__ = ["Behavior", "BehaviorLibrary", "ScriptedModelServer", "load_behaviors"]
