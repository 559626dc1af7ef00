"""Trigger signals on real agent runs: a scripted agent that loads the skill fires it; one that
only lists the skills folder or prints the front matter does not. Codex and Claude Code, each
through its real CLI against the scripted server; the attempt's registry is clean as launched."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from evaluator.adapters import get_adapter, get_runner, get_store, normalize_session
from evaluator.evidence.triggers import Trigger
from evaluator.triggers.discovery import check_registry, installed_sources
from tests.conftest import ROOT
from tests.support import behavior, claude_or_skip, codex_or_skip, run_attempt, scratch_dir, serving

SKILL_PATH = ".agents/skills/db-migrations/SKILL.md"
# The body of the demo skill's SKILL.md (after its front matter), base64: text the agent types.
BODY_BASE64 = base64.b64encode((ROOT / SKILL_PATH).read_text().split("---", 2)[2].encode()).decode()
PROMPT = "default currency per account"  # the demo case routing-add-column
RUNNERS = {"codex": "codex-exec", "claude": "claude-code"}
# name: (steps, fires, the agents it runs under)
BEHAVIOURS = {
    "loads-the-skill": ([{"skill": "db-migrations"}], True, ("codex", "claude")),
    # The body reached the agent: a trigger whether or not the agent has a skill tool (red team
    # 20: before, Claude Code's read of the file without its Skill tool was none).
    "reads-skill-md-whole": ([{"read": SKILL_PATH}], True, ("codex", "claude")),
    "lists-the-skills-folder": (
        [{"cmd": "ls .agents/skills .claude/skills"}],
        False,
        ("codex", "claude"),
    ),
    "reads-the-front-matter": ([{"cmd": f"head -n 4 {SKILL_PATH}"}], False, ("codex", "claude")),
    # Red team 15: the body in a form a model reads as well (before: not a trigger), and the
    # look-alikes that show none of it so.
    "reads-skill-md-as-base64": ([{"cmd": f"base64 {SKILL_PATH}"}], True, ("codex",)),
    "reads-skill-md-reversed": ([{"cmd": f"rev {SKILL_PATH}"}], True, ("codex",)),
    "reads-skill-md-as-rot13": (
        [{"cmd": f"tr a-zA-Z n-za-mN-ZA-M < {SKILL_PATH}"}],
        True,
        ("codex",),
    ),
    "the-front-matter-as-base64": (
        [{"cmd": f"head -n 4 {SKILL_PATH} | base64"}],
        False,
        ("codex",),
    ),
    "types-the-body-as-base64": ([{"cmd": f"echo {BODY_BASE64}"}], False, ("codex",)),
    # Scripted agents that decide from the descriptions the real agent shows its model.
    "decides-from-the-description": (
        [
            {
                "when": {"request_contains": "reversible SQLite schema migrations"},
                "then": [{"skill": "db-migrations"}],
                "else": [{"cmd": "ls"}],
            }
        ],
        True,
        ("codex", "claude"),
    ),
    "description-not-shown": (
        [
            {
                "when": {"request_contains": "a description no skill here has"},
                "then": [{"skill": "db-migrations"}],
                "else": [{"cmd": "ls"}],
            }
        ],
        False,
        ("codex", "claude"),
    ),
}
CASES = [
    pytest.param(agent, name, marks=[getattr(pytest.mark, agent), pytest.mark.slow])
    for name, (_, _, agents) in BEHAVIOURS.items()
    for agent in agents
]


def _attempt(agent: str, name: str) -> tuple[list[Trigger], list[str], int]:
    steps, _, _ = BEHAVIOURS[name]
    scripted = behavior(name, PROMPT, [*steps, {"final": "Done."}])
    adapter = get_adapter(agent)
    with scratch_dir() as scratch, serving(scripted) as server:
        runner = get_runner(RUNNERS[agent])
        workspace, handle = run_attempt(
            scratch,
            server,
            "routing-add-column",
            runner=RUNNERS[agent],
            timeout_s=90,
            # What the pipeline does before the baseline: place the skill where the agent finds it.
            before_run=lambda path: runner.prepare_workspace(path, Path(SKILL_PATH)),
        )
        assert handle.error is None and not handle.timed_out, handle.error
        located = get_store(agent, handle.agent_home).locate_thread(handle.root_thread_id)
        assert located.status == "found", located.reason
        path = located.sessions[0].path
        evidence = normalize_session(path)
        assert handle.home is not None
        registry = check_registry(
            adapter,
            workspace=workspace.path,
            agent_home=handle.agent_home,
            home=handle.home,
            installed={"db-migrations"},
            reported=handle.reported_skills,
        )
        skills = installed_sources(registry, workspace.path)
        assert [s.name for s in skills] == ["db-migrations"]
        triggers = adapter.skill_triggers(evidence, path, skills)
        # Claude Code lists its skills at start; Codex does not say.
        assert (handle.reported_skills is not None) == (agent == "claude")
        calls = sum(1 for r in evidence.iter_records() if r.get("kind") == "tool_call")
        return triggers, registry.problems, calls


@pytest.mark.parametrize(("agent", "name"), CASES)
def test_what_fires_a_skill_on_a_real_agent(agent: str, name: str) -> None:
    if agent == "codex":
        codex_or_skip()
    else:
        claude_or_skip()
    triggers, problems, calls = _attempt(agent, name)
    assert problems == []  # the attempt's skill registry is clean as launched
    assert calls == 1
    fires = BEHAVIOURS[name][1]
    if fires:
        (trigger,) = triggers
        assert (trigger.skill, trigger.call, trigger.first) == ("db-migrations", 1, True)
    else:
        assert triggers == []
