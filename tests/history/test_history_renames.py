"""A renamed case continues its history (leftovers 11b): `compare` pairs a removed and an added
case whose definition, ids aside, is the same (`definition_digest`); on `main` `history` keyed
cases by id, so the renamed case started a new row and its trend was lost. Real runs of the
scripted model (Codex), the case renamed between them."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import sqlite_utils

from evaluator.cli.main import main
from evaluator.history.database import HISTORY_FILE, migrate, open_history, schema_version
from evaluator.history.migrations import MIGRATIONS
from evaluator.history.record import read_run_rows, record_run
from evaluator.history.renames import renamed_cases
from evaluator.history.trends import case_trends
from tests.cli.test_json_outputs import check_output
from tests.conftest import ROOT
from tests.support import codex_or_skip, scratch_dir

BEHAVIORS = ROOT / "agentic-evals/targets/db-migrations/behaviors/follows-skill"
CASE_FILE = "targets/db-migrations/cases/routing/routing-add-column.yaml"
OLD, NEW = "routing-add-column", "routing-new-column"
# The schema `main` wrote before this change (a released migration is never edited).
MAIN_MIGRATIONS = 4


@dataclass
class RenamedRuns:
    runs: Path  # "first" ran OLD, "second" ran the same case renamed NEW; both recorded
    first: Path
    second: Path


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as info:
        main(list(args))
    captured = capsys.readouterr()
    return int(info.value.code or 0), captured.out, captured.err


def run_case(repo: Path, runs: Path, run_id: str, case: str, scratch: Path) -> None:
    with pytest.raises(SystemExit) as info:
        main(
            [
                "run",
                "--repo",
                str(repo),
                "--source-workspace",
                str(ROOT),
                "--behaviors",
                str(BEHAVIORS),
                "--case",
                case,
                "--runs-dir",
                str(runs),
                "--run-id",
                run_id,
                "--scratch-root",
                str(scratch),
            ]
        )
    assert info.value.code in (0, None)


@pytest.fixture(scope="module")
def renamed_runs(tmp_path_factory: pytest.TempPathFactory) -> RenamedRuns:
    codex_or_skip()
    base = tmp_path_factory.mktemp("renamed")
    repo, runs = base / "evals", base / "runs"
    shutil.copytree(ROOT / "agentic-evals", repo)
    with scratch_dir() as scratch:
        run_case(repo, runs, "first", OLD, scratch)
        case_file = repo / CASE_FILE
        case_file.write_text(case_file.read_text().replace(f'"{OLD}"', f'"{NEW}"', 1))
        run_case(repo, runs, "second", NEW, scratch)
    return RenamedRuns(runs, runs / "first", runs / "second")


@pytest.mark.codex
def test_a_renamed_case_continues_its_history(
    renamed_runs: RenamedRuns, capsys: pytest.CaptureFixture[str]
) -> None:
    """One row under the new id, naming the old one, with both runs (on `main`: two rows,
    each one run)."""
    digests = {
        json.loads((run / "case-results" / f"{case}.json").read_text())["definition_digest"]
        for run, case in ((renamed_runs.first, OLD), (renamed_runs.second, NEW))
    }
    assert len(digests) == 1  # the same definition, ids aside
    code, out, _ = cli(capsys, "history", "--runs-dir", str(renamed_runs.runs), "--json")
    assert code == 0
    (trend,) = check_output("history", out)  # the published output schema holds
    assert (trend["case_id"], trend["renamed_from"], trend["runs"]) == (NEW, [OLD], 2)
    assert [(p["run_id"], p["case_id"]) for p in trend["trend"]] == [
        ("first", OLD),
        ("second", NEW),
    ]
    assert trend["passed"] == 2 and trend["attempts"] == 2
    for case in (NEW, OLD):  # --case finds it by either id
        code, out, _ = cli(capsys, "history", "--runs-dir", str(renamed_runs.runs), "--case", case)
        assert code == 0 and f"{NEW} (renamed from {OLD})" in out.splitlines()[1], out


@pytest.mark.codex
def test_a_history_written_before_the_change_follows_the_rename(
    renamed_runs: RenamedRuns, tmp_path: Path
) -> None:
    """A history.db `main` wrote (its four migrations, its rows: no `definition_digest`) is
    migrated in place on open, every row kept; its rows get their digest from their run's
    case result, so the next run continues the renamed case."""
    db_path = tmp_path / HISTORY_FILE
    rows = read_run_rows(renamed_runs.first)
    with sqlite_utils.Database(db_path) as db:
        migrate(db, MIGRATIONS[:MAIN_MIGRATIONS])
        columns = set(db.table("case_results").columns_dict)
        assert "definition_digest" not in columns
        db.table("runs").insert(rows.run)
        db.table("case_results").insert_all(
            {k: v for k, v in case.items() if k in columns} for case in rows.cases
        )
        db.table("attempts").insert_all(rows.attempts)
        before = {t: db.table(t).count for t in ("runs", "case_results", "attempts")}
    with open_history(db_path) as db:
        assert schema_version(db) == len(MIGRATIONS)
        assert {t: db.table(t).count for t in before} == before
        (row,) = db.query("SELECT case_id, definition_digest FROM case_results")
        assert row["case_id"] == OLD and row["definition_digest"], row
        record_run(db, renamed_runs.second)
        (trend,) = case_trends(db)
        assert (trend.case_id, trend.renamed_from, trend.runs) == (NEW, [OLD], 2)
        assert db.table("case_results").count == 2 and db.table("runs").count == 2


def _row(run: str, case: str, digest: str | None, target: str = "t") -> dict[str, Any]:
    return {
        "target_id": target,
        "case_id": case,
        "run_id": run,
        "started_at": f"2026-11-30T0{run[-1]}:00:00+00:00",
        "definition_digest": digest,
    }


def test_renames_that_cannot_be_told_apart_pair_nothing() -> None:
    """As `compare`: two cases of one definition, gone or new at once, name no rename; nor do
    ids that ran side by side, another target's case, or rows without a digest."""
    # a and b (one definition) both gone, c new: which one was renamed is not known.
    assert renamed_cases([_row("r1", "a", "D"), _row("r1", "b", "D"), _row("r2", "c", "D")]) == {}
    # a gone, b and c new with its definition: the same.
    assert renamed_cases([_row("r1", "a", "D"), _row("r2", "b", "D"), _row("r2", "c", "D")]) == {}
    # a still ran when b came: a copy, not a rename.
    assert renamed_cases([_row("r1", "a", "D"), _row("r2", "a", "D"), _row("r2", "b", "D")]) == {}
    assert renamed_cases([_row("r1", "a", "D", "t1"), _row("r2", "b", "D", "t2")]) == {}
    assert renamed_cases([_row("r1", "a", None), _row("r2", "b", None)]) == {}
    # The look-alikes that are renames: one, and one renamed twice (edited between).
    assert renamed_cases([_row("r1", "a", "D"), _row("r2", "b", "D")]) == {("t", "a"): "b"}
    chain = [_row("r1", "a", "D"), _row("r2", "b", "D"), _row("r3", "b", "E")]
    chain.append(_row("r4", "c", "E"))
    assert renamed_cases(chain) == {("t", "a"): "c", ("t", "b"): "c"}
