"""Finding the Codex CLI: --codex-bin, $AGENTIC_EVAL_CODEX_BIN, PATH, then the project folder."""

from __future__ import annotations

import os
import shutil
import subprocess
from functools import cache
from pathlib import Path

from evaluator.errors import EnvironmentProblem

PINNED_VERSION = "0.169.0"
ENV_VAR = "AGENTIC_EVAL_CODEX_BIN"
PROJECT_BIN = Path(__file__).resolve().parents[2] / ".tools/codex/node_modules/.bin/codex"
INSTALL_HINT = (
    f"npm install --prefix .tools/codex @openai/codex@{PINNED_VERSION}  (or run ./dev setup)"
)


def find_codex(explicit: Path | str | None = None) -> Path:
    candidates: list[tuple[str, Path | None]] = [
        ("--codex-bin", Path(explicit) if explicit else None),
        (f"${ENV_VAR}", Path(os.environ[ENV_VAR]) if os.environ.get(ENV_VAR) else None),
    ]
    for label, candidate in candidates:
        if candidate is None:
            continue
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
        raise EnvironmentProblem(f"codex binary from {label} is not executable: {candidate}")
    on_path = shutil.which("codex")
    if on_path:
        return Path(on_path)
    if PROJECT_BIN.is_file():
        return PROJECT_BIN
    raise EnvironmentProblem(f"codex CLI not found; install it with: {INSTALL_HINT}")


@cache
def codex_version(binary: Path) -> str | None:
    try:
        out = subprocess.run(
            [str(binary), "--version"], capture_output=True, text=True, timeout=30, check=False
        ).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    parts = out.strip().split()
    return parts[-1] if parts else None
