"""An agent CLI pinned to one npm package version: where to find it and how to install it.

Each agent names its own constants (codex_binary.py, claude_binary.py); the lookup order is the
same for all: an explicit `--<agent>-bin`, its environment variable, PATH, the checkout's
`.tools/`, then the user cache that `agentic-eval setup-agents` fills.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from evaluator.agents.process import start_problem
from evaluator.errors import EnvironmentProblem

CHECKOUT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class PinnedCli:
    command: str  # the executable's name: `codex`, `claude`
    package: str  # the npm package, without version
    version: str
    env_var: str  # e.g. AGENTIC_EVAL_CODEX_BIN
    option: str  # e.g. --codex-bin
    setup_command: str = "agentic-eval setup-agents"

    @property
    def spec(self) -> str:
        return f"{self.package}@{self.version}"

    @property
    def bin_in_prefix(self) -> Path:
        return Path("node_modules/.bin") / self.command

    def user_dir(self) -> Path:
        """`$XDG_CACHE_HOME/agentic-eval/<command>-<version>` (default `~/.cache/...`): the npm
        prefix `setup-agents` installs the pinned CLI into."""
        cache_home = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        return Path(cache_home) / "agentic-eval" / f"{self.command}-{self.version}"

    def install_hint(self) -> str:
        return (
            f"run `{self.setup_command}` (installs {self.spec} with npm into"
            f" {self.user_dir()}), or pass {self.option} / set ${self.env_var}"
        )

    def find(self, explicit: Path | str | None, project_bin: Path) -> Path:
        candidates: list[tuple[str, Path | None]] = [
            (self.option, Path(explicit) if explicit else None),
            (
                f"${self.env_var}",
                Path(os.environ[self.env_var]) if os.environ.get(self.env_var) else None,
            ),
        ]
        for label, candidate in candidates:
            if candidate is None:
                continue
            problem = start_problem(candidate, os.environ.get("PATH", os.defpath))
            if problem is None:
                return candidate
            raise EnvironmentProblem(f"{self.command} binary from {label} cannot start: {problem}")
        on_path = shutil.which(self.command)
        if on_path:
            return Path(on_path)
        for installed in (project_bin, self.user_dir() / self.bin_in_prefix):
            if installed.is_file():
                return installed
        raise EnvironmentProblem(f"{self.command} CLI not found; {self.install_hint()}")

    def install(self, prefix: Path | None = None) -> tuple[Path, bool]:
        """Installs the pinned CLI with npm into `prefix` (default the user cache); returns the
        binary and whether anything was installed (False: the right version was already there)."""
        prefix = prefix or self.user_dir()
        binary = prefix / self.bin_in_prefix
        if binary.is_file() and cli_version(binary) == self.version:
            return binary, False
        npm = shutil.which("npm")
        if npm is None:
            raise EnvironmentProblem(
                f"npm not found; install Node.js and npm, then install {self.spec}"
            )
        prefix.mkdir(parents=True, exist_ok=True)
        command = [npm, "install", "--no-audit", "--no-fund", "--prefix", str(prefix), self.spec]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=900, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise EnvironmentProblem(f"npm install {self.spec} failed: {exc}") from None
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or ["no output"])[-1]
            raise EnvironmentProblem(
                f"npm install {self.spec} failed (exit {done.returncode}): {last}"
            )
        forget_cli_versions()
        found = cli_version(binary) if binary.is_file() else None
        if found != self.version:
            raise EnvironmentProblem(f"npm installed {binary} but it reports version {found!r}")
        return binary, True


_VERSIONS: dict[Path, str] = {}


def cli_version(binary: Path) -> str | None:
    """The version an agent CLI reports: the first token that starts with a digit
    (`codex-cli 0.169.0`, `2.1.197 (Claude Code)`). Kept once known; a probe that failed (a
    node CLI can take more than the timeout to start on a loaded machine) is tried again."""
    known = _VERSIONS.get(binary)
    if known is not None:
        return known
    try:
        out = subprocess.run(
            [str(binary), "--version"], capture_output=True, text=True, timeout=60, check=False
        ).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    digits = [token for token in out.split() if token[:1].isdigit()]
    parts = out.strip().split()
    version = digits[0] if digits else (parts[-1] if parts else None)
    if version is not None:
        _VERSIONS[binary] = version
    return version


def forget_cli_versions() -> None:
    """After an install the same path may hold another version."""
    _VERSIONS.clear()
