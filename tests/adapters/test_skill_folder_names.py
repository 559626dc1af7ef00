"""A skill whose front matter `name` is a title, not a plain skill name (`name: Changelog
Entry` in a folder `changelog-entry/`): where the workspace keeps it, and what each agent calls
it (docs/agents.md, "How each agent names a skill").

Each pinned CLI was asked (its skill listing, its skill loader): Codex CLI 0.169.0 lists a skill
by its front matter `name` as written, Claude Code 2.1.197 by its folder's name, Gemini CLI
0.61.0 by the front matter `name` with `:\\/<>*?"|` made `-`; none of them cares what the folder
is called otherwise. So the skill is copied under its own folder's name (its paths keep
working), and every name the evaluator looks for (registry, trigger signal, the skill under
test) is the one the attempt's agent gives it (`AgentAdapter.skill_name`).

Offline: the folder rule with its look-alikes, each adapter's rule, the registry check. With
the real CLIs: a run whose honest agent runs the skill's script by its folder path, and a trigger
run whose agent loads the skill by the name its own listing shows.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evaluator.adapters import get_adapter
from evaluator.pipeline.run import RunOptions
from evaluator.pipeline.triggers import TriggerOptions, TriggerRun
from evaluator.repo.evals_json import mount_folder
from evaluator.triggers.discovery import check_registry
from tests.support import (
    agent_or_skip,
    agent_params,
    layers_or_skip,
    run_scripted_repo,
    scratch_dir,
)

TITLE = "Changelog Entry"
FOLDER = "changelog-entry"
# What each pinned CLI lists the skill as (its own listing, read from a real run of it).
LISTED_AS = {"codex": TITLE, "claude": FOLDER, "gemini": TITLE}


@pytest.mark.parametrize(
    ("declared", "skill_name", "folder", "mounted"),
    [
        ("Changelog Entry", None, "changelog-entry", "changelog-entry"),  # a title
        ("PDF", None, "pdf", "pdf"),  # capitals
        ("docs: review", "docs-review", "docs-review", "docs-review"),  # punctuation
        ("Changelog Entry", None, "Changelog Tools", "Changelog-Entry"),  # no plain name at all
        # Look-alikes kept as they were: a plain declared name wins over the folder's...
        ("changelog-entry", None, "whatever-clone", "changelog-entry"),
        ("my_skill.v2", None, "x", "my_skill.v2"),
        # ...and without a declared name, the evals file's `skill_name`, else the folder.
        (None, "changelog-entry", "repo-root", "changelog-entry"),
        (None, None, "repo-root", "repo-root"),
    ],
)
def test_the_folder_a_skill_is_copied_to(
    declared: str | None, skill_name: str | None, folder: str, mounted: str
) -> None:
    assert mount_folder(declared, skill_name, folder) == mounted


def test_each_agent_names_a_skill_by_its_own_rule() -> None:
    codex, claude, gemini = (get_adapter(name) for name in ("codex", "claude", "gemini"))
    for adapter in (codex, claude, gemini):
        assert adapter.skill_name(FOLDER, TITLE) == LISTED_AS[adapter.name]
    assert gemini.skill_name("x", 'a:b/c\\d<e>f*g?h"i|j') == "a-b-c-d-e-f-g-h-i-j"
    # No front matter name: every agent falls back on the folder.
    for adapter in (codex, claude, gemini):
        assert adapter.skill_name(FOLDER, None) == FOLDER


def _installed(workspace: Path, skills: str) -> None:
    skill = workspace / skills / FOLDER
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(f"---\nname: {TITLE}\ndescription: d\n---\n")


def test_the_registry_names_the_skill_as_the_agent_lists_it(tmp_path: Path) -> None:
    """Claude Code lists the skill by its folder: a clean registry (on `main`: "the agent
    reports skill 'changelog-entry', which was not installed", every attempt invalid)."""
    nowhere = tmp_path / "none"
    claude = get_adapter("claude")
    _installed(tmp_path / "claude", ".claude/skills")
    check = check_registry(
        claude,
        workspace=tmp_path / "claude",
        agent_home=nowhere,
        home=nowhere,
        installed=[claude.skill_name(FOLDER, TITLE)],
        reported=[FOLDER],
    )
    assert [s.name for s in check.skills] == [FOLDER]
    assert check.problems == []
    # The same folder under Codex's rule is its title: the folder's name is another skill.
    codex = get_adapter("codex")
    _installed(tmp_path / "codex", ".agents/skills")
    check = check_registry(
        codex,
        workspace=tmp_path / "codex",
        agent_home=nowhere,
        home=nowhere,
        installed=[codex.skill_name(FOLDER, TITLE)],
        reported=[FOLDER],
    )
    assert [s.name for s in check.skills] == [TITLE]
    assert check.problems == [
        "the agent reports skill 'changelog-entry', which was not installed",
        "the agent does not report skill 'Changelog Entry'",
    ]


# ---- real agents -----------------------------------------------------------------------

PROMPT = "Record in the changelog that logging in got faster."
OTHER = "What is the capital of France?"
ENTRY_TEXT = "Logging in got faster."


def _skill_repo(root: Path) -> Path:
    """A skill-creator layout of our own: `changelog-entry/` holding a SKILL.md titled
    `Changelog Entry`, its script under `scripts/`, `evals/evals.json` and a trigger set."""
    skill = root / FOLDER
    (skill / "scripts").mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        f"---\nname: {TITLE}\ndescription: Adds an entry to CHANGELOG.md. Use when the user"
        " asks to record a change in the changelog.\n---\n\n# Changelog Entry\n\nRun"
        f' `python3 <skills folder>/{FOLDER}/scripts/add_entry.py "TEXT"` in the project.\n'
    )
    (skill / "scripts/add_entry.py").write_text(
        "import pathlib, sys\n"
        "log = pathlib.Path('CHANGELOG.md')\n"
        "old = log.read_text() if log.exists() else '# Changelog\\n'\n"
        "log.write_text(old + '- ' + sys.argv[1] + '\\n')\n"
        "print('entry added')\n"
    )
    (skill / "evals").mkdir()
    evals = {
        "skill_name": FOLDER,
        "evals": [
            {
                "id": 1,
                "prompt": PROMPT,
                "expected_output": "CHANGELOG.md holds the entry.",
                "assertions": [
                    {"type": "file_contains", "path": "CHANGELOG.md", "contains": ENTRY_TEXT}
                ],
            }
        ],
    }
    (skill / "evals/evals.json").write_text(json.dumps(evals))
    (skill / "evals/trigger_evals.json").write_text(
        json.dumps(
            [{"query": PROMPT, "should_trigger": True}, {"query": OTHER, "should_trigger": False}]
        )
    )
    return skill / "evals/evals.json"


