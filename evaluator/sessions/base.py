"""The session-store interface: find a root thread's session and a parent's spawned children."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Literal

LocateStatus = Literal["found", "ambiguous", "not-found"]
# How far a session's start may lie outside the agent process's lifetime (clock granularity).
WINDOW_SLACK = timedelta(seconds=5)


@dataclass(frozen=True)
class SessionRef:
    thread_id: str
    path: Path
    parent_thread_id: str | None = None
    nickname: str | None = None
    created_at: datetime | None = None


@dataclass
class LocateResult:
    status: LocateStatus
    sessions: list[SessionRef] = field(default_factory=list)
    reason: str = ""
    method: str = ""

    @property
    def accepted(self) -> SessionRef | None:
        return self.sessions[0] if self.status == "found" else None

    def to_json(self) -> dict[str, object]:
        return {
            "status": self.status,
            "method": self.method,
            "reason": self.reason,
            "sessions": [
                {
                    "thread_id": s.thread_id,
                    "path": str(s.path),
                    "parent_thread_id": s.parent_thread_id,
                    "nickname": s.nickname,
                    "created_at": s.created_at.isoformat() if s.created_at else None,
                }
                for s in self.sessions
            ],
        }


@dataclass(frozen=True)
class ChildQuery:
    parent_thread_id: str
    agent_id: str | None = None
    nickname: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    # Children already accepted for other attempts: a session is never the evidence of two.
    exclude: frozenset[str] = frozenset()


class SessionStore(ABC):
    """One agent's on-disk session store; its adapter creates it (`AgentAdapter.session_store`)."""

    name: str

    @abstractmethod
    def locate_thread(self, thread_id: str) -> LocateResult:
        """The session file of one thread, by id."""

    @abstractmethod
    def locate_child(self, query: ChildQuery) -> LocateResult:
        """Exactly one spawned child of a parent, or why there is not exactly one."""

    @abstractmethod
    def descendants(self, thread_id: str) -> list[SessionRef]:
        """Every session spawned from `thread_id`, at any depth (children, grandchildren...)."""

    @contextmanager
    def held(self) -> Iterator[SessionStore]:
        """The store, its index kept open for every look-up inside the block (an attempt
        locates its session, then its descendants: one opening, not one per query)."""
        yield self


def parse_time(value: Any) -> datetime | None:
    if isinstance(value, (int, float)):
        seconds = value / 1000 if value > 1e11 else value
        return datetime.fromtimestamp(seconds, tz=timezone.utc)
    if isinstance(value, str) and value:
        try:
            return datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
    return None


def accept_child(refs: list[SessionRef], query: ChildQuery, method: str) -> LocateResult:
    """Exactly one child among a parent's `refs`, narrowed by the query's spawn id, nickname and
    time window (and never one already accepted: `exclude`); otherwise `not-found` or
    `ambiguous`, never a guess."""
    if not refs:
        return LocateResult("not-found", [], f"no child of {query.parent_thread_id}", method)
    narrowed = [r for r in refs if r.thread_id not in query.exclude]
    if query.agent_id:
        narrowed = [r for r in narrowed if r.thread_id == query.agent_id]
    if query.nickname:
        narrowed = [r for r in narrowed if r.nickname == query.nickname]
    if query.since or query.until:
        lower = query.since - WINDOW_SLACK if query.since else None
        upper = query.until + WINDOW_SLACK if query.until else None
        narrowed = [
            r
            for r in narrowed
            if r.created_at is None
            or (
                (lower is None or r.created_at >= lower)
                and (upper is None or r.created_at <= upper)
            )
        ]
    if len(narrowed) == 1:
        return LocateResult("found", narrowed, "", method)
    if not narrowed:
        return LocateResult(
            "not-found",
            [],
            f"{len(refs)} child(ren) of {query.parent_thread_id}, none matching"
            " the spawn id, nickname or time window",
            method,
        )
    return LocateResult(
        "ambiguous",
        narrowed,
        f"{len(narrowed)} children of {query.parent_thread_id} match; refusing to guess",
        method,
    )


def walk_descendants(
    thread_id: str, children: Callable[[str], list[SessionRef]], limit: int
) -> list[SessionRef]:
    """Every session `thread_id` spawned, at any depth, breadth first, each once, at most
    `limit` (a loop in the records cannot run away); `children` is the store's own lookup."""
    found: list[SessionRef] = []
    seen = {thread_id}
    queue = [thread_id]
    while queue and len(found) < limit:
        for child in children(queue.pop(0)):
            if child.thread_id not in seen:
                seen.add(child.thread_id)
                found.append(child)
                queue.append(child.thread_id)
    return found
