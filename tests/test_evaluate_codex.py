"""`agentic-eval evaluate` with the real Codex CLI on the demo target: scripted agents that follow
what SKILL.md tells them (`behaviors/reads-skill/`), so the skill's uplift over no skill, a
harmful edit's damage and the A/A noise are real differences in behaviour."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluator.cli.main import run_cli
from tests.conftest import ROOT
from tests.support import codex_or_skip, scratch_dir

pytestmark = [pytest.mark.codex, pytest.mark.slow]
READS_SKILL = ROOT / "agentic-evals/targets/db-migrations/behaviors/reads-skill"
SKILL = ROOT / ".agents/skills/db-migrations/SKILL.md"
CASES = ("routing-add-column", "routing-backfill", "workflow-keeps-shipped-migrations")
K = 3


@pytest.fixture(autouse=True)
def _codex() -> None:
    codex_or_skip()


def _evaluate(tmp_path: Path, run_id: str, *args: str) -> tuple[int, dict, Path]:  # type: ignore[type-arg]
    runs = tmp_path / "runs"
    with scratch_dir() as scratch:
        argv = ["evaluate", "--behaviors", str(READS_SKILL), "--attempts", str(K)]
        argv += [a for case in CASES for a in ("--case", case)]
        argv += ["--runs-dir", str(runs), "--scratch-root", str(scratch), "--run-id", run_id]
        code = run_cli([*argv, *args])
    directory = runs / run_id
    return code, json.loads((directory / "evaluation.json").read_text()), directory


def test_the_skill_shows_its_uplift_over_no_skill(tmp_path: Path) -> None:
    code, result, directory = _evaluate(tmp_path, "uplift", "--baseline", "none")
    assert code == 0
    without, with_skill = result["variants"]
    assert (without["label"], without["kind"]) == ("without_skill", "none")
    assert (without["passed"], without["counted"]) == (0, len(CASES) * K)
    assert (with_skill["passed"], with_skill["counted"]) == (len(CASES) * K, len(CASES) * K)
    (comparison,) = result["comparisons"]
    assert comparison["overall"]["mean_difference"] == 1.0
    # Each case on its own: 3/3 against 0/3 is significant after Holm over three cases.
    assert all(c["significant"] and c["difference"] == 1.0 for c in comparison["cases"])
    # Over three cases the sign-flip test cannot go below 1/8: no overall call, said so.
    assert comparison["overall"]["p"] == 0.125
    assert comparison["headline"]["call"] == "no-difference"
    check = without["contamination"]
    assert check["attempts_checked"] == len(CASES) * K and check["contaminated_attempts"] == []
    assert {"discovery", "session", "content"} <= set(check["layers"])
    assert with_skill["contamination"] is None
    # Each variant is a run of its own, in the public layout, with its source manifest.
    for label in ("without_skill", "with_skill"):
        run = directory / "variants" / label / "run"
        manifest = json.loads((run / "manifest.json").read_text())
        assert manifest["run_state"] == "completed"
        assert sorted(manifest["resolved_case_ids"]) == sorted(CASES)
        assert (run / "report.md").is_file()
        assert (directory / "variants" / label / "source-manifest.json").is_file()
    snapshot = directory / "variants/without_skill/run/case-artifacts/routing-backfill"
    files = json.loads((snapshot / "attempts/attempt-01/workspace/manifest.json").read_text())
    assert not any(".agents/skills" in str(entry) for entry in files.get("files", files))
    report = (directory / "eval-report.md").read_text()
    assert "## Head-to-Head" in report and "by layers: discovery, session" in report
    benchmark = json.loads((directory / "benchmark.json").read_text())
    assert benchmark["run_summary"]["delta"]["pass_rate"] == "+1.00"


def test_a_harmful_edit_is_worse_on_exactly_the_case_it_breaks(tmp_path: Path) -> None:
    rule = "Never edit an existing migration file: migrations that have shipped are\nimmutable."
    text = SKILL.read_text()
    assert rule in text
    harmful = tmp_path / "harmful.md"
    harmful.write_text(text.replace(rule, ""))
    code, result, _ = _evaluate(
        tmp_path, "harmful", "--baseline", "current", "--candidate", str(harmful)
    )
    assert code == 1  # a compared variant hurts a case
    (comparison,) = result["comparisons"]
    assert comparison["hurt_cases"] == ["workflow-keeps-shipped-migrations"]
    assert comparison["cases"][0]["case_id"] == "workflow-keeps-shipped-migrations"
    assert [c["hurt"] for c in comparison["cases"]] == [True, False, False]


def test_a_a_reports_no_significant_difference(tmp_path: Path) -> None:
    code, result, _ = _evaluate(tmp_path, "aa", "--aa")
    assert code == 0
    (comparison,) = result["comparisons"]
    assert comparison["headline"]["call"] == "no-difference"
    assert comparison["hurt_cases"] == []
    assert result["noise_floor"] == 0.0
