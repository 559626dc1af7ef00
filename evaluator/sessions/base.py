"""The session-store interface: find a root thread's session and a parent's spawned children."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Literal

LocateStatus = Literal["found", "ambiguous", "not-found"]


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
    """One agent's on-disk session store. Implementations register with `@register_store`."""

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
