"""Finding the Codex CLI: --codex-bin, $AGENTIC_EVAL_CODEX_BIN, PATH, the checkout's `.tools/`,
then the user cache that `agentic-eval setup-agents` fills (so an installed wheel works too).

The npm package's `bin/codex.js` is a launcher: node starts, picks the platform package's native
binary, sets two variables and `execve`s it. For the installs `setup` and `setup-agents` make (a
plain npm prefix, the pinned version) the runner starts that native binary itself, with the same
argv and the same two variables (`native_start`): the same CLI, without a node start-up per
attempt (about 0.1 s of CPU and 0.2 s of wall time here, and the launcher's traced file reads).
Any other install (PATH, an explicit binary, another package manager) starts as given."""

from __future__ import annotations

import json
import os
import platform
import sys
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from evaluator.agents.npm_cli import CHECKOUT, PinnedCli, cli_version

PINNED_VERSION = "0.169.0"
CODEX = PinnedCli("codex", "@openai/codex", PINNED_VERSION, "AGENTIC_EVAL_CODEX_BIN", "--codex-bin")
ENV_VAR = CODEX.env_var
PROJECT_BIN = CHECKOUT / ".tools/codex/node_modules/.bin/codex"
# The launcher's platform table, for the platforms this project runs on: (target triple, package).
_NATIVE = {
    "x86_64": ("x86_64-unknown-linux-musl", "@openai/codex-linux-x64"),
    "aarch64": ("aarch64-unknown-linux-musl", "@openai/codex-linux-arm64"),
}
# What the pinned launcher does before its `execve`, which `native_start` replays: both must hold
# in its text, or the launcher is started as it is.
_LAUNCHER_MARKS = ("CODEX_MANAGED_PACKAGE_ROOT", "process.execve(binaryPath, [binaryPath")


@dataclass(frozen=True)
class CodexStart:
    """How to start Codex: the executable and what its environment gets on top."""

    executable: Path
    env: dict[str, str] = field(default_factory=dict)


def find_codex(explicit: Path | str | None = None) -> Path:
    # PROJECT_BIN is read at call time: tests point it elsewhere to simulate a wheel install.
    return CODEX.find(explicit, PROJECT_BIN)


def codex_version(binary: Path) -> str | None:
    return cli_version(binary)


@cache
def native_start(binary: Path) -> CodexStart:
    """The native binary the launcher `binary` would `execve`, with the launcher's variables,
    when `binary` is the pinned launcher of an npm prefix this project installs; else `binary`."""
    launcher = binary.resolve()
    package = launcher.parent.parent  # node_modules/@openai/codex
    prefixes = (PROJECT_BIN.parents[2].resolve(), CODEX.user_dir().resolve())
    target = _NATIVE.get(platform.machine())
    if (
        not sys.platform.startswith("linux")
        or target is None
        or launcher.name != "codex.js"
        or package.parent.parent.parent not in prefixes
        or cli_version_of_package(package) != PINNED_VERSION
    ):
        return CodexStart(binary)
    try:
        text = launcher.read_text(encoding="utf-8")
    except OSError:
        return CodexStart(binary)
    triple, platform_package = target
    native = package.parent.parent / platform_package / "vendor" / triple / "bin" / "codex"
    if not all(mark in text for mark in _LAUNCHER_MARKS) or not os.access(native, os.X_OK):
        return CodexStart(binary)
    # The launcher's package-manager detection answers npm for a plain npm prefix.
    env = {"CODEX_MANAGED_PACKAGE_ROOT": str(package), "CODEX_MANAGED_BY_NPM": "1"}
    return CodexStart(native, env)


def cli_version_of_package(package: Path) -> str | None:
    try:
        version = json.loads((package / "package.json").read_text(encoding="utf-8"))["version"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return version if isinstance(version, str) else None
