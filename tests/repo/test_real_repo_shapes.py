"""Shapes public skill repos keep that the first loaders refused or misread (docs/real-repos.md):
each test builds its own minimal input of that shape."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluator.artifacts.models import CaseResult
from evaluator.cli.main import main
from evaluator.cli.run import unclear_rule_hint
from evaluator.judge import chain
from evaluator.repo import load_repo
from evaluator.repo.triggers import load_trigger_set

QUERIES = [
    {"query": "Tidy the imports of this module", "should_trigger": True},
    {"query": "Write a limerick about the sea", "should_trigger": False},
]


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), out, err


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def skill_md(folder: Path, name: str) -> None:
    write(folder / "SKILL.md", f"---\nname: {name}\ndescription: d\n---\nBody.\n")


def test_a_skill_with_only_a_trigger_set_loads_for_triggers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A skill folder with `evals/trigger-evals.json` and no `evals.json` (the commonest public
    layout): validate loads its trigger set, named by the skill's own name; commands that run
    cases say it holds none and point at `triggers`."""
    folder = tmp_path / "checkout"
    skill_md(folder, "tidy-imports")
    write(folder / "evals/trigger-evals.json", json.dumps(QUERIES))
    code, out, err = run_cli(["validate", "--evals", str(folder)], capsys)
    assert code == 0 and out.startswith("ok: 1 target(s), 0 case(s), 2 trigger prompt(s)"), err
    repo, diagnostics = load_repo(folder / "evals/trigger-evals.json", folder)
    assert repo is not None and not diagnostics.errors
    target = repo.targets["tidy-imports"]
    assert target.triggers is not None and len(target.triggers.cases) == 2
    assert target.skill_mount is not None and target.skill_mount.origin == folder.resolve()
    assert not target.suites
    for command in (["explain"], ["run"]):
        code, _, err = run_cli([*command, "--evals", str(folder)], capsys)
        assert code == 2
        assert "holds no cases, only the trigger set trigger-evals.json" in err
        assert "`agentic-eval triggers`" in err


