"""Trigger sets: our YAML and the three outside shapes load unchanged from a path; bad input is
one located error; a target's `trigger_suite` and `distractor_skills` are checked at load."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluator.errors import InputError
from evaluator.repo import load_repo
from evaluator.repo.triggers import load_trigger_set
from tests.conftest import copy_demo

FIXTURES = Path(__file__).parents[1] / "fixtures" / "triggers"


def cases(path: Path) -> list[tuple[str, bool, str]]:
    return [(c.id, c.expect_trigger, c.prompt) for c in load_trigger_set(path).cases]


def test_skill_creator_query_list() -> None:
    loaded = load_trigger_set(FIXTURES / "skill-creator.json")
    assert loaded.format == "skill-creator"
    assert cases(FIXTURES / "skill-creator.json") == [
        ("q-01", True, "Add a nullable avatar_url column to the users table"),
        ("q-02", True, "Rename the clients table to customers, keeping the data"),
        ("q-03", False, "Write a haiku about databases"),
        ("q-04", False, "Why is my SQL query slow?"),
    ]


def test_should_lists_with_skill_name() -> None:
    loaded = load_trigger_set(FIXTURES / "should-lists.json")
    assert (loaded.format, loaded.skill) == ("should-lists", "db-migrations")
    assert [(c.id, c.expect_trigger) for c in loaded.cases] == [
        ("should-01", True),
        ("should-02", True),
        ("should-not-01", False),
        ("should-not-02", False),
    ]
    assert loaded.cases[1].prompt == "Backfill the new currency column from the accounts table"


def test_csv_with_quoted_and_multiline_prompts() -> None:
    loaded = load_trigger_set(FIXTURES / "openai.csv")
    assert loaded.format == "csv"
    assert cases(FIXTURES / "openai.csv") == [
        ("add-column", True, "Add a nullable avatar_url column to the users table"),
        ("rename", True, "Rename clients to customers, keeping the data"),
        ("haiku", False, "Write a haiku about databases"),
        ("multiline", False, "Two lines:\nexplain a join"),
    ]


def test_our_suite() -> None:
    loaded = load_trigger_set(FIXTURES / "suite.yaml")
    assert (loaded.format, loaded.skill, loaded.attempts) == ("agentic-eval", "db-migrations", 3)
    assert [(c.id, c.expect_trigger) for c in loaded.cases] == [
        ("add-column", True),
        ("haiku", False),
    ]
    assert loaded.cases[1].note == "near miss: names databases, asks for no change"


BAD = [
    (
        "list.json",
        '[\n  {"query": "a", "should_trigger": true},\n  {"query": "b", "should_trigger": "yes"}\n]\n',
        ":3:",
        "[1].should_trigger: expected true or false, got a string",
    ),
    (
        "list.json",
        '[\n  {"query": "a", "should_trigger": true},\n  {"should_trigger": false}\n]\n',
        ":3:",
        "[1].query: required field is missing",
    ),
    ("broken.json", '[\n  {"query": "a",\n]\n', ":3:", "invalid JSON"),
    (
        "list.json",
        '[\n  {"query": "a", "should_trigger": true},\n  {"querry": "b", "should_trigger": true}\n]\n',
        ":3:",
        "[1].querry: unknown field 'querry' (did you mean 'query'?)",
    ),
    (
        "lists.json",
        '{"should_trigger": ["a"],\n "should_not": ["b"]}\n',
        ":2:",
        "should_not: unknown field 'should_not' (did you mean 'should_not_trigger'?)",
    ),
    (
        "lists.json",
        '{"skill_name": "x",\n "should_trigger": ["a", 3]}\n',
        ":2:",
        "should_trigger[1]: expected a prompt (text), got a number",
    ),
    (
        "lists.json",
        '{"should_trigger": "a prompt"}\n',
        ":1:",
        "should_trigger: expected a list of prompts, got a string",
    ),
    (
        "x.csv",
        "id,should_trigger,prompt\nok,true,fine\nbad,maybe,hmm\n",
        ":3:",
        "should_trigger: expected true or false, got 'maybe'",
    ),
    ("x.csv", "id,prompt\na,b\n", ":1:", "should_trigger: the header lacks the column"),
    (
        "x.csv",
        'id,should_trigger,prompt\na,true,"one\ntwo"\na,false,three\n',
        ":4:",
        "id: duplicate id 'a' (first on line 2)",
    ),
    ("x.csv", "id,should_trigger,prompt\nb,true,\n", ":2:", "prompt: the prompt is empty"),
    (
        "suite.yaml",
        "trigger_suite_id: s\ncases:\n  - id: a\n    prompt: p\n    expect_trigger: maybe\n",
        ":5:",
        "cases[0].expect_trigger",
    ),
    (
        "suite.yaml",
        "trigger_suite_id: s\ncases:\n  - id: a\n    promt: p\n    expect_trigger: true\n",
        ":4:",
        "cases[0].promt: unknown field 'promt' (did you mean 'prompt'?)",
    ),
    ("other.yaml", "title: nothing here\n", ":1:", "not a trigger set"),
]


@pytest.mark.parametrize(("name", "text", "line", "message"), BAD)
def test_bad_input_is_one_located_line(
    tmp_path: Path, name: str, text: str, line: str, message: str
) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as raised:
        load_trigger_set(path)
    rendered = raised.value.render()
    assert rendered.startswith(f"{path}{line}"), rendered
    assert message in rendered, rendered
    assert "\n" not in rendered


def test_a_key_no_known_key_is_close_to_is_left_alone(tmp_path: Path) -> None:
    """Other tools annotate their prompts; only a near miss of a known key is a typo."""
    path = tmp_path / "list.json"
    path.write_text('[{"query": "a", "should_trigger": true, "category": "core"}]\n')
    assert [c.prompt for c in load_trigger_set(path).cases] == ["a"]


def test_bad_trigger_file_exits_2_through_validate(tmp_path: Path) -> None:
    """The CLI path: a target whose trigger suite is broken fails `validate` with exit 2."""
    from evaluator.cli.main import main

    repo = copy_demo(tmp_path)
    target = repo / "targets/db-migrations"
    (target / "triggers.csv").write_text("id,should_trigger,prompt\na,perhaps,x\n")
    with (target / "target.yaml").open("a") as handle:
        handle.write('trigger_suite: "triggers.csv"\n')
    with pytest.raises(SystemExit) as exit_info:
        main(["validate", "--repo", str(repo)])
    assert exit_info.value.code == 2


def _with_skill(workspace: Path, name: str) -> None:
    folder = workspace / ".agents/skills" / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: x\n---\n# {name}\n")


def test_target_with_trigger_suite_and_distractors(tmp_path: Path) -> None:
    repo = copy_demo(tmp_path)
    target = repo / "targets/db-migrations"
    (target / "triggers.json").write_text((FIXTURES / "skill-creator.json").read_text())
    _with_skill(tmp_path, "pdf-tools")
    with (target / "target.yaml").open("a") as handle:
        handle.write(
            'trigger_suite: "triggers.json"\n'
            'distractor_skills: [".agents/skills/pdf-tools/SKILL.md"]\n'
        )
    loaded, diagnostics = load_repo(repo)
    assert diagnostics.errors == []
    assert loaded is not None
    demo = loaded.targets["db-migrations"]
    assert demo.triggers is not None and len(demo.triggers.cases) == 4
    assert demo.target.distractor_skills == [".agents/skills/pdf-tools/SKILL.md"]


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        ('trigger_suite: "missing.csv"\n', "trigger_suite: trigger suite not found"),
        ('distractor_skills: [".agents/skills/nope"]\n', "distractor_skills[0]: no SKILL.md"),
        (
            'distractor_skills: ["elsewhere/db-migrations"]\n',
            "skill 'db-migrations' is installed twice (also entry_skill)",
        ),
        ('distractor_skills: ["../outside"]\n', "distractor_skills[0]: '../outside'"),
    ],
)
def test_target_trigger_fields_are_checked(tmp_path: Path, lines: str, message: str) -> None:
    repo = copy_demo(tmp_path)
    with (repo / "targets/db-migrations/target.yaml").open("a") as handle:
        handle.write(lines)
    _, diagnostics = load_repo(repo)
    rendered = [e.render() for e in diagnostics.errors]
    assert any(message in line for line in rendered), rendered


PUBLIC = Path(__file__).resolve().parents[3] / "shared/fixtures/public-suites"


def test_public_skill_creator_trigger_files_load_in_place() -> None:
    """Real trigger sets kept beside public skills (read where they are, never copied)."""
    files = sorted(PUBLIC.glob("*/upstream/evals/trigger*.json"))
    if not files:
        pytest.skip("no public suites on this machine")
    for path in files:
        loaded = load_trigger_set(path)
        assert loaded.format == "skill-creator"
        assert len(loaded.cases) == 20
        assert sum(c.expect_trigger for c in loaded.cases) == 10


def test_upstream_shaped_target_loads_unchanged() -> None:
    """A target without the new fields loads as before: no trigger set, no distractors."""
    upstream = Path(__file__).parents[1] / "fixtures/upstream/agentic-evals"
    loaded, diagnostics = load_repo(upstream)
    assert loaded is not None and diagnostics.errors == []
    for target in loaded.targets.values():
        assert target.triggers is None and target.target.distractor_skills == []


def test_a_trigger_set_about_another_skill_is_a_warning(tmp_path: Path) -> None:
    repo = copy_demo(tmp_path)
    target = repo / "targets/db-migrations"
    text = (FIXTURES / "should-lists.json").read_text().replace('"db-migrations"', '"other"')
    (target / "triggers.json").write_text(text)
    with (target / "target.yaml").open("a") as handle:
        handle.write('trigger_suite: "triggers.json"\n')
    _, diagnostics = load_repo(repo)
    assert diagnostics.errors == []
    assert any(
        "about skill 'other', not the entry skill 'db-migrations'" in w.render()
        for w in diagnostics.warnings
    )


def test_an_empty_or_contradictory_trigger_set_is_refused(tmp_path: Path) -> None:
    empty = tmp_path / "empty.json"
    empty.write_text("[]")
    with pytest.raises(InputError, match="no trigger cases in this file"):
        load_trigger_set(empty)
    both = tmp_path / "both.json"
    both.write_text(
        '{"should_trigger": ["summarise the csv"], "should_not_trigger": ["summarise  the csv"]}'
    )
    with pytest.raises(InputError, match="listed as should trigger and as should not"):
        load_trigger_set(both)
    # A query copied with its expectation flipped: the line of the copy, as one located line.
    copied = tmp_path / "trigger-evals.json"
    copied.write_text(
        '[\n {"query": "summarise the csv", "should_trigger": true},\n'
        ' {"query": "plot the csv", "should_trigger": true},\n'
        ' {"query": "summarise the csv", "should_trigger": false}\n]\n'
    )
    with pytest.raises(InputError) as refused:
        load_trigger_set(copied)
    assert refused.value.render().startswith(f"{copied}:4:1: should_trigger: case 'q-03'")


def test_an_evals_folder_brings_the_trigger_set_kept_beside_its_evals_json() -> None:
    """skill-creator keeps trigger queries beside evals.json (`trigger-evals.json` or
    `trigger_evals.json`): `triggers --evals` runs them against the skill the folder tests."""
    from evaluator.pipeline.run import RunOptions
    from evaluator.pipeline.triggers import TriggerOptions, TriggerRun
    from evaluator.repo.evals_json import load_evals_json

    folders = sorted(p.parent for p in PUBLIC.glob("*/upstream/evals/trigger*.json"))
    if not folders:
        pytest.skip("no public suites on this machine")
    assert {next(f.glob("trigger*.json")).name for f in folders} == {
        "trigger-evals.json",
        "trigger_evals.json",
    }
    for folder in folders:
        repo, diagnostics = load_evals_json(folder / "evals.json")
        assert repo is not None and diagnostics.errors == []
        (target,) = repo.targets.values()
        assert target.triggers is not None and len(target.triggers.cases) == 20
        assert target.target.trigger_suite == next(folder.glob("trigger*.json")).name
    xcode = next(f for f in folders if "xcode-disk-cleanup" in str(f))
    run = TriggerRun(RunOptions(repo=xcode.parent), TriggerOptions())
    _, selection, _, _ = run._plan()
    assert [c.case_id for c in selection.cases] == [f"q-{n:02d}" for n in range(1, 21)]
    assert run.trigger_plan is not None and run.trigger_plan.skill == "xcode-disk-cleanup"


def test_an_evals_folder_with_a_broken_or_doubled_trigger_set_is_one_located_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from evaluator.cli.main import run_cli

    skill = tmp_path / "demo-skill"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: demo-skill\ndescription: A demo.\n---\n# Demo\n")
    (skill / "evals/evals.json").write_text('{"evals": [{"id": 1, "prompt": "p"}]}')
    assert run_cli(["validate", "--evals", str(skill)]) == 0
    assert run_cli(["triggers", "--evals", str(skill)]) == 2
    err = capsys.readouterr().err
    assert "no trigger set beside the evals file (trigger-evals.json or trigger_evals.json)" in err
    (skill / "evals/trigger-evals.json").write_text('[{"query": "q", "should_trigger": "yes"}]')
    assert run_cli(["validate", "--evals", str(skill)]) == 2
    assert "trigger-evals.json:1:" in capsys.readouterr().err
    (skill / "evals/trigger-evals.json").write_text('[{"query": "q", "should_trigger": true}]')
    (skill / "evals/trigger_evals.json").write_text('[{"query": "q", "should_trigger": true}]')
    assert run_cli(["validate", "--evals", str(skill)]) == 2
    err = capsys.readouterr().err
    assert "two trigger sets beside evals.json: trigger-evals.json and trigger_evals.json" in err
    assert run_cli(["triggers", "--evals", str(skill), "--repo", str(tmp_path)]) == 2
    assert "--evals replaces --repo" in capsys.readouterr().err


def _evals_skill(folder: Path, name: str) -> Path:
    """A skill folder in skill-creator's layout: SKILL.md, evals.json, trigger-evals.json."""
    (folder / "evals").mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: Use when the user asks for {name}.\n---\n\nBody.\n"
    )
    evals = {"skill_name": name, "evals": [{"id": 1, "prompt": f"Do {name}."}]}
    (folder / "evals/evals.json").write_text(json.dumps(evals))
    queries = [{"query": f"Do {name}.", "should_trigger": True}]
    (folder / "evals/trigger-evals.json").write_text(json.dumps(queries))
    return folder


