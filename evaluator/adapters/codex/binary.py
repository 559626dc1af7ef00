"""Finding the Codex CLI: --codex-bin, $AGENTIC_EVAL_CODEX_BIN, PATH, the checkout's `.tools/`,
then the user cache that `agentic-eval setup-agents` fills (so an installed wheel works too)."""

from __future__ import annotations

from pathlib import Path

from evaluator.agents.npm_cli import CHECKOUT, PinnedCli, cli_version

PINNED_VERSION = "0.169.0"
CODEX = PinnedCli("codex", "@openai/codex", PINNED_VERSION, "AGENTIC_EVAL_CODEX_BIN", "--codex-bin")
ENV_VAR = CODEX.env_var
PROJECT_BIN = CHECKOUT / ".tools/codex/node_modules/.bin/codex"


def find_codex(explicit: Path | str | None = None) -> Path:
    # PROJECT_BIN is read at call time: tests point it elsewhere to simulate a wheel install.
    return CODEX.find(explicit, PROJECT_BIN)


def codex_version(binary: Path) -> str | None:
    return cli_version(binary)
