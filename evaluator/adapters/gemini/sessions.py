"""The Gemini CLI session store: `<GEMINI_CLI_HOME>/.gemini/tmp/<project>/chats/session-*.jsonl`.

A session file is named by its start time and the first eight characters of its id; its first
record (`{sessionId, projectHash, startTime, kind}`) names the whole id, which the runner chose
(`--session-id`). The project folder is the workspace's short name (`projects.json` maps it),
so the store looks in every project and accepts exactly one file whose first record has the id.
Sub-agent sessions (`invoke_agent`) are not followed yet: no child is ever found.
"""

from __future__ import annotations

from pathlib import Path

from evaluator.evidence.jsonl import first_object
from evaluator.sessions.base import ChildQuery, LocateResult, SessionRef, SessionStore, parse_time

MAIN_KIND = "main"


def session_files(home: Path) -> list[Path]:
    """Every session file under the home, newest first."""
    files = list((home / ".gemini" / "tmp").glob("*/chats/session-*.jsonl"))
    return sorted(files, key=lambda p: p.stat().st_mtime, reverse=True)


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
        reason = "Gemini CLI sub-agent sessions are not read yet (docs/agents.md)"
        return LocateResult("not-found", [], reason, "first-record")

    def descendants(self, thread_id: str) -> list[SessionRef]:
        return []
