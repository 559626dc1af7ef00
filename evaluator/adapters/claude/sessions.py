"""The Claude Code session store: `<config>/projects/<encoded cwd>/<session>.jsonl`.

A main transcript is named by the session id the CLI reports (`system/init`). A sub-agent's is
`<session>/subagents/agent-<agentId>.jsonl`, beside an `agent-<agentId>.meta.json` whose
`toolUseId` names the parent's Agent tool call. A child is accepted only when both links hold:
its records carry the parent session's `sessionId`, and its `toolUseId` is an Agent call in the
parent's transcript (a sub-agent's own sub-agents live in the same folder, tied the same way).
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

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

AGENT_TOOLS = ("Agent", "Task")
MAX_DESCENDANTS = 1000


def agent_calls(transcript: Path) -> set[str]:
    """The ids of the Agent tool calls a transcript records."""
    ids: set[str] = set()
    try:
        handle = transcript.open("rb")
    except OSError:
        return ids
    with handle:
        for raw in handle:
            if b'"tool_use"' not in raw:
                continue
            try:
                record = json.loads(raw)
            except (ValueError, RecursionError):
                continue
            message = record.get("message") if isinstance(record, dict) else None
            content = message.get("content") if isinstance(message, dict) else None
            for block in content if isinstance(content, list) else []:
                if (
                    isinstance(block, dict)
                    and block.get("type") == "tool_use"
                    and block.get("name") in AGENT_TOOLS
                ):
                    ids.add(str(block.get("id")))
    return ids


def _meta(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


class ClaudeSessionStore(SessionStore):
    name = "claude"

    def __init__(self, home: Path) -> None:
        self.home = home  # CLAUDE_CONFIG_DIR

    def _main(self, session_id: str) -> list[Path]:
        return sorted((self.home / "projects").glob(f"*/{session_id}.jsonl"))

    def _agent_files(self, agent_id: str) -> list[Path]:
        return sorted((self.home / "projects").glob(f"*/*/subagents/agent-{agent_id}.jsonl"))

    def _transcript(self, thread_id: str) -> Path | None:
        found = self._main(thread_id) or self._agent_files(thread_id)
        return found[0] if len(found) == 1 else None

    def locate_thread(self, thread_id: str) -> LocateResult:
        matches = self._main(thread_id)
        if len(matches) == 1:
            ref = SessionRef(thread_id, matches[0], created_at=self._started(matches[0]))
            return LocateResult("found", [ref], method="filename")
        if len(matches) > 1:
            refs = [SessionRef(thread_id, p) for p in matches]
            reason = f"{len(matches)} transcripts for session {thread_id}"
            return LocateResult("ambiguous", refs, reason, "filename")
        return LocateResult("not-found", [], f"no transcript for session {thread_id}", "filename")

    def locate_child(self, query: ChildQuery) -> LocateResult:
        return accept_child(self._children(query.parent_thread_id), query, "subagents")

    def descendants(self, thread_id: str) -> list[SessionRef]:
        return walk_descendants(thread_id, self._children, MAX_DESCENDANTS)

    def _children(self, parent: str) -> list[SessionRef]:
        """Sub-agent transcripts that both links tie to `parent` (a session or an agent id)."""
        transcript = self._transcript(parent)
        if transcript is None:
            return []
        if transcript.parent.name == "subagents":
            folder = transcript.parent
            session_id = transcript.parent.parent.name
        else:
            folder = transcript.with_suffix("") / "subagents"
            session_id = parent
        calls = agent_calls(transcript)
        refs = []
        for path in sorted(folder.glob("agent-*.jsonl")):
            agent_id = path.name.removeprefix("agent-").removesuffix(".jsonl")
            meta = _meta(path.with_name(f"agent-{agent_id}.meta.json"))
            first = first_object(path) or {}
            if meta.get("toolUseId") not in calls or first.get("sessionId") != session_id:
                continue
            refs.append(
                SessionRef(
                    agent_id,
                    path,
                    parent,
                    nickname=str(meta.get("agentType") or "") or None,
                    created_at=parse_time(first.get("timestamp")),
                )
            )
        return refs

    @staticmethod
    def _started(path: Path) -> datetime | None:
        return parse_time((first_object(path) or {}).get("timestamp"))
