"""Opening `<runs root>/history.db`: created on first use, migrated to the current schema, in WAL
mode with a busy timeout so that runs finishing at once queue for the write lock instead of
failing."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import sqlite_utils

from evaluator.errors import EnvironmentProblem, InputError
from evaluator.history.migrations import MIGRATIONS, Migration

HISTORY_FILE = "history.db"
# Writers hold the lock for one run's rows (milliseconds); a long wait means a stuck holder.
BUSY_TIMEOUT_S = 60.0


class HistoryError(EnvironmentProblem):
    """The history database cannot be opened, migrated or written."""


def history_path(runs_root: Path) -> Path:
    return runs_root / HISTORY_FILE


def schema_version(db: sqlite_utils.Database) -> int:
    return int(db.execute("PRAGMA user_version").fetchone()[0])


def open_history(path: Path, *, create: bool = True) -> sqlite_utils.Database:
    """The database at `path`, migrated to the current schema. Without `create` a missing file
    is an error rather than an empty history."""
    if not create and not path.is_file():
        raise InputError(
            "no run history here yet (runs record themselves when they finish;"
            " `agentic-eval history import RUNS_DIR` backfills)",
            path=path,
        )
    try:
        if create:
            path.parent.mkdir(parents=True, exist_ok=True)
            # Private like every run artifact (it holds paths and reasons); sqlite gives its
            # -wal and -shm files the same mode.
            os.close(os.open(path, os.O_CREAT | os.O_RDWR, 0o600))
        conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_S)
    except (OSError, sqlite3.Error) as exc:
        raise HistoryError(f"{path}: cannot open the run history: {exc}") from None
    db = sqlite_utils.Database(conn)
    try:
        migrate(db)
        db.enable_wal()
    except sqlite3.Error as exc:
        db.close()
        raise HistoryError(f"{path}: cannot open the run history: {exc}") from None
    except HistoryError as exc:
        db.close()
        raise HistoryError(f"{path}: {exc}") from None
    return db


def migrate(db: sqlite_utils.Database, migrations: list[Migration] | None = None) -> None:
    """Applies the migrations the database lacks, all in one immediate transaction (the version
    is read again under the write lock: another process may have migrated meanwhile)."""
    steps = MIGRATIONS if migrations is None else migrations
    if schema_version(db) == len(steps):
        return
    db.execute("BEGIN IMMEDIATE")
    try:
        version = schema_version(db)
        if version > len(steps):
            raise HistoryError(
                f"schema version {version} is newer than this agentic-eval knows ({len(steps)});"
                " upgrade agentic-eval"
            )
        for step in steps[version:]:
            step(db)
        db.execute(f"PRAGMA user_version = {len(steps)}")
        db.execute("COMMIT")
    except BaseException:
        db.rollback()
        raise