def test_a_repo_with_its_skill_under_skills_and_wrapped_queries(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The repo root holds `evals/trigger_evals.json` as `{skill_name, evals: [{query,
    should_trigger, ...}]}` and the skill sits at `skills/<name>/`: `--evals <repo>` finds both."""
    skill_md(tmp_path / "repo/skills/research", "research")
    wrapped = {
        "skill_name": "research",
        "evals": [{"id": i + 1, **q} for i, q in enumerate(QUERIES)],
    }
    write(tmp_path / "repo/evals/trigger_evals.json", json.dumps(wrapped))
    code, out, err = run_cli(["validate", "--evals", str(tmp_path / "repo")], capsys)
    assert code == 0 and "0 case(s), 2 trigger prompt(s)" in out, err
    loaded = load_trigger_set(tmp_path / "repo/evals/trigger_evals.json")
    assert (loaded.skill, [c.id for c in loaded.cases]) == ("research", ["1", "2"])


def test_a_query_list_kept_under_queries_beside_notes(tmp_path: Path) -> None:
    data = {"skill_name": "x", "notes": "measured by hand", "harness": "h", "queries": QUERIES}
    loaded = load_trigger_set(write(tmp_path / "t.json", json.dumps(data)))
    assert loaded.format == "skill-creator" and loaded.skill == "x"
    assert [(c.id, c.expect_trigger) for c in loaded.cases] == [("q-01", True), ("q-02", False)]


def test_a_wrapped_query_list_is_checked_like_a_plain_one(tmp_path: Path) -> None:
    """A typo of a query's key and a non-boolean flag are located under the wrapping key."""
    bad = {"queries": [QUERIES[0], {"query": "q", "should_trigger": "yes"}]}
    path = write(tmp_path / "t.json", json.dumps(bad, indent=1))
    with pytest.raises(Exception, match=r"queries\[1\]\.should_trigger: expected true or false"):
        load_trigger_set(path)


def test_a_note_beside_the_evals_is_a_warning_not_a_refusal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "s"
    skill_md(folder, "s")
    evals = {
        "skill_name": "s",
        "notes": "Run by hand in July.",
        "evals": [{"id": 1, "prompt": "p", "assertions": ["The answer mentions `x`"]}],
    }
    write(folder / "evals/evals.json", json.dumps(evals, indent=2))
    code, out, err = run_cli(["validate", "--evals", str(folder)], capsys)
    assert code == 0 and out.startswith("ok: 1 target(s), 1 case(s)")
    assert err.strip() == (
        f"warning: {folder}/evals/evals.json:3:3: notes: unknown field 'notes': a note, ignored"
    )
    # a typo of a known key, or an unknown key holding data, still refuses the file
    without_note = {k: v for k, v in evals.items() if k != "notes"}
    for key, value in (("skil_name", "s"), ("notes", {"a": 1})):
        write(folder / "evals/evals.json", json.dumps({**without_note, key: value}))
        code, _, err = run_cli(["validate", "--evals", str(folder)], capsys)
        assert code == 2 and f"{key}: unknown field" in err and "a note, ignored" not in err


def test_a_skill_kept_deep_in_a_plugin_is_found_by_its_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`evals/` at the repo root, the skill at `plugins/<p>/skills/<name>/`: found by
    `skill_name`; two skills of that name are named in the error, never guessed between."""
    repo = tmp_path / "repo"
    skill_md(repo / "plugins/tui/skills/tui-design", "tui-design")
    evals = {"skill_name": "tui-design", "evals": [{"id": 1, "prompt": "p", "assertions": ["x"]}]}
    write(repo / "evals/evals.json", json.dumps(evals))
    write(repo / "evals/trigger-evals.json", json.dumps(QUERIES))
    loaded, diagnostics = load_repo(repo / "evals/evals.json")
    assert loaded is not None and not diagnostics.errors
    mount = loaded.targets["tui-design"].skill_mount
    assert mount is not None and mount.origin == (repo / "plugins/tui/skills/tui-design").resolve()
    skill_md(repo / "copies/tui-design", "tui-design")
    code, _, err = run_cli(["validate", "--evals", str(repo / "evals/evals.json")], capsys)
    assert code == 2
    assert "several skills are named 'tui-design': copies/tui-design, plugins/tui/skills" in err


def test_an_eval_without_expectations_is_a_located_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """skill-creator evals that carry only `expected_output`: nothing grades them, so validate
    says so at the eval's line before anything runs."""
    folder = tmp_path / "m"
    skill_md(folder, "m")
    evals = {"skill_name": "m", "evals": [{"id": 1, "prompt": "p", "expected_output": "o"}]}
    write(folder / "evals/evals.json", json.dumps(evals, indent=2))
    code, _, err = run_cli(["validate", "--evals", str(folder)], capsys)
    assert code == 0
    assert err.strip() == (
        f"warning: {folder}/evals/evals.json:4:5: evals[0]: no `expectations` or `assertions`:"
        " nothing to judge, so this eval is blocked (unclear-rule) whatever the agent does;"
        " `expected_output` is never graded"
    )


def test_a_case_without_assertions_gets_no_prose_hint() -> None:
    """The unclear-rule hint speaks of prose no rule decides: a case with no assertion at all
    has none, and its exit line gives its own cause (`chain.NO_ASSERTIONS`) instead."""
    bare = CaseResult.model_validate(
        {
            "case_id": "eval-1",
            "workspace_root": None,
            "thread_id": None,
            "session_path": None,
            "status": "blocked",
            "blocked_reason": "unclear-rule",
            "assertions": [],
            "notes": [chain.NO_ASSERTIONS],
        }
    )
    assert unclear_rule_hint([bare], from_evals=True) is None


def test_another_tool_s_file_named_evals_json_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`{version, test_cases: [...]}` under skill-creator's file name: one line saying it is not
    that format, with its keys, rather than a did-you-mean per key and a missing `evals`."""
    folder = tmp_path / "w"
    skill_md(folder, "w")
    write(folder / "evals/evals.json", json.dumps({"version": "1", "test_cases": []}))
    code, _, err = run_cli(["validate", "--evals", str(folder)], capsys)
    assert code == 2
    assert err.strip() == (
        f"{folder}/evals/evals.json:1:1: <document>: not a skill-creator evals file: no `evals`"
        " list (its keys: version, test_cases); skill-creator's is {skill_name, evals: [{id,"
        " prompt, expectations}]}"
    )


def test_a_trigger_run_plans_the_prompts_of_a_skill_without_evals(tmp_path: Path) -> None:
    """`triggers --evals` on a skill with only a trigger set: the plan picks the target alone
    (it has no eval case to select) and runs one case per prompt."""
    from evaluator.pipeline.run import RunOptions
    from evaluator.pipeline.triggers import TriggerOptions, TriggerRun

    folder = tmp_path / "only-triggers"
    skill_md(folder, "tidy-imports")
    queries = write(folder / "evals/trigger-evals.json", json.dumps(QUERIES))
    run = TriggerRun(
        RunOptions(repo=queries, source_workspace=folder, runs_dir=tmp_path / "runs"),
        TriggerOptions(),
    )
    _, selection, _, _ = run._plan()
    assert selection.target.target.target_id == "tidy-imports"
    assert [c.case.input.user_prompt for c in selection.cases] == [q["query"] for q in QUERIES]


def test_queries_under_cases_without_our_suite_id_say_what_the_file_is(tmp_path: Path) -> None:
    """`{version, cases: [{id, query, should_trigger, target}]}` (a plugin's own set): located
    at `cases` and named as skill-creator queries, not our suite schema's `unknown field`."""
    data = {"version": 1, "cases": [{**q, "target": "scan"} for q in QUERIES]}
    path = write(tmp_path / "t.json", json.dumps(data, indent=2))
    with pytest.raises(Exception) as raised:
        load_trigger_set(path)
    assert str(raised.value) == (
        f"{path}:3:12: cases: skill-creator queries ({{query, should_trigger}}) under `cases`,"
        " without our `trigger_suite_id`: give one skill's queries as a plain list (or under"
        " `queries`)"
    )


@pytest.mark.parametrize("with_evals", [True, False])
def test_convert_carries_the_trigger_set_its_target_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], with_evals: bool
) -> None:
    """The converted target's `trigger_suite` names a file beside it: the file is written there
    (AvdLee's public suite converted to a repo `validate` refused), and a skill with only a
    trigger set converts to a target with an empty `cases/`."""
    workspace = tmp_path / "ws"
    folder = workspace / ".agents/skills/tidy"
    skill_md(folder, "tidy")
    write(folder / "evals/trigger-evals.json", json.dumps(QUERIES))
    if with_evals:
        evals = {"skill_name": "tidy", "evals": [{"id": 1, "prompt": "p", "assertions": ["x"]}]}
        write(folder / "evals/evals.json", json.dumps(evals))
    out = tmp_path / "converted"
    code, _, err = run_cli(["convert", str(folder), "--out", str(out)], capsys)
    assert code == 0, err
    assert json.loads((out / "targets/tidy/trigger-evals.json").read_text()) == QUERIES
    code, out_text, err = run_cli(
        ["validate", "--repo", str(out), "--source-workspace", str(workspace)], capsys
    )
    cases = 1 if with_evals else 0
    assert code == 0 and f"{cases} case(s), 2 trigger prompt(s)" in out_text, err
