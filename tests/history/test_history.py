"""The run history with real demo runs: three real codex runs (good behaviours, broken ones, and
a skill edit whose agent passes its first attempt and fails its second) recorded by `run` and
`score` as they finish, then imported, migrated, raced and shown."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import sqlite_utils
import yaml

from evaluator.artifacts.models import CaseResult, Manifest
from evaluator.cli.main import main
from evaluator.history.database import HISTORY_FILE, migrate, open_history, schema_version
from evaluator.history.migrations import MIGRATIONS
from evaluator.history.record import read_run_rows, record_run
from tests.conftest import ROOT
from tests.support import codex_or_skip, scratch_dir

pytestmark = pytest.mark.codex
BEHAVIORS = ROOT / "agentic-evals/targets/db-migrations/behaviors"
SKILL = ROOT / ".agents/skills/db-migrations/SKILL.md"
CASES = ["--case", "routing-add-column", "--case", "workflow-keeps-shipped-migrations"]
AGENT_OPTIONS = ["--workers", "3"]


@dataclass
class DemoRuns:
    root: Path  # good (recorded by `run`) and flaky (recorded by `score`), finished together
    broken: Path  # a run whose runs root's history cannot be opened
    broken_code: int
    broken_stderr: str


def flaky_behaviors(directory: Path) -> Path:
    """routing-add-column played right in attempt-01 and routed wrong in any later attempt: the
    agent branches on its working directory's last name, the attempt's number
    (`workspace/naming.py`)."""
    good = yaml.safe_load((BEHAVIORS / "follows-skill/routing-add-column.yaml").read_text())
    wrong = yaml.safe_load(
        (BEHAVIORS / "golden/routing-add-column/routes-to-rename.yaml").read_text()
    )
    behavior = {
        "name": "flaky/routing-add-column",
        "match": good["match"],
        "steps": [
            # A marker of its own: Codex's tool output also says `Wall time: 0.0101 seconds`, in
            # which a bare "01" is found now and then (a CI run found it in attempt-02's).
            {"cmd": "pwd | sed 's#.*/#attempt-#'"},
            {
                "when": {"output_contains": "attempt-01"},
                "then": good["steps"],
                "else": wrong["steps"],
            },
            {"final": "never played: both branches end with their own final"},
        ],
    }
    directory.mkdir(parents=True)
    (directory / "routing-add-column.yaml").write_text(yaml.safe_dump(behavior))
    return directory


def agentic_eval(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "evaluator", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.fixture(scope="module")
def demo_runs(tmp_path_factory: pytest.TempPathFactory) -> DemoRuns:
    codex_or_skip()
    base = tmp_path_factory.mktemp("history")
    root, other = base / "runs", base / "other-runs"
    (other / HISTORY_FILE).mkdir(parents=True)  # a directory: the history cannot be opened
    edited = base / "SKILL.edited.md"
    edited.write_text(SKILL.read_text() + "\nKeep answers short.\n")
    with scratch_dir() as scratch:
        common = [*AGENT_OPTIONS, "--scratch-root", str(scratch)]
        processes = [
            agentic_eval(
                "run",
                "--behaviors",
                str(BEHAVIORS / "follows-skill"),
                *CASES,
                "--runs-dir",
                str(root),
                "--run-id",
                "good",
                *common,
            ),
            agentic_eval(
                "score",
                "--behaviors",
                str(flaky_behaviors(base / "flaky")),
                "--case",
                "routing-add-column",
                "--attempts",
                "2",
                "--skill",
                str(edited),
                "--runs-dir",
                str(root),
                "--run-id",
                "flaky",
                *common,
            ),
            agentic_eval(
                "run",
                "--behaviors",
                str(BEHAVIORS / "broken"),
                *CASES,
                "--runs-dir",
                str(other),
                "--run-id",
                "broken",
                *common,
            ),
        ]
        outputs = [p.communicate(timeout=240) for p in processes]
    codes = [p.returncode for p in processes]
    assert codes[:2] == [0, 1], outputs[:2]  # good passes; the flaky skill scores FAIL
    return DemoRuns(root, other / "broken", codes[2], outputs[2][1])


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as info:
        main(list(args))
    captured = capsys.readouterr()
    return int(info.value.code or 0), captured.out, captured.err


def copy_runs(demo: DemoRuns, destination: Path) -> Path:
    destination.mkdir()
    for run in (demo.root / "good", demo.root / "flaky", demo.broken):
        shutil.copytree(run, destination / run.name)
    return destination


def table(db_path: Path, sql: str) -> list[dict[str, Any]]:
    with sqlite_utils.Database(db_path) as db:
        return list(db.query(sql))


def test_runs_finishing_together_both_land_with_hashes_commits_timings_and_tokens(
    demo_runs: DemoRuns,
) -> None:
    db_path = demo_runs.root / HISTORY_FILE
    assert db_path.stat().st_mode & 0o777 == 0o600
    runs = {r["run_id"]: r for r in table(db_path, "SELECT * FROM runs")}
    assert set(runs) == {"good", "flaky"}
    for run_id, run in runs.items():
        manifest = Manifest.model_validate_json(
            (demo_runs.root / run_id / "manifest.json").read_text()
        )
        assert manifest.skill_hash and run["skill_hash"] == manifest.skill_hash
        assert run["run_state"] == "completed"
    # The candidate skill text is what was evaluated: another hash than the source's skill.
    assert runs["good"]["skill_hash"] != runs["flaky"]["skill_hash"]
    assert runs["flaky"]["candidate_skill"] == 1 and runs["good"]["candidate_skill"] == 0
    head = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True
    )
    if head.returncode == 0:
        assert runs["good"]["source_commit"] == head.stdout.strip()
    assert (runs["good"]["passed"], runs["good"]["hard"]) == (2, 1.0)
    cases = table(db_path, "SELECT * FROM case_results WHERE run_id = 'flaky'")
    assert [(c["status"], c["passed"], c["failed"], c["flaky"]) for c in cases] == [
        ("fail", 1, 1, 1)
    ]
    attempts = table(
        db_path,
        "SELECT * FROM attempts WHERE run_id = 'flaky' ORDER BY attempt",
    )
    assert [(a["attempt"], a["status"], a["isolation"]) for a in attempts] == [
        (1, "pass", "contained"),
        (2, "fail", "contained"),
    ]
    for attempt in attempts:
        assert isinstance(attempt["duration_s"], float) and attempt["duration_s"] > 0
        assert isinstance(attempt["tokens_total"], int) and attempt["tokens_total"] > 0
    assert cases[0]["tokens_total"] == sum(a["tokens_total"] for a in attempts)
    with sqlite_utils.Database(db_path) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert schema_version(db) == len(MIGRATIONS)


def test_a_history_that_cannot_be_written_changes_no_verdict(demo_runs: DemoRuns) -> None:
    assert demo_runs.broken_code == 1
    warnings = [line for line in demo_runs.broken_stderr.splitlines() if "run history" in line]
    assert len(warnings) == 1 and warnings[0].startswith(
        "agentic-eval: warning: run broken not recorded in the run history"
    )
    statuses = {
        p.stem: CaseResult.model_validate_json(p.read_text()).status
        for p in (demo_runs.broken / "case-results").glob("*.json")
    }
    # Reads outside the workspace (retried, still outside) and edits a shipped migration.
    assert statuses == {
        "routing-add-column": "blocked",
        "workflow-keeps-shipped-migrations": "fail",
    }


def test_import_backfills_idempotently_and_skips_what_it_cannot_read(
    demo_runs: DemoRuns, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = copy_runs(demo_runs, tmp_path / "runs")
    (root / "not-a-run").mkdir()
    shutil.copytree(root / "good", root / "bad-result")
    manifest = Manifest.model_validate_json((root / "bad-result/manifest.json").read_text())
    (root / "bad-result/manifest.json").write_text(
        manifest.model_copy(update={"run_id": "bad-result"}).model_dump_json()
    )
    (root / "bad-result/case-results/routing-add-column.json").write_text('{"status": 3}')
    shutil.copytree(root / "good", root / "still-running")
    (root / "still-running/manifest.json").write_text(
        manifest.model_copy(
            update={"run_id": "still-running", "run_state": "running"}
        ).model_dump_json()
    )
    code, out, _ = cli(capsys, "history", "import", str(root))
    lines = out.splitlines()
    assert code == 0 and lines[-1] == f"recorded 3 run(s) in {root / HISTORY_FILE}"
    skipped = lines[:-1]
    assert len(skipped) == 3 and all(line.startswith("skipped ") for line in skipped)
    assert any(f"{root / 'not-a-run'}: not a run directory" in line for line in skipped)
    assert any("bad-result/case-results/routing-add-column.json" in line for line in skipped)
    assert any(
        "still-running/manifest.json: run_state: the run is interrupted (running" in line
        for line in skipped
    )

    def snapshot() -> list[list[dict[str, Any]]]:
        return [
            table(root / HISTORY_FILE, f"SELECT * FROM {name} ORDER BY 1, 2, 3")
            for name in ("case_results", "attempts")
        ] + [table(root / HISTORY_FILE, "SELECT run_id, hard, skill_hash FROM runs ORDER BY 1")]

    first = snapshot()
    assert [r["run_id"] for r in first[2]] == ["broken", "flaky", "good"]
    assert len(first[1]) == 2 + 2 + 3  # broken's violating attempt was retried once
    code, out, _ = cli(capsys, "history", "import", str(root / "good"), "--json")
    assert code == 0 and json.loads(out)["recorded"] == ["good"]
    assert snapshot() == first

    # A re-recorded run (resumed, re-judged) replaces its rows: no duplicate, the new verdict.
    path = root / "good/case-results/routing-add-column.json"
    result = CaseResult.model_validate_json(path.read_text())
    path.write_text(result.model_copy(update={"status": "fail"}).model_dump_json())
    with open_history(root / HISTORY_FILE) as db:
        record_run(db, root / "good")
    rows = table(root / HISTORY_FILE, "SELECT status FROM case_results WHERE run_id = 'good'")
    assert sorted(r["status"] for r in rows) == ["fail", "pass"]


def test_history_shows_trends_and_flags_the_flaky_case(
    demo_runs: DemoRuns,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    root = copy_runs(demo_runs, tmp_path / "runs")
    assert cli(capsys, "history", "import", str(root))[0] == 0
    code, out, _ = cli(capsys, "history", "--runs-dir", str(root), "--json")
    trends = json.loads(out)
    assert code == 0
    summary = {
        (t["case_id"], Path(t["behaviors_dir"]).name): (
            t["runs"],
            t["passed"],
            t["failed"],
            t["flaky"],
            "".join(p["status"][0] for p in t["trend"]),
        )
        for t in trends
    }
    assert summary == {
        ("routing-add-column", "follows-skill"): (1, 1, 0, False, "p"),
        ("routing-add-column", "broken"): (1, 0, 0, False, "b"),
        ("routing-add-column", "flaky"): (1, 1, 1, True, "f"),
        ("workflow-keeps-shipped-migrations", "follows-skill"): (1, 1, 0, False, "p"),
        ("workflow-keeps-shipped-migrations", "broken"): (1, 0, 1, False, "f"),
    }
    code, out, _ = cli(capsys, "history", "--runs-dir", str(root), "--case", "routing-add-column")
    lines = out.splitlines()
    assert code == 0 and lines[0].split()[:4] == ["case", "skill", "pass", "rate"]
    flaky = [line for line in lines if "FLAKY" in line]
    assert len(flaky) == 1 and "1/2 0.50" in flaky[0] and " flaky " in flaky[0]
    assert all("workflow" not in line for line in lines) and "\x1b[" not in out
    code, out, _ = cli(capsys, "history", "--runs-dir", str(root), "--target", "nope")
    assert (code, out) == (0, "no recorded results match\n")
    # On a terminal: rich's table, in colour, the flaky flag among the columns kept first.
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    code, out, _ = cli(capsys, "history", "--runs-dir", str(root), "--case", "routing-add-column")
    assert code == 0 and "\x1b[" in out and out.count("FLAKY") == 1


def test_history_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = cli(capsys, "history", "--runs-dir", str(tmp_path))
    assert code == 2 and err.startswith(f"agentic-eval: {tmp_path / HISTORY_FILE}: no run history")
    (tmp_path / HISTORY_FILE).write_text("not a database, just text " * 100)
    code, _, err = cli(capsys, "history", "--runs-dir", str(tmp_path))
    assert code == 3 and len(err.splitlines()) == 1 and "file is not a database" in err
    (tmp_path / HISTORY_FILE).unlink()
    with sqlite3.connect(tmp_path / HISTORY_FILE) as conn:
        conn.execute("PRAGMA user_version = 99")
    code, _, err = cli(capsys, "history", "--runs-dir", str(tmp_path))
    assert code == 3 and "schema version 99 is newer than this agentic-eval knows" in err
    empty = tmp_path / "no-runs-here"
    (empty / "case-results").mkdir(parents=True)
    code, _, err = cli(capsys, "history", "import", str(empty))
    assert code == 2 and "neither a run directory nor a directory of runs" in err
    assert not (empty / HISTORY_FILE).exists() and not (tmp_path / "no-runs-here.db").exists()


def test_an_older_database_is_migrated_keeping_its_rows(
    demo_runs: DemoRuns, tmp_path: Path
) -> None:
    db_path = tmp_path / HISTORY_FILE
    rows = read_run_rows(demo_runs.root / "flaky")
    with sqlite_utils.Database(db_path) as db:
        migrate(db, MIGRATIONS[:1])  # what the first released agentic-eval created
        assert schema_version(db) == 1 and "attempts" not in db.table_names()
        v1_runs = set(db.table("runs").columns_dict)
        db.table("runs").insert({k: v for k, v in rows.run.items() if k in v1_runs})
        v1_columns = set(db.table("case_results").columns_dict)
        db.table("case_results").insert_all(
            {k: v for k, v in case.items() if k in v1_columns} for case in rows.cases
        )
    with open_history(db_path) as db:
        assert schema_version(db) == len(MIGRATIONS)
        assert [r["case_id"] for r in db.query("SELECT * FROM case_results")] == [
            "routing-add-column"
        ]
        assert db.table("attempts").count == 0
        (old,) = db.query("SELECT agent_version, codex_version FROM runs")
        assert old["agent_version"] == old["codex_version"]  # migration 3 fills it
        record_run(db, demo_runs.root / "flaky")
        assert db.table("attempts").count == 2 and db.table("case_results").count == 1
    with open_history(db_path) as db:  # a current database is left alone
        assert schema_version(db) == len(MIGRATIONS)


def test_concurrent_imports_all_land(demo_runs: DemoRuns, tmp_path: Path) -> None:
    """Three processes race on an absent database, creating, migrating and writing it at once:
    two record one run each, the third records every run (the same rows as the other two)."""
    root = copy_runs(demo_runs, tmp_path / "runs")
    targets = [root / "good", root / "flaky", root]
    processes = [agentic_eval("history", "import", str(t)) for t in targets]
    outputs = [p.communicate(timeout=120) for p in processes]
    assert [p.returncode for p in processes] == [0, 0, 0], outputs
    with sqlite_utils.Database(root / HISTORY_FILE) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert schema_version(db) == len(MIGRATIONS)
        assert sorted(r["run_id"] for r in db.query("SELECT run_id FROM runs")) == [
            "broken",
            "flaky",
            "good",
        ]
        assert db.table("case_results").count == 5 and db.table("attempts").count == 7
