"""Every `--agent` takes an agent's name and a runner's: `setup-agents --agent gemini`, then
`run --agent gemini` (a new user's eighth review found the second refused, `'gemini' is not one
of ...`, since the commands that run a runner took only runner names and the others only agent
names)."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluator.adapters import adapter_named, agent_choices, runner_named, runner_names
from tests.cli.test_init import _project
from tests.cli.test_validate import run_cli


def test_an_agent_names_its_first_runner_and_a_runner_its_agent() -> None:
    assert [runner_named(n) for n in ("codex", "claude", "gemini")] == [
        "codex-exec",
        "claude-code",
        "gemini-cli",
    ]
    assert [adapter_named(n) for n in ("codex-exec", "claude-subagent", "gemini-cli")] == [
        "codex",
        "claude",
        "gemini",
    ]
    # A name of each kind stays itself.
    assert (
        runner_named("claude-subagent") == "claude-subagent" and adapter_named("gemini") == "gemini"
    )
    assert set(runner_names()) < set(agent_choices())


def test_a_command_that_runs_a_runner_takes_an_agent_s_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _project(tmp_path, ".agents/skills/greeter")
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(
        ["init", "--skill", ".agents/skills/greeter", "--agent", "gemini"], capsys
    )
    assert code == 0, err
    # the printed commands name the runner the agent's name stands for
    assert "selftest --target greeter --agent gemini-cli" in out, out


def test_a_command_that_reads_an_agent_s_home_takes_a_runner_s_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "claude-home"
    home.mkdir()
    code, _, err = run_cli(
        ["session", "locate", "--agent", "claude-code", "--claude-dir", str(home), "--thread", "x"],
        capsys,
    )
    assert "is not one of" not in err and "does not read" not in err, err
    assert code == 1, err  # no session there: the locate's own answer, not a usage error
    code, _, err = run_cli(
        ["session", "locate", "--agent", "codex-exec", "--claude-dir", str(home), "--thread", "x"],
        capsys,
    )
    assert code == 2 and "--agent codex does not read a claude home" in err, err


def test_setup_agents_takes_a_runner_s_name(capsys: pytest.CaptureFixture[str]) -> None:
    """Its choice and the name it installs under are the agent's (asked once for both names)."""
    from evaluator.cli.setup_agents import command

    ctx = command.make_context("setup-agents", ["--agent", "gemini-cli", "--agent", "gemini"])
    assert ctx.params["agents"] == ("gemini",)
