"""`score --split` that selects no case says how the cases split and where a split is set
(checked before anything runs: no agent needed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluator.cli.main import main, run_cli
from evaluator.plan import case_split, open_repo, select_cases
from tests.conftest import copy_demo


def last_error(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = run_cli(["score", *args])
    return code, capsys.readouterr().err.strip().splitlines()[-1]


def test_an_empty_split_of_an_eval_repo_names_the_splits_and_the_setting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = copy_demo(tmp_path)
    (repo / "agentic-eval.yaml").write_text(
        "default_target: db-migrations\nsplits: {val_fraction: 0}\n"
    )
    code, line = last_error(capsys, "--repo", str(repo), "--split", "val")
    assert code == 2
    assert line == (
        "agentic-eval: --split: the selection holds no case of split 'val' (its cases:"
        " train 10, val 0, test 0); give cases `split: val` in their case files, or change"
        " `splits:` in agentic-eval.yaml (`agentic-eval list --split` shows each case's)"
    )


def test_an_empty_split_of_an_evals_json_says_it_cannot_set_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The seventh new user's three evals all hashed to `train`: `score --split val` said only
    that the selection held no case of that split, with nothing to change in an evals.json."""
    skill = tmp_path / "lint"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: lint\ndescription: Lint a README.\n---\nLint.\n")
    evals = [
        {
            "id": n,
            "prompt": f"Lint README number {n}.",
            "expectations": ["The final answer mentions `ok`."],
        }
        for n in (1, 2, 3)
    ]
    (skill / "evals/evals.json").write_text(json.dumps({"skill_name": "lint", "evals": evals}))
    loaded = open_repo(skill / "evals/evals.json", skill)
    selection = select_cases(loaded, None, ())
    splits = [case_split(case, loaded.config.splits) for case in selection.cases]
    missing = next(name for name in ("val", "test", "train") if name not in splits)
    held = ", ".join(f"{name} {splits.count(name)}" for name in ("train", "val", "test"))
    code, line = last_error(capsys, "--evals", str(skill), "--split", missing)
    assert code == 2
    assert line == (
        f"agentic-eval: --split: the selection holds no case of split {missing!r} (its cases:"
        f' {held}); give evals `"split": "{missing}"` in the evals.json (ours; skill-creator'
        " ignores it), or score with --split all (an eval without one is placed by a hash of its"
        " id)"
    )


def _lint_skill(tmp_path: Path, splits: dict[int, object]) -> Path:
    skill = tmp_path / "lint"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: lint\ndescription: Lint a README.\n---\nLint.\n")
    evals = [
        {
            "id": n,
            "prompt": f"Lint README number {n}.",
            "expectations": ["The final answer mentions `ok`."],
            **({"split": splits[n]} if n in splits else {}),
        }
        for n in (1, 2, 3)
    ]
    text = json.dumps({"skill_name": "lint", "evals": evals}, indent=2)
    (skill / "evals/evals.json").write_text(text)
    return skill


def test_an_evals_json_eval_sets_its_own_split(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Session 18: an eval's `split` (ours, as `needs` is) places it, as a case file's `split:`
    does; the others keep their hash. Before, the key was refused as unknown."""
    skill = _lint_skill(tmp_path, {1: "val", 2: "test"})
    loaded = open_repo(skill / "evals/evals.json", skill)
    selection = select_cases(loaded, None, ())
    placed = {c.case_id: case_split(c, loaded.config.splits) for c in selection.cases}
    assert placed["eval-1"] == "val" and placed["eval-2"] == "test"
    capsys.readouterr()
    with pytest.raises(SystemExit) as done:
        main(["list", "--evals", str(skill), "--split", "val", "--json"])
    assert done.value.code == 0
    listed = {c["case_id"]: c["split"] for c in json.loads(capsys.readouterr().out)["cases"]}
    assert listed["eval-1"] == "val" and "eval-2" not in listed
    # `convert` carries it into the case file, where the SkillOpt adapter reads it
    out = tmp_path / "source/agentic-evals"
    with pytest.raises(SystemExit) as done:
        main(["convert", str(skill), "--out", str(out)])
    assert done.value.code == 0
    assert "split: val" in next(out.rglob("eval-1.yaml")).read_text()
    assert "split" not in next(out.rglob("eval-3.yaml")).read_text()


@pytest.mark.parametrize("value", ["validation", 1, None, ["val"]])
def test_a_split_that_is_none_of_the_three_is_one_located_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], value: object
) -> None:
    skill = _lint_skill(tmp_path, {2: value})
    capsys.readouterr()
    with pytest.raises(SystemExit) as done:
        main(["validate", "--evals", str(skill)])
    err = capsys.readouterr().err
    assert done.value.code == 2 and "Traceback" not in err
    line = next(x for x in err.splitlines() if "split" in x)
    assert line.startswith(str(skill / "evals/evals.json") + ":")
    assert f"evals[1].split: expected one of train, val, test, got {json.dumps(value)}" in line
