"""Leftovers, eleventh session: a command the agent left running when its tool call answered
(Claude Code's Bash with `run_in_background`; a Codex `exec_command` whose `yield_time_ms`
ran out, answered `Process running with session ID`). On `main` its text proved the run:
under Codex "ran `touch checked`" passed though the CLI killed the command when the agent
ended (the file is not in the workspace). The run is now proven only by the trace (Claude Code
let it finish: a pass, by the trace); the same command in the foreground still passes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support import agent_or_skip, run_scripted_repo, write_checks_suite, write_file

SKILL = ".agents/skills/docs/SKILL.md"


@pytest.mark.parametrize(
    "agent",
    [
        pytest.param("claude", marks=pytest.mark.claude),
        pytest.param("codex", marks=pytest.mark.codex),
    ],
)
def test_a_command_left_running_is_not_a_run_by_its_text(tmp_path: Path, agent: str) -> None:
    runner = agent_or_skip(agent)
    source = tmp_path / "source"
    write_file(source / SKILL, "---\nname: docs\ndescription: Docs.\n---\n# Docs\n")
    command = "sleep 3; touch checked"
    left: dict[str, Any] = {"name": "Bash", "args": {"command": command, "run_in_background": True}}
    if agent == "codex":
        left = {"name": "exec_command", "args": {"cmd": command, "yield_time_ms": 250}}
    cases = {"left": [{"call": left}], "waited": [{"cmd": command}]}
    checks = [{"kind": "command_ran", "pattern": "touch checked"}]
    repo, behaviors = tmp_path / "repo", tmp_path / "behaviors"
    write_checks_suite(
        repo,
        ("docs", "Detached", SKILL, []),
        "detached",
        {name: (steps, checks) for name, steps in cases.items()},
        lambda case: f"Detached runs, case {case}.",
        behaviors,
    )
    outcome = run_scripted_repo(repo, source, behaviors, tmp_path / "runs", runner)
    got = {}
    for name in cases:
        attempt_dir = outcome.run_dir.path / f"case-artifacts/{name}/attempts/attempt-01"
        attempt = json.loads((attempt_dir / "attempt.json").read_text())
        done = (attempt_dir / "workspace/files/checked").exists()
        entry = attempt["assertions"][0]
        got[name] = (entry["status"], done, entry["checks"][0]["detail"])
    assert got["waited"][:2] == ("pass", True), got
    # Whatever the agent's end did to the command (Codex killed it; Claude Code waited for it),
    # only the trace decides: a pass where it ran, never where it did not.
    status, done, detail = got["left"]
    assert (status == "pass") == done and status in ("pass", "fail"), got
    assert "trace" in detail, got
