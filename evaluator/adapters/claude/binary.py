"""Finding the Claude Code CLI: --claude-bin, $AGENTIC_EVAL_CLAUDE_BIN, PATH, the checkout's
`.tools/claude`, then the user cache that `agentic-eval setup-agents --agent claude` fills.

2.1.197 is pinned: it is what npm on Node 20 resolves (later releases declare node >=22), its
Agent tool runs sub-agents in the foreground, and its platform package is the smaller one
(docs/agents.md)."""

from __future__ import annotations

from pathlib import Path

from evaluator.agents.npm_cli import CHECKOUT, PinnedCli, cli_version

PINNED_VERSION = "2.1.197"
CLAUDE = PinnedCli(
    "claude",
    "@anthropic-ai/claude-code",
    PINNED_VERSION,
    "AGENTIC_EVAL_CLAUDE_BIN",
    "--claude-bin",
    "agentic-eval setup-agents --agent claude",
)
PROJECT_BIN = CHECKOUT / ".tools/claude/node_modules/.bin/claude"


def find_claude(explicit: Path | str | None = None) -> Path:
    return CLAUDE.find(explicit, PROJECT_BIN)


def claude_version(binary: Path) -> str | None:
    return cli_version(binary)
