"""Stage 5: locate the accepted session in the agent's own session store (each agent's store
belongs to its adapter: `evaluator.adapters.get_store`)."""

from evaluator.sessions.base import LocateResult, SessionRef, SessionStore

__all__ = ["LocateResult", "SessionRef", "SessionStore"]
