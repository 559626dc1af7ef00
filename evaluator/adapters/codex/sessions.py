"""The Codex session store: `state_5.sqlite` first, a bounded scan of rollout first lines second.

The database is opened read-only through a `mode=ro` URI so a run still writing its WAL is never
disturbed. Codex older than 0.117 has no `thread_spawn_edges`; a missing, locked or corrupt
database falls back to the scan, which reads only first lines, newest first, inside the window.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from evaluator.adapters.codex.rollout import first_line
from evaluator.sessions.base import (
    WINDOW_SLACK,
    ChildQuery,
    LocateResult,
    SessionRef,
    SessionStore,
    accept_child,
    parse_time,
    walk_descendants,
)

STATE_DB = "state_5.sqlite"
MAX_DESCENDANTS = 1000


def _spawn_info(meta: dict[str, Any]) -> tuple[str | None, str | None]:
    source = meta.get("source")
    spawn = source.get("subagent") if isinstance(source, dict) else None
    thread_spawn = spawn.get("thread_spawn") if isinstance(spawn, dict) else None
    parent = meta.get("parent_thread_id") or (thread_spawn or {}).get("parent_thread_id")
    nickname = meta.get("agent_nickname") or (thread_spawn or {}).get("agent_nickname")
    return parent, nickname


class CodexSessionStore(SessionStore):
    name = "codex"

    def __init__(self, home: Path) -> None:
        self.home = home
        sqlite_home = os.environ.get("CODEX_SQLITE_HOME")
        self.db_path = (Path(sqlite_home) if sqlite_home else home) / STATE_DB
        self.scanned_files = 0  # how many first lines a fallback scan read (for benchmarks)
        self._held: sqlite3.Connection | None = None  # open while `held`
        self._holding = False

    # ------------------------------------------------------------------ sqlite
    @contextmanager
    def held(self) -> Iterator[CodexSessionStore]:
        self._holding = True
        try:
            yield self
        finally:
            self._holding = False
            if self._held is not None:
                self._held.close()
                self._held = None

    def _db(self) -> sqlite3.Connection | None:
        # The standard library's connection, not sqlite-utils': that library imports numpy,
        # click and its plugins (about 100 ms, once per process, in an attempt) and wraps every
        # query in a savepoint, which these read-only SELECTs do not need.
        if self._held is not None:
            return self._held
        if not self.db_path.is_file():
            return None
        try:
            conn = sqlite3.connect(f"file:{self.db_path}?mode=ro", uri=True, timeout=2.0)
            conn.execute("SELECT 1 FROM sqlite_master LIMIT 1")
        except sqlite3.Error:
            return None
        if self._holding:
            self._held = conn
        return conn

    def _query(self, sql: str, params: tuple[Any, ...]) -> list[dict[str, Any]] | None:
        db = self._db()
        if db is None:
            return None
        try:
            cursor = db.execute(sql, params)
            names = [column[0] for column in cursor.description]
            return [dict(zip(names, row, strict=True)) for row in cursor]
        except sqlite3.Error:
            self._held = None  # closed below: the next query opens it anew
            return None
        finally:
            if db is not self._held:
                db.close()

    # ------------------------------------------------------------------ files
    def _rollouts_newest_first(
        self, since: datetime | None = None, until: datetime | None = None
    ) -> list[Path]:
        root = self.home / "sessions"
        if since is None:
            files = list(root.rglob("rollout-*.jsonl"))
        else:
            # Date directories use local time: a day either side covers every timezone.
            last = (until or datetime.now(timezone.utc)) + timedelta(days=1)
            day = since - timedelta(days=1)
            files = []
            while day.date() <= last.date():
                files.extend((root / day.strftime("%Y/%m/%d")).glob("rollout-*.jsonl"))
                day += timedelta(days=1)
        # Names carry local time and thread ids are UUIDv7: both sort by creation time.
        files.sort(key=lambda p: p.name, reverse=True)
        return files

    def _by_filename(self, thread_id: str) -> list[Path]:
        return sorted((self.home / "sessions").rglob(f"rollout-*-{thread_id}.jsonl"))

    # ------------------------------------------------------------------ interface
    def locate_thread(self, thread_id: str) -> LocateResult:
        rows = self._query("SELECT id, rollout_path FROM threads WHERE id = ?", (thread_id,))
        if rows:
            path = Path(rows[0]["rollout_path"])
            if path.is_file():
                return LocateResult("found", [SessionRef(thread_id, path)], method="sqlite")
        matches = self._by_filename(thread_id)
        if len(matches) == 1:
            reason = "" if rows is None else "sqlite row missing or stale; found by file name"
            return LocateResult("found", [SessionRef(thread_id, matches[0])], reason, "filename")
        if len(matches) > 1:
            refs = [SessionRef(thread_id, p) for p in matches]
            return LocateResult(
                "ambiguous", refs, f"{len(matches)} files for thread {thread_id}", "filename"
            )
        return LocateResult("not-found", [], f"no session file for thread {thread_id}", "filename")

    def locate_child(self, query: ChildQuery) -> LocateResult:
        candidates, method = self._children_from_sqlite(query.parent_thread_id)
        if candidates is None:
            candidates, method = self._children_from_scan(query), "scan"
        return accept_child(candidates, query, method)

    def descendants(self, thread_id: str) -> list[SessionRef]:
        """Breadth-first through `thread_spawn_edges`, or the first-line scan without them."""
        return walk_descendants(thread_id, self._children, MAX_DESCENDANTS)

    def _children(self, parent: str) -> list[SessionRef]:
        children, _ = self._children_from_sqlite(parent)
        if children is None:
            children = self._children_from_scan(ChildQuery(parent))
        return children

    def _children_from_sqlite(self, parent: str) -> tuple[list[SessionRef] | None, str]:
        rows = self._query(
            "SELECT e.child_thread_id AS id, t.rollout_path, t.agent_nickname, t.created_at_ms"
            " FROM thread_spawn_edges e LEFT JOIN threads t ON t.id = e.child_thread_id"
            " WHERE e.parent_thread_id = ?",
            (parent,),
        )
        if rows is None:
            return None, "scan"
        refs = []
        for row in rows:
            path = Path(row["rollout_path"]) if row.get("rollout_path") else None
            if path is None or not path.is_file():
                found = self._by_filename(row["id"])
                path = found[0] if len(found) == 1 else None
            if path is None:
                continue
            meta = first_line(path) or {}
            recorded_parent, nickname = _spawn_info(meta)
            if recorded_parent != parent:
                continue  # the file must agree with the edge
            refs.append(
                SessionRef(
                    row["id"],
                    path,
                    parent,
                    row.get("agent_nickname") or nickname,
                    parse_time(row.get("created_at_ms")) or parse_time(meta.get("timestamp")),
                )
            )
        return refs, "sqlite"

    def _children_from_scan(self, query: ChildQuery) -> list[SessionRef]:
        refs = []
        since = query.since - WINDOW_SLACK if query.since else None
        for path in self._rollouts_newest_first(since, query.until):
            if since is not None:
                modified = datetime.fromtimestamp(path.stat().st_mtime, tz=timezone.utc)
                if modified < since:
                    break  # newest first: every later file is older still
            self.scanned_files += 1
            meta = first_line(path)
            if not meta:
                continue
            parent, nickname = _spawn_info(meta)
            if parent != query.parent_thread_id:
                continue
            thread_id = str(meta.get("id") or path.name[-42:-6])
            refs.append(
                SessionRef(thread_id, path, parent, nickname, parse_time(meta.get("timestamp")))
            )
        return refs
