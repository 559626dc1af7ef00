"""A folder given as a skill that holds no SKILL.md: a plugin (Claude Code's), a marketplace of
plugins, a repo of skills. The one line names what it is and the skill folders below it (round 12
of real skills: `--skill` given a plugin's root said only "no SKILL.md in this folder")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluator.repo.skill_search import no_skill_here, skills_below
from tests.cli.test_validate import run_cli

SKILL = "---\nname: {name}\ndescription: Summarise meeting notes into a Word document.\n---\n\n# {name}\n"


def _skill(folder: Path, name: str) -> Path:
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(SKILL.format(name=name))
    return folder


def _plugin(root: Path, *skills: str) -> Path:
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": root.name}))
    (root / "scripts").mkdir()
    (root / "scripts" / "check.sh").write_text("#!/bin/sh\necho ok\n")
    for name in skills:
        _skill(root / "skills" / name, name)
    return root


def _evals(path: Path, skill_name: str) -> Path:
    path.write_text(
        json.dumps(
            {
                "skill_name": skill_name,
                "evals": [{"id": 1, "prompt": "Summarise notes.md", "expected_output": "a doc"}],
            }
        )
    )
    return path


def test_a_plugin_root_names_its_skill_folders(tmp_path: Path) -> None:
    plugin = _plugin(tmp_path / "notes-plugin", "notes-doc", "notes-sheet")
    assert no_skill_here(plugin) == (
        "no SKILL.md in this folder: it is a plugin (.claude-plugin/plugin.json),"
        " whose skill folders are skills/notes-doc, skills/notes-sheet; give one skill's folder"
        " (only that folder is copied into a workspace)"
    )
    # the evals' skill_name first
    assert "are skills/notes-sheet, skills/notes-doc;" in no_skill_here(plugin, "notes-sheet")


def test_a_marketplace_names_the_skills_of_its_plugins_and_counts_the_rest(tmp_path: Path) -> None:
    market = tmp_path / "market"
    (market / ".claude-plugin").mkdir(parents=True)
    (market / ".claude-plugin" / "marketplace.json").write_text("{}")
    for index in range(7):
        _plugin(market / "plugins" / f"p{index}", f"s{index}")
    line = no_skill_here(market, "s6")
    assert line.startswith(
        "no SKILL.md in this folder: it is a plugin marketplace"
        " (.claude-plugin/marketplace.json), whose skill folders are plugins/p6/skills/s6,"
        " plugins/p0/skills/s0,"
    )
    assert "and 2 more;" in line


def test_look_alikes_name_no_skill(tmp_path: Path) -> None:
    # nothing below: the plain line; a plugin with no skill says so
    (tmp_path / "empty").mkdir()
    assert no_skill_here(tmp_path / "empty") == "no SKILL.md in this folder"
    bare = _plugin(tmp_path / "bare")
    assert no_skill_here(bare) == (
        "no SKILL.md in this folder: it is a plugin (.claude-plugin/plugin.json),"
        " with no skill below it"
    )
    # another agent's manifest names it; a manifest folder without a manifest is no plugin
    other = tmp_path / "other"
    (other / ".codex-plugin").mkdir(parents=True)
    (other / ".codex-plugin" / "plugin.json").write_text("{}")
    _skill(other / "skills" / "x", "x")
    assert "it is a plugin (.codex-plugin/plugin.json), whose skill folders are skills/x;" in (
        no_skill_here(other)
    )
    (other / ".codex-plugin" / "plugin.json").unlink()
    assert no_skill_here(other).startswith("no SKILL.md in this folder: skill folders below it:")
    # hidden folders, dependencies, symlinks and skills deeper than four levels are not listed
    repo = tmp_path / "repo"
    _skill(repo / ".claude" / "skills" / "hidden", "hidden")
    _skill(repo / "node_modules" / "pkg" / "dep", "dep")
    _skill(repo / "a" / "b" / "c" / "d" / "deep", "deep")
    (repo / "link").symlink_to(_skill(tmp_path / "elsewhere", "elsewhere"))
    assert skills_below(repo) == []
    assert no_skill_here(repo) == "no SKILL.md in this folder"
    # a repo of skills without a manifest: the folders below it
    _skill(repo / "skills" / "report", "report")
    assert no_skill_here(repo) == (
        "no SKILL.md in this folder: skill folders below it: skills/report; give one skill's"
        " folder (only that folder is copied into a workspace)"
    )


@pytest.mark.parametrize("command", ["validate", "run"])
def test_validate_and_run_given_a_plugin_root_refuse_in_one_line(
    tmp_path: Path, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    plugin = _plugin(tmp_path / "notes-plugin", "notes-doc")
    evals = _evals(tmp_path / "evals.json", "notes-doc")
    code, _, err = run_cli([command, "--evals", str(evals), "--skill", str(plugin)], capsys)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err
    assert lines[0].endswith(
        "--skill: no SKILL.md in this folder: it is a plugin"
        " (.claude-plugin/plugin.json), whose skill folders are skills/notes-doc; give one"
        " skill's folder (only that folder is copied into a workspace)"
    )
    # the skill's own folder is accepted
    if command == "validate":
        assert (
            run_cli(
                [command, "--evals", str(evals), "--skill", str(plugin / "skills" / "notes-doc")],
                capsys,
            )[0]
            == 0
        )


def test_evaluate_candidate_given_a_plugin_root_names_its_skill(tmp_path: Path) -> None:
    from evaluator.errors import InputError
    from evaluator.evaluate.variants import parse_variant

    plugin = _plugin(tmp_path / "notes-plugin", "notes-doc")
    with pytest.raises(InputError) as raised:
        parse_variant(str(plugin), "candidate", candidate=True)
    assert "whose skill folders are skills/notes-doc" in str(raised.value)
