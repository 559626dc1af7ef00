"""Finding the Codex CLI: --codex-bin, $AGENTIC_EVAL_CODEX_BIN, PATH, the checkout's `.tools/`,
then the user cache that `agentic-eval setup-agents` fills (so an installed wheel works too)."""

from __future__ import annotations

import os
import shutil
import subprocess
from functools import cache
from pathlib import Path

from evaluator.errors import EnvironmentProblem

PINNED_VERSION = "0.169.0"
PACKAGE = f"@openai/codex@{PINNED_VERSION}"
ENV_VAR = "AGENTIC_EVAL_CODEX_BIN"
PROJECT_BIN = Path(__file__).resolve().parents[2] / ".tools/codex/node_modules/.bin/codex"
BIN_IN_PREFIX = Path("node_modules/.bin/codex")


def user_codex_dir() -> Path:
    """`$XDG_CACHE_HOME/agentic-eval/codex-<version>` (default `~/.cache/...`): the npm prefix
    `setup-agents` installs the pinned CLI into."""
    cache_home = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache_home) / "agentic-eval" / f"codex-{PINNED_VERSION}"


def install_hint() -> str:
    return (
        f"run `agentic-eval setup-agents` (installs {PACKAGE} with npm into {user_codex_dir()}),"
        f" or pass --codex-bin / set ${ENV_VAR}"
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
    for installed in (PROJECT_BIN, user_codex_dir() / BIN_IN_PREFIX):
        if installed.is_file():
            return installed
    raise EnvironmentProblem(f"codex CLI not found; {install_hint()}")


def install_pinned_codex(prefix: Path | None = None) -> tuple[Path, bool]:
    """Installs the pinned CLI with npm into `prefix` (default the user cache); returns the
    binary and whether anything was installed (False: the right version was already there)."""
    prefix = prefix or user_codex_dir()
    binary = prefix / BIN_IN_PREFIX
    if binary.is_file() and codex_version(binary) == PINNED_VERSION:
        return binary, False
    npm = shutil.which("npm")
    if npm is None:
        raise EnvironmentProblem(f"npm not found; install Node.js and npm, then install {PACKAGE}")
    prefix.mkdir(parents=True, exist_ok=True)
    command = [npm, "install", "--no-audit", "--no-fund", "--prefix", str(prefix), PACKAGE]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=900, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise EnvironmentProblem(f"npm install {PACKAGE} failed: {exc}") from None
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise EnvironmentProblem(f"npm install {PACKAGE} failed (exit {done.returncode}): {last}")
    codex_version.cache_clear()
    found = codex_version(binary) if binary.is_file() else None
    if found != PINNED_VERSION:
        raise EnvironmentProblem(f"npm installed {binary} but it reports version {found!r}")
    return binary, True


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
