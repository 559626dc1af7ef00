"""How the Codex runner starts the pinned CLI (`adapters/codex/binary.py`, `native_start`): the
npm launcher of an install this project makes is replaced by the native binary it would `execve`,
with the launcher's two variables; anything else starts as given."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from evaluator.adapters.codex import binary as codex_binary
from evaluator.adapters.codex.binary import PINNED_VERSION, native_start
from tests.support import codex_or_skip

LAUNCHER = (
    "const codexPackageRoot = realpathSync(path.join(__dirname, '..'));\n"
    "const env = { ...process.env, CODEX_MANAGED_PACKAGE_ROOT: codexPackageRoot };\n"
    "process.execve(binaryPath, [binaryPath, ...process.argv.slice(2)], env);\n"
)


def _prefix(root: Path, *, version: str = PINNED_VERSION, launcher: str = LAUNCHER) -> Path:
    """An npm prefix shaped as `npm install @openai/codex` leaves it; returns its `.bin/codex`."""
    package = root / "node_modules/@openai/codex"
    (package / "bin").mkdir(parents=True)
    (package / "bin/codex.js").write_text(launcher)
    (package / "package.json").write_text(json.dumps({"version": version}))
    native = root / "node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin"
    native.mkdir(parents=True)
    (native / "codex").write_text("#!/bin/sh\n")
    (native / "codex").chmod(0o755)
    (root / "node_modules/.bin").mkdir()
    (root / "node_modules/.bin/codex").symlink_to("../@openai/codex/bin/codex.js")
    return root / "node_modules/.bin/codex"


@pytest.fixture
def project_prefix(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The checkout's `.tools/codex`, moved under tmp_path."""
    bin_path = tmp_path / "checkout/.tools/codex/node_modules/.bin/codex"
    monkeypatch.setattr(codex_binary, "PROJECT_BIN", bin_path)
    native_start.cache_clear()
    return bin_path.parents[2]


@pytest.mark.skipif(
    codex_binary.platform.machine() != "x86_64", reason="the layout written is x86_64's"
)
def test_the_pinned_launcher_of_the_projects_install_is_replaced_by_its_native_binary(
    project_prefix: Path,
) -> None:
    launcher = _prefix(project_prefix)
    start = native_start(launcher)
    package = (project_prefix / "node_modules/@openai/codex").resolve()
    assert start.executable == (
        project_prefix
        / "node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex"
    )
    assert start.env == {"CODEX_MANAGED_PACKAGE_ROOT": str(package), "CODEX_MANAGED_BY_NPM": "1"}


@pytest.mark.parametrize(
    "shape",
    ["elsewhere", "other-version", "other-launcher", "no-native"],
)
def test_any_other_install_starts_as_given(
    tmp_path: Path, project_prefix: Path, shape: str
) -> None:
    if shape == "elsewhere":  # an npm prefix the project did not make (PATH, --codex-bin)
        launcher = _prefix(tmp_path / "somewhere")
    elif shape == "other-version":
        launcher = _prefix(project_prefix, version="0.170.0")
    elif shape == "other-launcher":  # a launcher that does more than the one replayed
        launcher = _prefix(project_prefix, launcher="spawn(binaryPath, args, {env});\n")
    else:
        launcher = _prefix(project_prefix)
        for native in project_prefix.glob(
            "node_modules/@openai/codex-linux-x64/vendor/*/bin/codex"
        ):
            native.unlink()
    start = native_start(launcher)
    assert (start.executable, start.env) == (launcher, {})


@pytest.mark.codex
def test_the_native_start_is_the_same_cli_as_the_launcher() -> None:
    """The real pinned install: the native binary answers as the launcher does."""
    codex_or_skip()
    launcher = codex_binary.find_codex()
    native_start.cache_clear()
    start = native_start(launcher)
    assert start.executable != launcher, "the project's install should start natively"

    def version(argv0: Path, env: dict[str, str]) -> str:
        done = subprocess.run(
            [str(argv0), "--version"], capture_output=True, text=True, env=env, check=True
        )
        return done.stdout.strip()

    assert version(start.executable, {**os.environ, **start.env}) == version(
        launcher, dict(os.environ)
    )
