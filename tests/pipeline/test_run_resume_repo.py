"""A resume given no repo, where the default one is not: the error names the repo the run was
planned from (an `--evals` run's, another project's), not only that `agentic-evals` is missing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.test_validate import run_cli


@pytest.mark.parametrize("command", [["run"], ["triggers"], ["score", "--metric", "trigger-f1"]])
def test_a_resume_without_the_planned_repo_names_it(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    command: list[str],
) -> None:
    run = tmp_path / "runs/r1"
    run.mkdir(parents=True)
    manifest = {
        "run_id": "r1",
        "target_id": "t",
        "suite_ids": [],
        "target_skill_path": "s/SKILL.md",
        "started_at": "2026-11-28T00:00:00+00:00",
        "case_workspace_root": str(tmp_path / "ws"),
        "repo": "/elsewhere/evals",
        "source_workspace": "/elsewhere/skill",
    }
    (run / "manifest.json").write_text(json.dumps(manifest))
    monkeypatch.chdir(tmp_path)  # no agentic-evals here
    code, out, err = run_cli(
        [*command, "--resume", "r1", "--runs-dir", str(tmp_path / "runs")], capsys
    )
    assert code == 2, out
    said = err.strip().splitlines()[-1]
    assert (
        "run r1 was planned from --repo /elsewhere/evals --source-workspace /elsewhere/skill"
        in said
    )


def test_a_resume_of_an_evals_run_names_its_evals_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The repo of an `--evals` run is the evals file's folder: the way to give it back is
    `--evals FILE --skill DIR`, which the error says."""
    skill = tmp_path / "elsewhere/tidy"
    (skill / "evals").mkdir(parents=True)
    (skill / "evals/evals.json").write_text('{"evals": [{"id": 1, "prompt": "p"}]}')
    run = tmp_path / "runs/r1"
    run.mkdir(parents=True)
    manifest = {
        "run_id": "r1",
        "target_id": "tidy",
        "suite_ids": [],
        "target_skill_path": ".agents/skills/tidy/SKILL.md",
        "started_at": "2026-11-28T00:00:00+00:00",
        "case_workspace_root": str(tmp_path / "ws"),
        "repo": str(skill / "evals"),
        "source_workspace": str(skill),
    }
    (run / "manifest.json").write_text(json.dumps(manifest))
    monkeypatch.chdir(tmp_path)
    code, _, err = run_cli(["run", "--resume", "r1", "--runs-dir", str(tmp_path / "runs")], capsys)
    assert code == 2
    said = err.strip().splitlines()[-1]
    assert f"was planned from --evals {skill}/evals/evals.json --skill {skill}:" in said