def test_a_distractor_given_by_path_is_installed_beside_the_skill_or_refused(
    tmp_path: Path,
) -> None:
    """`--distractor DIR` for an evals.json (no target.yaml to name one in): beside the skill's
    folder under its own name; a folder without SKILL.md, or whose folder or front-matter name
    an installed skill has, is refused before anything runs."""
    from evaluator.pipeline.run import RunOptions
    from evaluator.pipeline.triggers import TriggerOptions, TriggerRun

    skill = _evals_skill(tmp_path / "reports", "reports")
    other = _evals_skill(tmp_path / "elsewhere/charts", "charts")

    def plan(*folders: Path) -> list[str]:
        run = TriggerRun(
            RunOptions(repo=skill / "evals", runs_dir=tmp_path / "runs"),
            TriggerOptions(distractor_folders=folders),
        )
        run._plan()
        assert run.trigger_plan is not None
        assert list(run.trigger_plan.distractor_sources) == list(folders)
        return list(run.trigger_plan.distractors)

    assert plan(other) == [".agents/skills/charts"]
    (tmp_path / "empty").mkdir()
    twin = _evals_skill(tmp_path / "twin/reports", "reports")
    alias = _evals_skill(tmp_path / "alias", "reports")  # another folder, the skill's name
    for refused, why in (
        ((tmp_path / "empty",), "no SKILL.md"),
        ((twin,), "'reports' is installed already"),
        ((alias,), "'reports' is installed already"),
        ((other, other), "'charts' is installed already"),
    ):
        with pytest.raises(InputError, match=why):
            plan(*refused)
