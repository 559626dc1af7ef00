"""`score --split` that selects no case says how the cases split and where a split is set
(checked before anything runs: no agent needed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluator.cli.main import run_cli
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
        f" {held}); an evals.json cannot set a case's split (each eval is placed by a hash of"
        " its id): score with --split all, or `agentic-eval convert` it and give cases"
        f" `split: {missing}` in their case files"
    )
