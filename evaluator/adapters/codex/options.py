"""Codex's options (`--agent-option KEY=VALUE`; `--codex-bin` is short for `bin`)."""

from __future__ import annotations

from pathlib import Path

from evaluator.adapters.options import AgentOptions


class CodexOptions(AgentOptions):
    bin: Path | None = None
