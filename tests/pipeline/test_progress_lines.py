"""The plain progress lines a run prints off a terminal (CI, a log file)."""

from __future__ import annotations

import io

from evaluator.pipeline.attempt import AttemptResult
from evaluator.pipeline.progress import PlainProgress


def _line(result: AttemptResult) -> str:
    stream = io.StringIO()
    PlainProgress(stream).attempt_finished(result)
    return stream.getvalue().split("] ", 1)[1].rstrip("\n")


def test_a_failed_attempt_with_a_reason_says_it() -> None:
    """A trigger run printed `q-03 attempt 01: fail` for a prompt whose skill did not fire and
    for one it fired on wrongly alike; only the closing table said `MISSED` or `MISFIRE`
    (sixth-round new user). An attempt that failed for a reason it records now says it."""
    missed = AttemptResult("q-03", 1, None, "fail", reason="imessage-history did not fire")
    assert _line(missed) == "  q-03 attempt 01: fail (imessage-history did not fire)"
    # A case's failed attempt records no reason (its failing entries are in the report): as it was.
    assert _line(AttemptResult("eval-1", 2, None, "fail")) == "  eval-1 attempt 02: fail"
    assert (
        _line(AttemptResult("eval-1", 1, None, "pass", reason="x")) == "  eval-1 attempt 01: pass"
    )
    blocked = AttemptResult(
        "eval-2", 1, None, "blocked", blocked_reason="environment", reason="no DATABASE_URL"
    )
    assert _line(blocked) == "  eval-2 attempt 01: blocked (environment: no DATABASE_URL)"
