"""The exports at the end of a real run: each agent CLI spawns a helper sub-agent, and the run
directory ends up with the helper's session, an ATIF trajectory embedding it, and skill-creator's
grading of the judged attempt."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from evaluator.interop.atif_model import Trajectory
from tests.conftest import ROOT
from tests.support import claude_or_skip, codex_or_skip, run_scripted

CASE = "routing-add-column"


def _behaviors(directory: Path, agent: str) -> Path:
    directory.mkdir()
    steps: list[dict[str, object]] = [
        {"cmd": "cat .agents/skills/db-migrations/SKILL.md"},
        {"spawn": {"message": "helper task: list the migrations"}},
        {"final": "A helper listed the migrations."},
    ]
    if agent.startswith("codex"):
        # Codex stops a helper still working when its parent ends (Claude's Agent tool waits)
        steps.insert(2, {"wait": {"timeout_ms": 60000}})
    root = {
        "name": "root",
        "match": {"prompt_contains": "default currency per account", "thread": "root"},
        "steps": steps,
    }
    child = {
        "name": "helper",
        "match": {"prompt_contains": "helper task", "thread": "child"},
        "steps": [{"cmd": "ls"}, {"final": "listed"}],
    }
    for behavior in (root, child):
        (directory / f"{behavior['name']}.yaml").write_text(yaml.safe_dump(behavior))
    return directory


def _run_and_check(tmp_path: Path, agent: str) -> None:
    outcome = run_scripted(
        repo=ROOT / "agentic-evals",
        agent=agent,
        behaviors=_behaviors(tmp_path / "behaviors", agent),
        cases=(CASE,),
        runs_dir=tmp_path / "runs",
    )
    (result,) = outcome.results
    # the root never reads the add-column reference: a judged failure, not a blocked attempt
    assert result.status == "fail", result.notes
    attempt = outcome.run_dir.attempt_artifacts(CASE, 1)
    sessions = sorted((attempt / "subagent-sessions").glob("*.jsonl"))
    assert len(sessions) == 1, result.notes
    trajectory = Trajectory.model_validate_json((attempt / "trajectory.json").read_text())
    assert trajectory.agent.name == agent
    (helper,) = trajectory.subagent_trajectories or []
    refs = [
        ref.trajectory_id
        for step in trajectory.steps
        for r in (step.observation.results if step.observation else [])
        for ref in r.subagent_trajectory_ref or []
    ]
    assert refs == [helper.trajectory_id]
    assert helper.steps[0].source == "user"
    assert "helper task" in str(helper.steps[0].message)
    helper_calls = [c.function_name for s in helper.steps for c in s.tool_calls or []]
    assert helper_calls, "the helper's own command is in its trajectory"
    grading = outcome.run_dir.path / f"skill-creator/eval-{CASE}/with_skill/run-1/grading.json"
    data = json.loads(grading.read_text())
    assert data["summary"]["total"] == len(result.assertions)
    assert data["summary"]["passed"] < data["summary"]["total"]
    for item in data["expectations"]:
        assert (
            f"case-artifacts/{CASE}/attempts/attempt-01/accepted-session.json" in item["evidence"]
        )


@pytest.mark.codex
def test_a_codex_run_exports_the_spawned_helper(tmp_path: Path) -> None:
    codex_or_skip()
    _run_and_check(tmp_path, "codex-exec")


@pytest.mark.claude
def test_a_claude_run_exports_the_spawned_helper(tmp_path: Path) -> None:
    claude_or_skip()
    _run_and_check(tmp_path, "claude-code")
