"""Claude Code's options (`--claude-bin` and `--claude-permission-mode` are short forms)."""

from __future__ import annotations

from pathlib import Path

from evaluator.adapters.options import AgentOptions


class ClaudeOptions(AgentOptions):
    bin: Path | None = None
    permission_mode: str | None = None
