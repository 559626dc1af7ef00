"""The Gemini CLI session store: `<GEMINI_CLI_HOME>/.gemini/tmp/<project>/chats/session-*.jsonl`.

A session file is named by its start time and the first eight characters of its id; its first
record (`{sessionId, projectHash, startTime, kind}`) names the whole id, which the runner chose
(`--session-id`). The project folder is the workspace's short name (`projects.json` maps it),
so the store looks in every project and accepts exactly one file whose first record has the id.
A sub-agent an `invoke_agent` call ran is recorded in `chats/<parent session id>/<its id>.jsonl`
(first record `kind: subagent`, with the workspace in `directories`): the parent's children.
"""

from __future__ import annotations

from pathlib import Path

from evaluator.evidence.jsonl import first_object
from evaluator.sessions.base import (
    ChildQuery,
    LocateResult,
    SessionRef,
    SessionStore,
    accept_child,
    parse_time,
    walk_descendants,
)

MAIN_KIND = "main"
SUBAGENT_KIND = "subagent"
MAX_DESCENDANTS = 200


def session_files(home: Path) -> list[Path]:
    """Every session file under the home, newest first."""
    chats = home / ".gemini" / "tmp"
    # `.json`: a legacy session, written whole by CLIs before the JSONL log (0.61.0 reads them)
    files = [*chats.glob("*/chats/session-*.jsonl"), *chats.glob("*/chats/session-*.json")]
    return sorted(files, key=lambda p: p.stat().st_mtime, reverse=True)


def _projects(home: Path) -> list[Path]:
    root = home / ".gemini" / "tmp"
    return sorted(p for p in root.iterdir() if p.is_dir()) if root.is_dir() else []


class GeminiSessionStore(SessionStore):
    name = "gemini"

    def __init__(self, home: Path) -> None:
        self.home = home  # GEMINI_CLI_HOME

    def locate_thread(self, thread_id: str) -> LocateResult:
        prefix = thread_id[:8]
        refs = []
        for path in session_files(self.home):
            if not path.stem.endswith(prefix):
                continue
            first = first_object(path) or {}
            if first.get("sessionId") != thread_id or first.get("kind", MAIN_KIND) != MAIN_KIND:
                continue
            refs.append(SessionRef(thread_id, path, created_at=parse_time(first.get("startTime"))))
        if len(refs) == 1:
            return LocateResult("found", refs, method="first-record")
        if refs:
            reason = f"{len(refs)} session files for session {thread_id}"
            return LocateResult("ambiguous", refs, reason, "first-record")
        return LocateResult("not-found", [], f"no session file for {thread_id}", "first-record")

    def locate_child(self, query: ChildQuery) -> LocateResult:
        return accept_child(self.children(query.parent_thread_id), query, "parent-folder")

    def descendants(self, thread_id: str) -> list[SessionRef]:
        return walk_descendants(thread_id, self.children, MAX_DESCENDANTS)

    def children(self, parent: str) -> list[SessionRef]:
        """The sub-agent sessions recorded under the folder named by `parent`'s id whose first
        record is a sub-agent's and names the file's own id."""
        if not parent or Path(parent).name != parent or parent in (".", ".."):
            return []  # an id is one folder name, never a path
        folders = [project / "chats" / parent for project in _projects(self.home)]
        refs = []
        for path in sorted(p for folder in folders for p in folder.glob("*.jsonl")):
            first = first_object(path) or {}
            if first.get("kind") != SUBAGENT_KIND or first.get("sessionId") != path.stem:
                continue
            created = parse_time(first.get("startTime"))
            refs.append(SessionRef(path.stem, path, parent, created_at=created))
        return refs
