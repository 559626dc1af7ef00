"""Stage 5: locate the accepted session in the agent's own session store."""

from evaluator.sessions import claude, codex
from evaluator.sessions.base import LocateResult, SessionRef, SessionStore
from evaluator.sessions.registry import get_store, register_store, store_names

__all__ = [
    "LocateResult",
    "SessionRef",
    "SessionStore",
    "claude",
    "codex",
    "get_store",
    "register_store",
    "store_names",
]
