"""Pass-rate trends per case, read back from the history.

A case's results are grouped by what was evaluated: the skill hash, and the agent set-up that
played it (agent, model, and for the scripted model its behaviour set, which stands in for the
model). Within one group nothing the skill author controls changed, so passes and failures of
the same case there make it flaky; a new skill hash starts a new group (a trend, not flakiness).
A renamed case continues under its new id (renames.py), naming its old ones.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from evaluator.history.renames import renamed_cases
from evaluator.vocabulary import Status

if TYPE_CHECKING:
    import sqlite_utils

TREND_QUERY = """
SELECT r.target_id, c.case_id, r.skill_hash, r.agent, r.model, r.behaviors_dir,
       r.run_id, r.started_at, r.source_commit, c.status, c.blocked_reason,
       c.judged, c.passed, c.failed, c.blocked, c.definition_digest
FROM case_results AS c JOIN runs AS r ON r.run_id = c.run_id
WHERE (:target IS NULL OR r.target_id = :target)
ORDER BY r.target_id, c.case_id, r.started_at, r.run_id
"""


class TrendPoint(BaseModel):
    """One run's result for the case."""

    run_id: str
    case_id: str = Field(description="the id the case had in this run (an old one if renamed)")
    started_at: str
    status: Status
    blocked_reason: str | None
    passed: int
    judged: int
    source_commit: str | None


class CaseTrend(BaseModel):
    """A case under one skill hash and agent set-up, oldest run first."""

    target_id: str
    case_id: str = Field(description="the case's latest id")
    renamed_from: list[str] = Field(
        default_factory=list,
        description="earlier ids of this case whose history continues here, oldest first",
    )
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
    rows = list(db.query(TREND_QUERY, {"target": target}))
    renamed = renamed_cases(rows)
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for row in rows:
        latest = renamed.get((row["target_id"], row["case_id"]), row["case_id"])
        key = tuple(latest if k == "case_id" else row[k] for k in GROUP_KEYS)
        groups.setdefault(key, []).append(row)
    trends = [_trend(key[1], rows) for key, rows in groups.items()]
    # `--case` names the case by its latest id or any earlier one.
    return [t for t in trends if case is None or case == t.case_id or case in t.renamed_from]


def _trend(case_id: str, rows: list[dict[str, Any]]) -> CaseTrend:
    rows.sort(key=lambda r: (r["started_at"] or "", r["run_id"]))
    first = rows[0]
    old_ids = [r["case_id"] for r in rows if r["case_id"] != case_id]
    judged = sum(r["judged"] for r in rows)
    passed = sum(r["passed"] for r in rows)
    failed = sum(r["failed"] for r in rows)
    return CaseTrend(
        **{key: first[key] for key in GROUP_KEYS if key != "case_id"},
        case_id=case_id,
        renamed_from=list(dict.fromkeys(old_ids)),
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
