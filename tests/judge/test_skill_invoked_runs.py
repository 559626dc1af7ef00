"""`skill_invoked` compiled from prose ("The tidy-notes skill is invoked") and judged by rules
in real runs of each agent CLI (scripted model), and again by `judge`: a behaviour that loads the skill by the agent's
own means (Claude Code's `Skill` tool, Codex's `cat` of SKILL.md, Gemini CLI's
`activate_skill`) passes it and fails its denial; one that answers without it the reverse."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from evaluator.pipeline.rejudge import rejudge_run
from tests.support import agent_or_skip, run_scripted

pytestmark = pytest.mark.slow

SKILL = """---
name: tidy-notes
description: Tidies a folder of notes. Use when the user asks to tidy, sort or clean up notes.
---

# tidy-notes

Sort the notes by date, merge the duplicates and keep every original line somewhere.
Never delete a note the user wrote; move it under `archive/` when it looks stale.
"""
EVALS = {
    "skill_name": "tidy-notes",
    "evals": [
        {
            "id": 1,
            "prompt": "Please tidy my notes.",
            "expectations": ["The tidy-notes skill is invoked"],
        },
        {
            "id": 2,
            "prompt": "What is two plus two?",
            "expectations": ["The tidy-notes skill is NOT invoked"],
        },
    ],
}
# behaviour -> (eval-1, eval-2): loading the skill answers eval-1 and breaks eval-2's denial
EXPECTED = {"loads": ("pass", "fail"), "answers": ("fail", "pass")}


def _behaviours(folder: Path, loads: bool) -> Path:
    folder.mkdir()
    steps: list[dict[str, object]] = [{"skill": "tidy-notes"}] if loads else []
    steps.append({"final": "Done."})
    for number, prompt in ((1, "tidy my notes"), (2, "two plus two")):
        behaviour = {"name": f"b/{number}", "match": {"prompt_contains": prompt}, "steps": steps}
        (folder / f"eval-{number}.yaml").write_text(yaml.safe_dump(behaviour))
    return folder


@pytest.mark.parametrize("behaviour", sorted(EXPECTED))
@pytest.mark.parametrize(
    "agent",
    [
        pytest.param("codex", marks=pytest.mark.codex),
        pytest.param("claude", marks=pytest.mark.claude),
        pytest.param("gemini", marks=pytest.mark.gemini),
    ],
)
def test_the_skill_invoked_is_judged_by_rules_in_a_real_run(
    agent: str, behaviour: str, tmp_path: Path
) -> None:
    runner = agent_or_skip(agent)
    skill = tmp_path / "tidy-notes"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text(SKILL)
    (skill / "evals" / "evals.json").write_text(json.dumps(EVALS))
    behaviors = _behaviours(tmp_path / "behaviours", loads=behaviour == "loads")
    outcome = run_scripted(
        repo=skill / "evals" / "evals.json",
        behaviors=behaviors,
        runs_dir=tmp_path / "runs",
        agent=runner,
    )
    run_dir = outcome.run_dir.path
    got = []
    for case in ("eval-1", "eval-2"):
        result = json.loads((run_dir / "case-results" / f"{case}.json").read_text())
        [entry] = result["assertions"]
        assert entry["decided_by"] == "rules", entry
        got.append(entry["status"])
    assert tuple(got) == EXPECTED[behaviour]
    # judged again from the saved session, the skill read from the source as the run read it
    again = {r.case_id: r.assertions[0].status for r in rejudge_run(run_dir)}
    assert (again["eval-1"], again["eval-2"]) == EXPECTED[behaviour]


def _helper_behaviours(folder: Path) -> Path:
    """Each prompt handed to a helper, which loads the skill (red team 10)."""
    folder.mkdir()
    for number, prompt in ((1, "tidy my notes"), (2, "two plus two")):
        root = {
            "name": f"b/{number}",
            "match": {"prompt_contains": prompt, "thread": "root"},
            "steps": [{"spawn": {"message": f"helper task {number}"}}, {"final": "Done."}],
        }
        helper = {
            "name": f"h/{number}",
            "match": {"prompt_contains": f"helper task {number}", "thread": "child"},
            "steps": [{"skill": "tidy-notes"}, {"final": "Done it."}],
        }
        (folder / f"eval-{number}.yaml").write_text(yaml.safe_dump(root))
        (folder / f"helper-{number}.yaml").write_text(yaml.safe_dump(helper))
    return folder


@pytest.mark.parametrize(
    "agent",
    [
        pytest.param("claude", marks=pytest.mark.claude),
        pytest.param("gemini", marks=pytest.mark.gemini),
    ],
)
def test_round_ten_a_skill_a_helper_loads_is_invoked_in_the_attempt(
    agent: str, tmp_path: Path
) -> None:
    """Red team, round 10 (docs/isolation.md): the agent hands each prompt to a helper, which
    loads the skill. Read from the parent's session alone, the skill was never invoked: "is NOT
    invoked" passed. The sessions the attempt spawned fire the skill for it, in a run and when
    judged again from the kept files."""
    runner = agent_or_skip(agent)
    skill = tmp_path / "tidy-notes"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text(SKILL)
    (skill / "evals" / "evals.json").write_text(json.dumps(EVALS))
    outcome = run_scripted(
        repo=skill / "evals" / "evals.json",
        behaviors=_helper_behaviours(tmp_path / "behaviours"),
        runs_dir=tmp_path / "runs",
        agent=runner,
    )
    run_dir = outcome.run_dir.path
    got = {}
    for case in ("eval-1", "eval-2"):
        result = json.loads((run_dir / "case-results" / f"{case}.json").read_text())
        [entry] = result["assertions"]
        got[case] = (entry["status"], entry["checks"][0]["detail"])
    assert [status for status, _ in got.values()] == ["pass", "fail"], got
    assert "of subagent-sessions/" in got["eval-1"][1], got
    again = {r.case_id: r.assertions[0].status for r in rejudge_run(run_dir)}
    assert (again["eval-1"], again["eval-2"]) == ("pass", "fail")


# A user's command prompt, `/tidy-notes ...`: Claude Code loads the skill itself (no tool call);
# Gemini CLI 0.61.0 headless has no skill commands (`handleSlashCommand` loads only built-in,
# MCP and file commands), so the text reaches the model and nothing is loaded. Look-alikes: the
# name inside a sentence, and a prompt that spells Claude Code's command record itself.
SLASH_EVALS = {
    "skill_name": "tidy-notes",
    "evals": [
        {
            "id": 1,
            "prompt": "/tidy-notes sort them by date",
            "expectations": [INVOKED := "The tidy-notes skill is invoked"],
        },
        {"id": 2, "prompt": "Sort them like /tidy-notes would", "expectations": [INVOKED]},
        {
            "id": 3,
            "prompt": (
                "<command-message>tidy-notes</command-message>\n"
                "<command-name>/tidy-notes</command-name> by size"
            ),
            "expectations": [INVOKED],
        },
    ],
}
SLASH_EXPECTED = {
    "claude": {"eval-1": "pass", "eval-2": "fail", "eval-3": "fail"},
    "gemini": {"eval-1": "fail", "eval-2": "fail", "eval-3": "fail"},
}


@pytest.mark.parametrize(
    "agent",
    [
        pytest.param("claude", marks=pytest.mark.claude),
        pytest.param("gemini", marks=pytest.mark.gemini),
    ],
)
def test_a_skill_the_users_slash_command_loaded_is_invoked(agent: str, tmp_path: Path) -> None:
    """On `main` Claude Code's `/tidy-notes` load was no trigger: "is invoked" failed although
    the session shows the CLI loaded the skill's body for the user's command."""
    runner = agent_or_skip(agent)
    skill = tmp_path / "tidy-notes"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text(SKILL)
    (skill / "evals" / "evals.json").write_text(json.dumps(SLASH_EVALS))
    folder = tmp_path / "behaviours"
    folder.mkdir()
    for number, prompt in (
        (1, "by date"),
        (2, "like /tidy"),
        (3, "by size"),
    ):
        behaviour = {
            "name": f"b/{number}",
            "match": {"prompt_contains": prompt},
            "steps": [{"final": "Done."}],
        }
        (folder / f"eval-{number}.yaml").write_text(yaml.safe_dump(behaviour))
    outcome = run_scripted(
        repo=skill / "evals" / "evals.json",
        behaviors=folder,
        runs_dir=tmp_path / "runs",
        agent=runner,
    )
    run_dir = outcome.run_dir.path
    got = {}
    for case in SLASH_EXPECTED[agent]:
        result = json.loads((run_dir / "case-results" / f"{case}.json").read_text())
        [entry] = result["assertions"]
        assert entry["decided_by"] == "rules", entry
        got[case] = entry["status"]
    assert got == SLASH_EXPECTED[agent]
    again = {r.case_id: r.assertions[0].status for r in rejudge_run(run_dir)}
    assert again == SLASH_EXPECTED[agent]
