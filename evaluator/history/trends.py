"""Pass-rate trends per case, read back from the history.

A case's results are grouped by what was evaluated: the skill hash, and the agent set-up that
played it (agent, model, and for the scripted model its behaviour set, which stands in for the
model). Within one group nothing the skill author controls changed, so passes and failures of
the same case there make it flaky; a new skill hash starts a new group (a trend, not flakiness).
"""

from __future__ import annotations

from typing import Any

import sqlite_utils
from pydantic import BaseModel, Field

from evaluator.vocabulary import Status

TREND_QUERY = """
SELECT r.target_id, c.case_id, r.skill_hash, r.agent, r.model, r.behaviors_dir,
       r.run_id, r.started_at, r.source_commit, c.status, c.blocked_reason,
       c.judged, c.passed, c.failed, c.blocked
FROM case_results AS c JOIN runs AS r ON r.run_id = c.run_id
WHERE (:target IS NULL OR r.target_id = :target) AND (:case IS NULL OR c.case_id = :case)
ORDER BY r.target_id, c.case_id, r.started_at, r.run_id
"""


class TrendPoint(BaseModel):
    """One run's result for the case."""

    run_id: str
    started_at: str
    status: Status
    blocked_reason: str | None
    passed: int
    judged: int
    source_commit: str | None


class CaseTrend(BaseModel):
    """A case under one skill hash and agent set-up, oldest run first."""

    target_id: str
    case_id: str
    skill_hash: str | None = Field(description="None for runs recorded before hashes existed")
    agent: str | None
    model: str | None
    behaviors_dir: str | None
    runs: int
    attempts: int = Field(description="judged attempts over all the runs")
    passed: int
    failed: int
    blocked: int = Field(description="blocked attempts, counted apart")
    pass_rate: float | None
    flaky: bool = Field(description="passed and failed attempts under the same (known) skill hash")
    trend: list[TrendPoint]


# What a case's results are grouped by: the case, the skill as evaluated, and who played it.
GROUP_KEYS = ("target_id", "case_id", "skill_hash", "agent", "model", "behaviors_dir")


def case_trends(
    db: sqlite_utils.Database, target: str | None = None, case: str | None = None
) -> list[CaseTrend]:
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for row in db.query(TREND_QUERY, {"target": target, "case": case}):
        groups.setdefault(tuple(row[k] for k in GROUP_KEYS), []).append(row)
    return [_trend(rows) for rows in groups.values()]


def _trend(rows: list[dict[str, Any]]) -> CaseTrend:
    first = rows[0]
    judged = sum(r["judged"] for r in rows)
    passed = sum(r["passed"] for r in rows)
    failed = sum(r["failed"] for r in rows)
    return CaseTrend(
        **{key: first[key] for key in GROUP_KEYS},
        runs=len(rows),
        attempts=judged,
        passed=passed,
        failed=failed,
        blocked=sum(r["blocked"] for r in rows),
        pass_rate=passed / judged if judged else None,
        # Without a hash (runs recorded before hashes existed) an edit cannot be told from luck.
        flaky=first["skill_hash"] is not None and passed > 0 and failed > 0,
        trend=[TrendPoint.model_validate(r) for r in rows],  # the row's other columns are not kept
    )
