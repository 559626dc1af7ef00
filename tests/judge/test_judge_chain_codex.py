"""The judge chain on real Codex runs: structured checks decide before the prose compiler."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluator.pipeline.progress import PlainProgress
from evaluator.pipeline.rejudge import rejudge_run
from evaluator.pipeline.run import Run, RunOptions, RunOutcome
from tests.conftest import ROOT
from tests.support import codex_or_skip, scratch_dir

pytestmark = pytest.mark.codex
BEHAVIORS = ROOT / "agentic-evals/targets/db-migrations/behaviors"
CASE = "workflow-script-must-succeed"


@pytest.fixture(autouse=True)
def _codex() -> None:
    codex_or_skip()


def _run(tmp_path: Path, behaviors: Path, cases: tuple[str, ...]) -> RunOutcome:
    with scratch_dir() as scratch:
        return Run(
            RunOptions(
                repo=ROOT / "agentic-evals",
                behaviors=behaviors,
                cases=cases,
                runs_dir=tmp_path / "runs",
                scratch_root=scratch,
            ),
            PlainProgress(),
        ).execute()


def test_a_script_that_exits_non_zero_fails_although_the_prose_only_says_invoking(
    tmp_path: Path,
) -> None:
    good = _run(tmp_path / "good", BEHAVIORS / "follows-skill", (CASE,))
    bad = _run(tmp_path / "bad", BEHAVIORS / "broken", (CASE,))
    assert [r.status for r in good.results] == ["pass"]
    assert [r.status for r in bad.results] == ["fail"]
    entry = bad.results[0].assertions[0]
    # The prose alone ("a command invoking") would pass; the structured exit-code check decided.
    assert entry.decided_by == "checks" and entry.status == "fail"
    assert "exited with 2, expected 0" in entry.checks[0].detail
    attempt = json.loads(
        (bad.run_dir.path / f"case-artifacts/{CASE}/attempts/attempt-01/attempt.json").read_text()
    )
    assert attempt["assertions"][0]["decided_by"] == "checks"


def test_rejudging_keeps_isolation_violations_and_labels_unjudged_forbidden_entries(
    tmp_path: Path,
) -> None:
    cases = ("routing-add-column", "workflow-keeps-shipped-migrations")
    outcome = _run(tmp_path, BEHAVIORS / "broken", cases)
    run_dir = outcome.run_dir.path
    attempt_file = run_dir / "case-artifacts/routing-add-column/attempts/attempt-01/attempt.json"
    before = json.loads(attempt_file.read_text())
    assert before["isolation_report"]["violations"], "the broken agent reads outside"
    shipped = run_dir / "case-artifacts/workflow-keeps-shipped-migrations/attempts"
    judged_file = shipped / "attempt-01/attempt.json"
    judged_before = json.loads(judged_file.read_text())

    results = rejudge_run(run_dir)

    after = json.loads(attempt_file.read_text())
    assert after["isolation_report"] == before["isolation_report"]
    judged_after = json.loads(judged_file.read_text())
    assert judged_after["isolation_report"] == judged_before["isolation_report"]
    # The scratch clean-up removed the workspace; its snapshot in the run dir decides the entry
    # that needs it exactly as the run did, and the session-only entry comes out the same too.
    assert judged_after["assertions"] == judged_before["assertions"]
    assert judged_after["assertions"][0]["status"] == "fail"
    statuses = {r.case_id: r.status for r in results}
    assert statuses == {
        "routing-add-column": "blocked",
        "workflow-keeps-shipped-migrations": "fail",
    }
    # A case that was never judged still says which entries are forbidden.
    unjudged = next(r for r in results if r.case_id == "routing-add-column")
    polarities = [(a.polarity, a.decided_by) for a in unjudged.assertions]
    assert ("forbidden", None) in polarities
    report = (run_dir / "report.md").read_text()
    assert "forbidden `observed`: The shipped migration was modified." in report