def _behaviors(root: Path, steps: list[dict[str, Any]], *, other: bool = True) -> Path:
    behaviors = root / "behaviors"
    behaviors.mkdir()
    answers = [("answers", OTHER, [])] if other else []
    for name, prompt, chosen in (("fires", PROMPT, steps), *answers):
        body = {
            "name": name,
            "match": {"prompt_contains": prompt},
            "steps": [*chosen, {"final": "Done."}],
        }
        (behaviors / f"{name}.yaml").write_text(json.dumps(body))
    return behaviors


def _loads(agent: str) -> dict[str, Any]:
    """How a competent agent loads the skill: by the name its own listing shows (Codex lists the
    SKILL.md's path, Claude Code the folder's name, Gemini CLI the title)."""
    if agent == "gemini":
        return {"call": {"name": "activate_skill", "args": {"name": TITLE}}}
    return {"skill": FOLDER}


@pytest.mark.parametrize("agent", agent_params("codex", "claude", "gemini"))
def test_the_skill_s_own_paths_hold_in_the_workspace(agent: str, tmp_path: Path) -> None:
    """The SKILL.md names its script under its folder: the folder is there, under the agent's
    skills folder (on `main` it was `Changelog-Entry/`: the script was not found, `fail`)."""
    runner = agent_or_skip(agent)
    layers_or_skip(trace=True, jail=True)
    evals = _skill_repo(tmp_path / "src")
    skills = get_adapter(agent).skill_dir
    script = f"{skills}/{FOLDER}/scripts/add_entry.py"
    steps = [_loads(agent), {"cmd": f"python3 {script} '{ENTRY_TEXT}'"}]
    behaviors = _behaviors(tmp_path, steps, other=False)
    outcome = run_scripted_repo(evals, None, behaviors, tmp_path / "runs", runner)  # type: ignore[arg-type]
    result = json.loads((outcome.run_dir.path / "case-results/eval-1.json").read_text())
    assert result["status"] == "pass", result
    attempt = next(outcome.run_dir.path.glob("case-artifacts/eval-1/attempts/attempt-01"))
    record = json.loads((attempt / "attempt.json").read_text())
    assert record["isolation_report"]["verdict"] == "contained", record["isolation_report"]


@pytest.mark.parametrize("agent", agent_params("codex", "claude", "gemini"))
def test_a_trigger_run_looks_for_the_name_the_agent_lists(agent: str, tmp_path: Path) -> None:
    """On `main`: Codex and Gemini CLI `MISSED` (the skill under test was named after the
    folder it was copied to, the signal reported its title), Claude Code every attempt invalid
    (`the agent reports skill 'Changelog-Entry', which was not installed`)."""
    runner = agent_or_skip(agent)
    layers_or_skip(trace=True, jail=True)
    evals = _skill_repo(tmp_path / "src")
    behaviors = _behaviors(tmp_path, [_loads(agent)])
    with scratch_dir() as scratch:
        options = RunOptions(
            repo=evals,
            agent=runner,
            attempts=1,
            behaviors=behaviors,
            runs_dir=tmp_path / "runs",
            scratch_root=scratch,
            timeout_s=120,
        )
        outcome = TriggerRun(options, TriggerOptions()).execute()
    run = outcome.run_dir.path
    observations = {
        json.loads(path.read_text())["prompt_id"]: json.loads(path.read_text())
        for path in run.glob("case-artifacts/*/attempts/attempt-*/trigger.json")
    }
    expected = LISTED_AS[agent]
    for seen in observations.values():
        assert seen["invalid"] is None, seen
        assert seen["skill"] == expected
        assert seen["fired"] == seen["expect_trigger"], seen
    assert len(observations) == 2
    summary = json.loads((run / "triggers.json").read_text())
    assert summary["skill"] == expected
    assert summary["over_prompts"]["f1"] == 1.0, summary["over_prompts"]
    assert summary["suspect"] is None
