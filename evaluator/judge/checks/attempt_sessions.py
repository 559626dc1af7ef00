"""A check judged over every session of the attempt: the agent's own and those it spawned (its
helpers'). The registry (`registry.py`) maps a kind to its implementation, which judges one
session; this module decides what the helpers' sessions add."""

from __future__ import annotations

from typing import Any

from evaluator.judge.base import JudgeContext
from evaluator.judge.checks.across_sessions import order_across_sessions
from evaluator.judge.checks.registry import CHECKS
from evaluator.judge.pattern_excerpt import bounded
from evaluator.judge.verdict import CheckVerdict

# Checks of an act a session records (a run, a read, a write, a fetch): one a spawned session
# (a helper's) records is the attempt's act too (red team 10: a helper ran the forbidden
# command and read the forbidden file, and "never runs", "never reads" passed on the parent's
# session alone).
SPAWNED_ACTS = frozenset({"command_ran", "script_ran", "file_read", "file_written", "url_fetched"})
# Orders of two acts, which a helper's act enters by the parent's bounds on it
# (`checks/across_sessions.py`).
ORDERED = frozenset({"ran_before", "read_before"})


def run_check(check: Any, context: JudgeContext) -> CheckVerdict:
    """The check's verdict over every session of the attempt, its long patterns quoted as
    excerpts (pattern_excerpt.py)."""
    return bounded(check, _run_check(check, context))


def _run_check(check: Any, context: JudgeContext) -> CheckVerdict:
    verdict = CHECKS[check.kind](check, context)
    if check.kind in ORDERED and context.spawned:
        return order_across_sessions(check, context, verdict)
    if check.kind not in SPAWNED_ACTS or verdict.status == "pass" or not context.spawned:
        return verdict
    # Did any session of the attempt record the act: a pass decides, else a gap blocks.
    helpers = [CHECKS[check.kind](check, helper) for helper in context.spawned]
    done = next((v for v in helpers if v.status == "pass"), None)
    if done is not None:
        return done.model_copy(update={"detail": f"{done.detail} (by a spawned session)"})
    gap = next((v for v in helpers if v.status == "blocked"), None)
    if verdict.status == "fail" and gap is not None:
        return gap.model_copy(update={"detail": f"{gap.detail} (in a spawned session)"})
    reads = [r for v in helpers for r in v._unrecognised_reads]
    if verdict.status == "fail" and reads:
        # A helper's read handed over in another form is a forbidden read too (entry.py).
        verdict._unrecognised_reads = [*verdict._unrecognised_reads, *reads]
    return verdict
