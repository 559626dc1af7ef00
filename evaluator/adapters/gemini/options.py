"""Gemini CLI's options (`--agent-option bin=PATH`)."""

from __future__ import annotations

from pathlib import Path

from evaluator.adapters.options import AgentOptions


class GeminiOptions(AgentOptions):
    bin: Path | None = None
