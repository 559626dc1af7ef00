"""Writing finished runs into the history: one transaction per run, replacing whatever an earlier
recording of the same run id left (a resumed or re-judged run), so recording is idempotent."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import sqlite_utils

from evaluator.artifacts.attribution import score_case, score_run
from evaluator.artifacts.models import UNFINISHED_STATES, AttemptRecord, CaseResult, Manifest
from evaluator.artifacts.rundir import RunDir, unfinished_why
from evaluator.errors import InputError
from evaluator.history.database import HistoryError

TOKEN_KINDS = ("input", "cached_input", "cache_write_input", "output", "reasoning_output", "total")


@dataclass
class RunRows:
    run: dict[str, Any]
    cases: list[dict[str, Any]]
    attempts: list[dict[str, Any]]


def read_run_rows(path: Path) -> RunRows:
    """The rows of one finished run directory, read through the artifact models."""
    run_dir = RunDir(path)
    manifest = run_dir.read_manifest()
    if manifest.run_state in UNFINISHED_STATES:
        raise InputError(
            f"the run is {unfinished_why(path, manifest.run_id, manifest.run_state)};"
            " it is recorded when it finishes",
            path=run_dir.manifest_path,
            field="run_state",
        )
    results = run_dir.read_case_results(manifest.resolved_case_ids or None)
    cases, attempts = [], []
    for result in results:
        records = result.attempts or run_dir.attempt_records(result.case_id)
        rows = [_attempt_row(manifest.run_id, result.case_id, r) for r in records]
        cases.append(_case_row(manifest.run_id, result, rows))
        attempts += rows
    return RunRows(_run_row(manifest, results, path), cases, attempts)


def _run_row(manifest: Manifest, results: list[CaseResult], path: Path) -> dict[str, Any]:
    score = score_run(results, len(manifest.resolved_case_ids) or len(results))
    scored = not score.outage
    return {
        "run_id": manifest.run_id,
        "target_id": manifest.target_id,
        "suite_ids": json.dumps(manifest.suite_ids),
        "run_state": manifest.run_state,
        "started_at": manifest.started_at,
        "finished_at": manifest.finished_at,
        "agent": manifest.agent,
        "model": manifest.model,
        "behaviors_dir": manifest.behaviors_dir,
        "codex_version": manifest.codex_version,
        "agent_version": manifest.agent_version or manifest.codex_version,
        "evaluator_version": manifest.evaluator_version,
        "attempts_per_case": manifest.attempts,
        "skill_hash": manifest.skill_hash,
        "source_commit": manifest.source_commit,
        "source_workspace": manifest.source_workspace,
        "candidate_skill": int(manifest.candidate_skill is not None),
        "cases": len(results),
        "passed": sum(1 for r in results if r.status == "pass"),
        "failed": sum(1 for r in results if r.status == "fail"),
        "blocked": sum(1 for r in results if r.status == "blocked"),
        "hard": score.hard if scored else None,
        "soft": score.soft if scored else None,
        "coverage": score.coverage,
        "run_dir": str(path.resolve()),
        "recorded_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }


def _case_row(run_id: str, result: CaseResult, attempts: list[dict[str, Any]]) -> dict[str, Any]:
    counted = [a for a in attempts if not a["interrupted"]]
    stats = result.stats
    durations = [a["duration_s"] for a in counted if a["duration_s"] is not None]
    tokens = [a["tokens_total"] for a in counted if a["tokens_total"] is not None]
    return {
        "run_id": run_id,
        "case_id": result.case_id,
        "suite_id": result.suite_id,
        "status": result.status,
        "blocked_reason": result.blocked_reason,
        "blame": _blame(result),
        "definition_digest": result.definition_digest,
        # Another evaluator's result has no stats: its status stands for one attempt.
        "attempts": stats.attempts if stats else 1,
        "judged": stats.judged if stats else int(result.status != "blocked"),
        "passed": stats.passed if stats else int(result.status == "pass"),
        "failed": stats.failed if stats else int(result.status == "fail"),
        "blocked": stats.blocked if stats else int(result.status == "blocked"),
        "pass_rate": stats.pass_rate if stats else None,
        "flaky": int(stats.flaky) if stats else 0,
        "duration_s": sum(durations) if durations else None,
        "tokens_total": sum(tokens) if tokens else None,
    }


def _blame(result: CaseResult) -> str | None:
    blame = score_case(result).blame
    return f"{blame.side}:{blame.cause}" if blame is not None else None


def _attempt_row(run_id: str, case_id: str, record: AttemptRecord) -> dict[str, Any]:
    tokens = record.tokens or {}
    return {
        "run_id": run_id,
        "case_id": case_id,
        "attempt": record.attempt,
        "status": record.status,
        "blocked_reason": record.blocked_reason,
        "blocked_by": record.blocked_by,
        "reason": record.reason,
        "valid": int(record.valid),
        "interrupted": int(record.interrupted),
        "retry_of": record.retry_of,
        "isolation": record.isolation,
        "exit_code": record.exit_code,
        "timed_out": int(record.timed_out),
        "duration_s": record.duration_s,
        **{f"tokens_{kind}": tokens.get(kind) for kind in TOKEN_KINDS},
        "thread_id": record.thread_id,
    }


def record_run(db: sqlite_utils.Database, path: Path) -> str:
    """Records the finished run at `path` in one transaction; returns its run id."""
    rows = read_run_rows(path)
    run_id = str(rows.run["run_id"])
    try:
        db.execute("BEGIN IMMEDIATE")
        try:
            db.table("runs").upsert(rows.run, pk="run_id")
            # The run's earlier rows go: a resumed run re-ran cases, a re-judged one changed
            # verdicts.
            for table in ("case_results", "attempts"):
                db.execute(f"DELETE FROM {table} WHERE run_id = ?", [run_id])
            db.table("case_results").insert_all(rows.cases, pk=("run_id", "case_id"))
            db.table("attempts").insert_all(rows.attempts, pk=("run_id", "case_id", "attempt"))
            db.execute("COMMIT")
        except BaseException:
            db.rollback()
            raise
    except sqlite3.Error as exc:
        where = db.execute("PRAGMA database_list").fetchone()[2]
        raise HistoryError(f"{where}: cannot record run {run_id}: {exc}") from None
    return run_id


@dataclass
class ImportReport:
    recorded: list[str] = field(default_factory=list)
    skipped: list[tuple[Path, str]] = field(default_factory=list)


def run_dirs(path: Path) -> tuple[Path, list[Path]]:
    """The runs root and the run directories under `path`: a run directory itself (its parent
    is the root) or a directory of them."""
    if (path / RunDir.manifest_name).is_file():
        return path.parent, [path]
    if not path.is_dir():
        raise InputError("not a directory of runs", path=path)
    children = sorted(p for p in path.iterdir() if p.is_dir() and not p.name.startswith("."))
    if not any((p / RunDir.manifest_name).is_file() for p in children):
        # No database is created where there is nothing to record (a typo, a case-results/).
        raise InputError("neither a run directory nor a directory of runs", path=path)
    return path, children


def import_runs(db: sqlite_utils.Database, paths: list[Path]) -> ImportReport:
    """Backfills each run directory, skipping (with the reason) those that cannot be read."""
    report = ImportReport()
    for path in paths:
        try:
            report.recorded.append(record_run(db, path))
        except InputError as exc:
            report.skipped.append((path, str(exc) if exc.path else f"{path}: {exc.message}"))
        except (OSError, ValueError) as exc:
            report.skipped.append((path, f"{path}: unreadable: {exc}"))
    return report
