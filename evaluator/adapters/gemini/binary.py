"""Finding the Gemini CLI: `bin` (`--agent-option bin=PATH`), $AGENTIC_EVAL_GEMINI_BIN, PATH, the
checkout's `.tools/gemini`, then the user cache that `agentic-eval setup-agents --agent gemini`
fills.

0.61.0 is pinned: it runs on Node 20 and records sessions as append-only JSONL (docs/agents.md)."""

from __future__ import annotations

from pathlib import Path

from evaluator.agents.npm_cli import CHECKOUT, PinnedCli, cli_version

PINNED_VERSION = "0.61.0"
GEMINI = PinnedCli(
    "gemini",
    "@google/gemini-cli",
    PINNED_VERSION,
    "AGENTIC_EVAL_GEMINI_BIN",
    "--agent-option bin=PATH",
    "agentic-eval setup-agents --agent gemini",
)
PROJECT_BIN = CHECKOUT / ".tools/gemini/node_modules/.bin/gemini"


def find_gemini(explicit: Path | str | None = None) -> Path:
    return GEMINI.find(explicit, PROJECT_BIN)


def gemini_version(binary: Path) -> str | None:
    return cli_version(binary)
