"""Locating one attempt's sessions in a busy Codex home of 10,000 earlier sessions.

sqlite path (state_5.sqlite, as codex 0.169 writes it) against the fallback scan (no database):
time and how many rollout files each reads. Run: .venv/bin/python -m benchmarks.locate_sessions
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import time
import uuid
from datetime import datetime, timedelta, timezone
from functools import partial
from pathlib import Path

from benchmarks.common import SCRATCH, median, table, timed
from evaluator.adapters import get_store
from evaluator.adapters.codex.sessions import CodexSessionStore
from evaluator.sessions.base import ChildQuery

SESSIONS = 10_000
BODY = json.dumps(
    {
        "timestamp": "x",
        "type": "response_item",
        "payload": {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": "x" * 2000}],
        },
    }
)


def _uuid7(ms: int) -> str:
    raw = ms.to_bytes(6, "big") + os.urandom(10)
    hexed = raw.hex()
    return f"{hexed[:8]}-{hexed[8:12]}-7{hexed[13:16]}-a{hexed[17:20]}-{hexed[20:32]}"


def build_home(home: Path) -> tuple[str, str, datetime]:
    """10,000 sessions over ten days (half children), plus one fresh parent and child at the end."""
    sessions = home / "sessions"
    db = sqlite3.connect(home / "state_5.sqlite")
    db.execute("PRAGMA journal_mode=WAL")
    db.execute(
        "CREATE TABLE threads (id TEXT PRIMARY KEY, rollout_path TEXT, created_at_ms INTEGER, agent_nickname TEXT, source TEXT)"
    )
    db.execute(
        "CREATE TABLE thread_spawn_edges (parent_thread_id TEXT NOT NULL, child_thread_id TEXT NOT NULL PRIMARY KEY, status TEXT NOT NULL)"
    )
    db.execute("CREATE INDEX idx_edges ON thread_spawn_edges(parent_thread_id, status)")
    start = datetime(2026, 11, 12, tzinfo=timezone.utc)
    parent: str | None = None
    last_parent: str | None = None
    rows: list[tuple[str, str, int, str | None, str]] = []
    edges: list[tuple[str, str, str]] = []
    for index in range(SESSIONS + 2):
        when = start + timedelta(seconds=index * 86)
        ms = int(when.timestamp() * 1000)
        thread = _uuid7(ms)
        child = index % 2 == 1 and parent is not None
        meta: dict[str, object] = {
            "id": thread,
            "session_id": parent if child else thread,
            "timestamp": when.isoformat().replace("+00:00", "Z"),
            "cwd": "/ws",
        }
        if child:
            meta["source"] = {
                "subagent": {
                    "thread_spawn": {"parent_thread_id": parent, "depth": 1, "agent_nickname": "N"}
                }
            }
            assert parent is not None
            edges.append((parent, thread, "open"))
        else:
            meta["source"] = "exec"
        directory = sessions / when.strftime("%Y/%m/%d")
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / f"rollout-{when.strftime('%Y-%m-%dT%H-%M-%S')}-{thread}.jsonl"
        path.write_text(
            json.dumps({"timestamp": meta["timestamp"], "type": "session_meta", "payload": meta})
            + "\n"
            + BODY
            + "\n"
        )
        os.utime(path, (when.timestamp(), when.timestamp()))
        rows.append((thread, str(path), ms, "N" if child else None, "exec"))
        last_parent, last_child, last_time = parent, thread, when
        if not child:
            parent = thread
    db.executemany("INSERT INTO threads VALUES (?,?,?,?,?)", rows)
    db.executemany("INSERT INTO thread_spawn_edges VALUES (?,?,?)", edges)
    db.commit()
    db.close()
    assert last_parent is not None
    return last_parent, last_child, last_time


def _codex_store(home: Path) -> CodexSessionStore:
    store = get_store("codex", home)
    assert isinstance(store, CodexSessionStore)
    return store


def main() -> None:
    home = SCRATCH / f"locate-{uuid.uuid4().hex[:8]}"
    home.mkdir(parents=True)
    try:
        _, build_s = timed(lambda: None)
        (parent, child, when), build_s = timed(lambda: build_home(home))
        rows = []
        query = ChildQuery(
            parent, since=when - timedelta(seconds=30), until=when + timedelta(seconds=30)
        )
        sqlite_times, scan_times = [], []
        for _ in range(5):
            result, seconds = timed(partial(get_store("codex", home).locate_child, query))
            assert result.status == "found" and result.sessions[0].thread_id == child, result
            sqlite_times.append(seconds)
        rows.append(
            ["child, state_5.sqlite", f"{median(sqlite_times) * 1000:.1f} ms", "1 (cross-check)"]
        )
        root_times = []
        for _ in range(5):
            result, seconds = timed(lambda: get_store("codex", home).locate_thread(parent))
            assert result.status == "found"
            root_times.append(seconds)
        rows.append(["root by id, state_5.sqlite", f"{median(root_times) * 1000:.1f} ms", "0"])
        (home / "state_5.sqlite").rename(home / "hidden.sqlite")
        scanned = 0
        for _ in range(5):
            store = _codex_store(home)
            result, seconds = timed(partial(store.locate_child, query))
            assert result.status == "found" and result.sessions[0].thread_id == child, result
            scan_times.append(seconds)
            scanned = store.scanned_files
        rows.append(
            [
                "child, scan inside the time window",
                f"{median(scan_times) * 1000:.1f} ms",
                str(scanned),
            ]
        )
        unbounded = ChildQuery(parent)
        store = _codex_store(home)
        result, seconds = timed(partial(store.locate_child, unbounded))
        rows.append(
            ["child, scan without a window", f"{seconds * 1000:.1f} ms", str(store.scanned_files)]
        )
        rows.append(
            ["scan (windowed) / sqlite", f"{median(scan_times) / median(sqlite_times):.1f}x", ""]
        )
        table(
            f"Locating among {SESSIONS:,} sessions (home built in {build_s:.1f}s; median of 5)",
            ["lookup", "time", "rollout first lines read"],
            rows,
        )
    finally:
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    time.sleep(0)
    main()
