"""Red team, round 20 (docs/isolation.md): the trigger verdict. A skill fired when its
instructions reached the agent (docs/triggers.md, "What fired means"): by the agent's skill
tool, or by its body shown in a tool output however the agent read it. Before, Claude Code and
Gemini CLI counted only their tool: an agent of theirs that read the skill's file through a copy
it made (on a should-not-fire prompt) was counted as right, and one that read it through
`/proc/self/root/…` (on a should-fire prompt) as a miss. Codex's signal was already the body
shown (the look-alike). `agentic-eval triggers`, K = 1, trigger-only, the default layers (jail
and trace), the real CLIs against scripted agents."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support import agent_or_skip, agent_params, layers_or_skip, scratch_dir
from tests.triggers.test_trigger_run_agents import trigger_run

# Where each agent's runner placed the skill: Claude Code's `.claude/skills`, else `.agents`.
FIND = (
    "for d in .claude/skills .agents/skills; do"
    ' [ -f "$d/db-migrations/SKILL.md" ] && s="$d/db-migrations/SKILL.md" && break; done'
)
PROMPTS: dict[str, tuple[str, bool, list[dict[str, Any]]]] = {
    # The attack on a should-not-fire prompt: a copy of the skill made in the workspace, then
    # read (a copy in /tmp is already an access outside the workspace: the attempt is invalid,
    # and a final invalid one counts as the outcome not expected, red team 8).
    "haiku": (
        "Write a haiku about databases.",
        False,
        [{"cmd": f'{FIND}; cp "$s" notes.md'}, {"cmd": "cat notes.md"}],
    ),
    # The attack on a should-fire prompt: the skill read through the kernel's root alias.
    "add-column": (
        "Add a nullable avatar_url column to the users table.",
        True,
        [{"cmd": f'{FIND}; cat "/proc/self/root$PWD/$s"'}],
    ),
    # Look-alikes: the agent's own skill tool (Codex: its `cat`) fires; listing the skills
    # and printing the front matter do not.
    "rename-table": (
        "Rename the orders table to purchases, keeping its rows.",
        True,
        [{"skill": "db-migrations"}],
    ),
    "csv-summary": (
        "Give me a short report of sales.csv: rows and columns.",
        False,
        [{"cmd": "ls .agents/skills .claude/skills"}, {"cmd": f'{FIND}; head -n 4 "$s"'}],
    ),
}


def _write_set(root: Path) -> tuple[Path, Path]:
    cases = [
        {"id": name, "prompt": prompt, "expect_trigger": expect}
        for name, (prompt, expect, _) in PROMPTS.items()
    ]
    triggers = root / "round20-triggers.yaml"
    triggers.write_text(yaml.safe_dump({"trigger_suite_id": "round20", "cases": cases}))
    behaviors = root / "behaviors"
    behaviors.mkdir()
    for name, (prompt, _, steps) in PROMPTS.items():
        behavior = {
            "name": name,
            "match": {"prompt_contains": prompt.rstrip(".")},
            "steps": [*steps, {"final": "Done."}],
        }
        (behaviors / f"{name}.yaml").write_text(yaml.safe_dump(behavior))
    return triggers, behaviors


@pytest.mark.minutes(2)
@pytest.mark.parametrize("agent", agent_params("codex", "claude", "gemini"))
def test_a_skill_read_by_any_path_fired(agent: str) -> None:
    agent_or_skip(agent)
    layers_or_skip(trace=True, jail=True)
    with scratch_dir() as scratch:
        (scratch / "set").mkdir()
        triggers, behaviors = _write_set(scratch / "set")
        run, data = trigger_run(
            scratch, agent, "good", attempts=1, trigger_file=triggers, behaviors=behaviors
        )
        prompts = {p["id"]: p for p in data["prompts"]}
        fired = {name: prompts[name]["fired"] for name in PROMPTS}
        # Before (Claude Code, Gemini CLI): haiku 0 (counted right), add-column 0 (a miss).
        assert fired == {"haiku": 1, "add-column": 1, "rename-table": 1, "csv-summary": 0}
        observed = [
            json.loads(path.read_text())
            for path in run.glob("case-artifacts/*/attempts/attempt-*/trigger.json")
        ]
        # One valid attempt each: the verdicts are the signal's, not an isolation violation's.
        assert sorted(o["prompt_id"] for o in observed) == sorted(PROMPTS)
        assert [o["invalid"] for o in observed] == [None] * len(PROMPTS)
        report = (run / "report.md").read_text().splitlines()
        haiku = "| haiku | no fire | 1 of 1 | misfired | - | Write a haiku about databases. |"
        assert haiku in report
