"""The public contract's `setup` is free-form ("boolean facts about the workspace"): a case with a
fact of its own loads, and its attempts are blocked (environment) without an agent; a near miss
of a known key, or an unknown key inside one of ours, is still a located error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.test_json_outputs import check_output
from tests.cli.test_validate import run_cli
from tests.conftest import ROOT, copy_demo
from tests.support import codex_or_skip, scratch_dir

CASE = "routing-add-column"
BEHAVIORS = ROOT / "agentic-evals/targets/db-migrations/behaviors/follows-skill"


def _with_setup(repo: Path, setup: str) -> Path:
    case = repo / f"targets/db-migrations/cases/routing/{CASE}.yaml"
    text = case.read_text()
    assert "\nsetup: {}\n" in text
    case.write_text(text.replace("\nsetup: {}\n", f"\nsetup:\n{setup}", 1))
    return case


def test_a_free_form_fact_loads_with_a_warning_and_a_typo_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """newuser8: `changes_file_present: true` (upstream's shape) was refused with `did you mean
    'docs_index_present'?`, a closeness guess, not the fix."""
    repo = copy_demo(tmp_path / "free")
    case = _with_setup(repo, "  changes_file_present: true\n")
    code, out, err = run_cli(["validate", "--repo", str(repo)], capsys)
    assert code == 0, err
    [warning] = [line for line in err.splitlines() if "changes_file_present" in line]
    assert warning.startswith(f"warning: {case}:")
    assert "setup.changes_file_present: a free-form setup fact" in warning
    assert "did you mean" not in warning
    code, out, err = run_cli(["explain", "--repo", str(repo), "--case", CASE], capsys)
    assert code == 0, err
    assert (
        "  environment: setup.changes_file_present is a free-form fact this evaluator cannot"
        " reproduce: a run does not start the agent, and the case is blocked (environment)"
    ) in out.splitlines()
    # --json says it too (before round 20 only the text did), as its schema describes.
    code, out, err = run_cli(["explain", "--repo", str(repo), "--case", CASE, "--json"], capsys)
    assert code == 0, err
    [explained] = check_output("explain", out)["cases"]
    assert explained["setup_free_form"] == {"changes_file_present": True}
    assert (explained["intent"], explained["verification"]) == (None, [])
    # Look-alikes that stay errors: a near miss of a key we know, an unknown key inside ours.
    for name, setup, field in (
        ("typo", "  docs_index_presnt: true\n", "setup.docs_index_presnt"),
        ("nested", "  git:\n    comits: []\n", "setup.git.comits"),
    ):
        repo = copy_demo(tmp_path / name)
        _with_setup(repo, setup)
        code, out, err = run_cli(["validate", "--repo", str(repo)], capsys)
        assert code == 2, err
        [line] = [x for x in err.splitlines() if field in x]
        assert "unknown field" in line and not line.startswith("warning"), line


@pytest.mark.codex
def test_a_free_form_fact_blocks_the_case_without_an_agent(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    codex_or_skip()
    repo = copy_demo(tmp_path)
    _with_setup(repo, "  changes_file_present: true\n")
    with scratch_dir() as scratch:
        base = ["run", "--repo", str(repo), "--runs-dir", str(tmp_path / "runs")]
        base += ["--scratch-root", str(scratch), "--behaviors", str(BEHAVIORS)]
        code, _, err = run_cli([*base, "--case", CASE, "--run-id", "free"], capsys)
    assert code == 1, err
    attempt = tmp_path / f"runs/free/case-artifacts/{CASE}/attempts/attempt-01"
    record = json.loads((attempt / "attempt.json").read_text())
    assert (record["status"], record["blocked_reason"]) == ("blocked", "environment")
    assert record["unmet_needs"] == [
        "setup: setup key 'changes_file_present' is not understood by this evaluator"
    ]
    assert record["exit_code"] is None and not (attempt / "agent-stdout.jsonl").exists()
