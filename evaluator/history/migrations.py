"""The history database's schema, as an ordered list of migrations.

The database's `PRAGMA user_version` is the number of migrations applied; opening a database
applies the missing ones in order, inside one `BEGIN IMMEDIATE` transaction, so two processes
that open an old (or absent) database at once migrate it exactly once. A migration is never
edited once released: a change is a new function appended to `MIGRATIONS`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import sqlite_utils

Migration = Callable[[sqlite_utils.Database], None]


def _runs_and_case_results(db: sqlite_utils.Database) -> None:
    db.table("runs").create(
        {
            "run_id": str,
            "target_id": str,
            "suite_ids": str,  # a JSON list
            "run_state": str,
            "started_at": str,
            "finished_at": str,
            "agent": str,
            "model": str,
            "behaviors_dir": str,
            "codex_version": str,
            "evaluator_version": str,
            "attempts_per_case": int,
            "skill_hash": str,
            "source_commit": str,
            "source_workspace": str,
            "candidate_skill": int,
            "cases": int,
            "passed": int,
            "failed": int,
            "blocked": int,
            "hard": float,
            "soft": float,
            "coverage": float,
            "run_dir": str,
            "recorded_at": str,
        },
        pk="run_id",
    )
    db.table("case_results").create(
        {
            "run_id": str,
            "case_id": str,
            "suite_id": str,
            "status": str,
            "blocked_reason": str,
            "attempts": int,
            "judged": int,
            "passed": int,
            "failed": int,
            "blocked": int,
            "pass_rate": float,
            "flaky": int,
        },
        pk=("run_id", "case_id"),
    )


def _attempts_timings_and_tokens(db: sqlite_utils.Database) -> None:
    db.table("attempts").create(
        {
            "run_id": str,
            "case_id": str,
            "attempt": int,
            "status": str,
            "blocked_reason": str,
            "reason": str,
            "valid": int,
            "interrupted": int,
            "retry_of": int,
            "isolation": str,
            "exit_code": int,
            "timed_out": int,
            "duration_s": float,
            "tokens_input": int,
            "tokens_cached_input": int,
            "tokens_cache_write_input": int,
            "tokens_output": int,
            "tokens_reasoning_output": int,
            "tokens_total": int,
            "thread_id": str,
        },
        pk=("run_id", "case_id", "attempt"),
    )
    db.table("case_results").add_column("duration_s", float)
    db.table("case_results").add_column("tokens_total", int)
    db.table("case_results").create_index(["case_id"])


def _agent_version(db: sqlite_utils.Database) -> None:
    """Every agent's version (`codex_version` stays, filled for the runs that had one)."""
    db.table("runs").add_column("agent_version", str)
    db.execute("UPDATE runs SET agent_version = codex_version WHERE agent_version IS NULL")


def _blame(db: sqlite_utils.Database) -> None:
    """Who caused each blocked case (`side:cause`, artifacts/attribution.py) and attempt
    (`blocked_by`): a skill's trend must tell the agent's blocks from the eval's."""
    db.table("case_results").add_column("blame", str)
    db.table("attempts").add_column("blocked_by", str)


def _definition_digest(db: sqlite_utils.Database) -> None:
    """Each case result's definition without its id (`definition_digest`), how a renamed case
    continues its history (renames.py). Rows recorded before are filled from their run
    directory's case result where it is still there and has one; the others stay unknown (and
    pair no rename): no row is dropped or changed otherwise."""
    db.table("case_results").add_column("definition_digest", str)
    rows = db.execute(
        "SELECT c.run_id, c.case_id, r.run_dir FROM case_results AS c"
        " JOIN runs AS r ON r.run_id = c.run_id WHERE r.run_dir IS NOT NULL"
    ).fetchall()
    for run_id, case_id, run_dir in rows:
        digest = _recorded_digest(Path(run_dir) / "case-results" / f"{case_id}.json")
        if digest is not None:
            db.execute(
                "UPDATE case_results SET definition_digest = ? WHERE run_id = ? AND case_id = ?",
                [digest, run_id, case_id],
            )


def _recorded_digest(path: Path) -> str | None:
    try:
        recorded = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None  # moved, deleted or unreadable: the row stays as it was
    digest = recorded.get("definition_digest") if isinstance(recorded, dict) else None
    return digest if isinstance(digest, str) and digest else None


MIGRATIONS: list[Migration] = [
    _runs_and_case_results,  # 1
    _attempts_timings_and_tokens,  # 2
    _agent_version,  # 3
    _blame,  # 4
    _definition_digest,  # 5
]
