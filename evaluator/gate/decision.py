"""SkillOpt's validation gate, on verified scores.

The semantics are SkillOpt's (`skillopt.evaluation.gate`, 0.2.0), reproduced here so the gate
needs no optimiser installed; tests/test_gate.py checks both agree. Both comparisons are strict:
a tie with current is rejected (no lateral moves), and beating current while tying best is an
`accept` that is not a new best. Scores of current and best are in metric space.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from evaluator.artifacts.attribution import RunScore
from evaluator.vocabulary import GateMetric

GateAction = Literal["accept_new_best", "accept", "reject"]
# SkillOpt's trainer starts with current = best = -1.0: the first scored skill is a new best.
NO_SCORE_YET = -1.0


def select_gate_score(
    hard: float, soft: float, metric: GateMetric = "hard", mixed_weight: float = 0.5
) -> float:
    if metric == "hard":
        return float(hard)
    if metric == "soft":
        return float(soft)
    if metric == "mixed":
        weight = max(0.0, min(1.0, float(mixed_weight)))
        return (1.0 - weight) * float(hard) + weight * float(soft)
    raise ValueError(f"unknown gate metric {metric!r}; expected 'hard', 'soft', or 'mixed'")


def gate_action(candidate: float, current: float, best: float) -> GateAction:
    if candidate > current:
        return "accept_new_best" if candidate > best else "accept"
    return "reject"


@dataclass(frozen=True)
class Regression:
    case_id: str
    current: str
    candidate: str  # the candidate's status, or "missing"


@dataclass
class GateDecision:
    action: GateAction
    metric: GateMetric
    candidate_score: float
    current_score: float
    best_score: float
    reason: str
    regressions: list[Regression] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "action": self.action,
            "metric": self.metric,
            "candidate_score": self.candidate_score,
            "current_score": self.current_score,
            "best_score": self.best_score,
            "regressions": [
                {"case_id": r.case_id, "current": r.current, "candidate": r.candidate}
                for r in self.regressions
            ],
            "reason": self.reason,
        }


def metric_score(score: RunScore, metric: GateMetric, mixed_weight: float) -> float:
    """A run's score in metric space; the caller made sure the run has a verdict."""
    assert score.hard is not None and score.soft is not None
    return select_gate_score(score.hard, score.soft, metric, mixed_weight)


def regressions(candidate: RunScore, current: RunScore) -> list[Regression]:
    """Cases that passed in current and do not pass in candidate; a missing case regressed."""
    statuses = {c.case_id: c.status for c in candidate.cases}
    return [
        Regression(c.case_id, c.status, statuses.get(c.case_id, "missing"))
        for c in current.cases
        if c.status == "pass" and statuses.get(c.case_id) != "pass"
    ]


def decide_gate(
    candidate: RunScore,
    current: RunScore | None = None,
    best: RunScore | None = None,
    *,
    metric: GateMetric = "hard",
    mixed_weight: float = 0.5,
    no_regression: bool = False,
) -> GateDecision:
    cand = metric_score(candidate, metric, mixed_weight)
    cur = metric_score(current, metric, mixed_weight) if current else NO_SCORE_YET
    # Without a best run, best is current, as at the start of SkillOpt's training.
    bst = metric_score(best, metric, mixed_weight) if best else cur
    action = gate_action(cand, cur, bst)
    if action == "accept_new_best":
        reason = f"candidate {cand:.4f} beats current {cur:.4f} and best {bst:.4f}"
    elif action == "accept":
        reason = f"candidate {cand:.4f} beats current {cur:.4f} but not best {bst:.4f}"
    else:
        tie = " (a tie is rejected: no lateral moves)" if cand == cur else ""
        reason = f"candidate {cand:.4f} does not beat current {cur:.4f}{tie}"
    found = regressions(candidate, current) if current else []
    if no_regression and found and action != "reject":
        action = "reject"
        names = ", ".join(r.case_id for r in found)
        reason = f"{reason}; rejected by --no-regression: {names} passed in current"
    return GateDecision(action, metric, cand, cur, bst, reason, found)
