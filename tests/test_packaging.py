"""A product, not a checkout: the built wheel installs into a fresh venv outside the repository
and runs the demo target there; the schemas ship inside it; the codex lookup and its hint work
without `.tools/`; credentials for real models are checked; `schemas` is a developer command."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import click
import pytest

from evaluator.adapters.codex import binary as codex_binary
from evaluator.cli.main import cli
from evaluator.errors import EnvironmentProblem
from evaluator.schemas import drifted, packaged_schema_dir
from tests.cli.test_validate import run_cli
from tests.conftest import ROOT, copy_demo
from tests.support import SCRATCH_BASE, codex_or_skip

BEHAVIORS = "agentic-evals/targets/db-migrations/behaviors/follows-skill"


def test_packaged_schemas_agree_with_the_models_and_the_committed_copy() -> None:
    packaged = packaged_schema_dir()
    assert packaged is not None and packaged.is_relative_to(ROOT / "evaluator")
    assert drifted(packaged) == []
    assert sorted(p.name for p in packaged.glob("*.json")) == sorted(
        p.name for p in (ROOT / "schemas").glob("*.json")
    )


def test_schemas_is_hidden_from_users_but_documented(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["--help"], capsys)
    assert code == 0
    assert "setup-agents" in out
    assert "  schemas " not in out
    schemas = cli.get_command(click.Context(cli), "schemas")
    assert schemas is not None and schemas.hidden
    assert "# Developer commands" in (ROOT / "docs/cli.md").read_text()


def test_missing_codex_hint_names_setup_agents(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(codex_binary.ENV_VAR, raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(codex_binary, "PROJECT_BIN", tmp_path / "no-checkout/codex")
    with pytest.raises(EnvironmentProblem) as info:
        codex_binary.find_codex()
    message = str(info.value)
    assert "agentic-eval setup-agents" in message
    assert str(tmp_path / "cache/agentic-eval/codex-0.169.0") in message


def test_setup_agents_without_npm_is_an_environment_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    code, _, err = run_cli(["setup-agents", "--prefix", str(tmp_path / "prefix")], capsys)
    assert code == 3
    assert "npm not found" in err


def test_auth_from_without_auth_json_is_a_located_input_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "codex-home"
    home.mkdir()
    code, _, err = run_cli(
        ["run", "--repo", str(ROOT / "agentic-evals"), "--auth-from", str(home)], capsys
    )
    assert code == 2
    assert err.startswith(f"agentic-eval: {home}: --auth-from: no auth.json in this folder")


@pytest.mark.usefixtures("stub_agent_clis")  # the binary check comes first
def test_auth_from_is_refused_for_an_agent_it_does_not_log_in(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "codex-home"
    home.mkdir()
    (home / "auth.json").write_text("{}")
    argv = ["run", "--repo", str(ROOT / "agentic-evals"), "--runs-dir", str(tmp_path / "runs")]
    code, _, err = run_cli([*argv, "--agent", "claude-code", "--auth-from", str(home)], capsys)
    assert code == 2
    assert "--auth-from: Claude Code does not take a login folder" in err


@pytest.mark.usefixtures("stub_agent_clis")  # the binary check comes first
def test_real_model_without_credentials_is_an_environment_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("OPENAI_API_KEY", "CODEX_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    code, _, err = run_cli(
        ["run", "--repo", str(ROOT / "agentic-evals"), "--runs-dir", str(tmp_path / "runs")],
        capsys,
    )
    assert code == 3
    assert "a real model needs credentials: set OPENAI_API_KEY, or pass --auth-from" in err
    assert not (tmp_path / "runs").exists()


def _run(command: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, timeout=240, check=False
    )


@pytest.mark.codex
def test_built_wheel_runs_the_demo_outside_the_checkout(tmp_path: Path) -> None:
    codex = codex_or_skip()
    if codex.parent.name != ".bin":
        pytest.skip(f"needs an npm-installed codex (node_modules/.bin), found {codex}")
    source = tmp_path / "src"
    source.mkdir()
    shutil.copytree(
        ROOT / "evaluator", source / "evaluator", ignore=shutil.ignore_patterns("__pycache__")
    )
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    pip = [sys.executable, "-m", "pip"]
    built = _run(
        [*pip, "wheel", "--no-deps", "-q", "-w", "dist", "./src"], tmp_path, {**os.environ}
    )
    assert built.returncode == 0, built.stderr[-2000:]
    wheel = next((tmp_path / "dist").glob("agentic_eval-*.whl"))
    venv = tmp_path / "venv"
    made = _run(
        [sys.executable, "-m", "venv", "--without-pip", str(venv)], tmp_path, {**os.environ}
    )
    assert made.returncode == 0, made.stderr
    installed = _run(
        [*pip, "--python", str(venv / "bin/python"), "install", "-q", "--no-compile", str(wheel)],
        tmp_path,
        {**os.environ},
    )
    assert installed.returncode == 0, installed.stderr[-2000:]

    # A user's project: their skill and eval repo, no checkout, no .tools/, codex in the cache
    # where `setup-agents` would have put it.
    project = tmp_path / "project"
    project.mkdir()
    copy_demo(project)
    cache = tmp_path / "cache"
    prefix = cache / f"agentic-eval/codex-{codex_binary.PINNED_VERSION}"
    prefix.mkdir(parents=True)
    (prefix / "node_modules").symlink_to(codex.parent.parent)
    env = {
        "PATH": f"{venv / 'bin'}:/usr/local/bin:/usr/bin:/bin",
        "HOME": str(tmp_path / "home"),
        "XDG_CACHE_HOME": str(cache),
        "LANG": "C.UTF-8",
    }
    agentic_eval = str(venv / "bin/agentic-eval")

    where = _run(
        [str(venv / "bin/python"), "-c", "import evaluator; print(evaluator.__file__)"],
        project,
        env,
    )
    assert where.stdout.startswith(str(venv)), where.stdout + where.stderr
    ready = _run([agentic_eval, "setup-agents"], project, env)
    assert ready.returncode == 0 and "already installed" in ready.stdout, ready.stderr
    checked = _run([agentic_eval, "validate"], project, env)
    assert checked.returncode == 0, checked.stderr
    assert "13 case(s)" in checked.stdout
    # The skill ships in the wheel: install-skill works without a checkout.
    skill = _run(
        [agentic_eval, "install-skill", "--workspace", str(tmp_path / "user")], project, env
    )
    assert skill.returncode == 0, skill.stderr
    installed_skill = tmp_path / "user/.agents/skills/skill-eval"
    assert (installed_skill / "SKILL.md").read_text() == (ROOT / "skill-eval/SKILL.md").read_text()
    assert os.access(installed_skill / "scripts/create_case_workspace.sh", os.X_OK)
    scratch = SCRATCH_BASE / uuid.uuid4().hex[:12]
    try:
        ran = _run(
            [
                agentic_eval,
                "run",
                "--behaviors",
                BEHAVIORS,
                "--case",
                "routing-add-column",
                "--scratch-root",
                str(scratch),
                "--run-id",
                "from-wheel",
                "--json",
            ],
            project,
            env,
        )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    assert ran.returncode == 0, ran.stderr[-2000:]
    summary = json.loads(ran.stdout)
    assert summary["counts"] == {"pass": 1, "fail": 0, "blocked": 0}
    assert (project / "runs/from-wheel/report.md").is_file()
    assert "<!DOCTYPE html>" in (project / "runs/from-wheel/report.html").read_text()  # templates

    # Without the cached CLI the hint names the command that installs it.
    missing = _run(
        [agentic_eval, "run", "--behaviors", BEHAVIORS, "--scratch-root", str(scratch)],
        project,
        {**env, "XDG_CACHE_HOME": str(tmp_path / "empty-cache")},
    )
    assert missing.returncode == 3
    assert "agentic-eval setup-agents" in missing.stderr

    # A newcomer's first hour from the wheel: a project holding only a skill, then `init` and
    # the commands it prints, each with its documented result.
    newcomer = tmp_path / "newcomer"
    skill = newcomer / "skills/greeter"
    (skill / "references").mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: greeter\ndescription: Greets people in Latin.\n---\n"
        "# Greeter\n\nRead references/latin.md, then answer with the greeting it gives.\n"
    )
    (skill / "references/latin.md").write_text(
        "# Latin\n\nSay salve to one person, salvete to many.\n"
    )
    init = _run([agentic_eval, "init", "--skill", "skills/greeter"], newcomer, env)
    assert init.returncode == 0 and "wrote target greeter" in init.stdout, init.stderr
    for command in (["validate"], ["explain"]):
        done = _run([agentic_eval, *command, "--target", "greeter"], newcomer, env)
        assert done.returncode == 0, done.stdout + done.stderr
    scratch = SCRATCH_BASE / uuid.uuid4().hex[:12]
    good = "agentic-evals/targets/greeter/behaviors/good"
    scripted_run = [agentic_eval, "run", "--target", "greeter", "--behaviors", good]
    try:
        tested = _run(
            [agentic_eval, "selftest", "--target", "greeter", "--scratch-root", str(scratch)],
            newcomer,
            env,
        )
        first_run = _run(
            [*scripted_run, "--scratch-root", str(scratch)],
            newcomer,
            env,
        )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert "4 golden behaviour(s), 0 mismatch(es), 0 vacuous assertion(s)" in tested.stdout
    assert first_run.returncode == 0, first_run.stdout + first_run.stderr
    assert "pass 2, fail 0, blocked 0" in first_run.stdout
