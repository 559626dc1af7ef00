"""SkillOpt's validation gate, on verified scores.

The metrics are the registry's (`gate/metrics/`). The semantics are SkillOpt's (`skillopt.evaluation.gate`, 0.2.0), reproduced here so the gate
needs no optimiser installed; tests/gate/test_gate.py checks both agree. Both comparisons are strict:
a tie with current is rejected (no lateral moves), and beating current while tying best is an
`accept` that is not a new best. Scores of current and best are in metric space.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from evaluator.artifacts.attribution import RunScore
from evaluator.gate.metrics.base import Metric, MetricContext, MetricUnavailable, MetricValue
from evaluator.gate.metrics.registry import get_metric

GateAction = Literal["accept_new_best", "accept", "reject"]
# SkillOpt's trainer starts with current = best = -1.0: the first scored skill is a new best.
NO_SCORE_YET = -1.0


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
    metric: str
    candidate_score: float
    current_score: float
    best_score: float
    reason: str
    regressions: list[Regression] = field(default_factory=list)
    candidate_value: MetricValue | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "action": self.action,
            "metric": self.metric,
            "candidate_score": self.candidate_score,
            "candidate_metric": self.candidate_value.to_json() if self.candidate_value else None,
            "current_score": self.current_score,
            "best_score": self.best_score,
            "regressions": [
                {"case_id": r.case_id, "current": r.current, "candidate": r.candidate}
                for r in self.regressions
            ],
            "reason": self.reason,
        }


def regressions(candidate: RunScore, current: RunScore) -> list[Regression]:
    """Cases that passed in current and do not pass in candidate; a missing case regressed."""
    statuses = {c.case_id: c.status for c in candidate.cases}
    return [
        Regression(c.case_id, c.status, statuses.get(c.case_id, "missing"))
        for c in current.cases
        if c.status == "pass" and statuses.get(c.case_id) != "pass"
    ]


def undecided(candidate: RunScore, other: RunScore) -> list[str]:
    """Cases of both runs `other` gave a verdict (pass, fail, or a block counted as not passed)
    that the candidate gave none (a block left out of its score: the eval's, the machine's). A
    case one run lacks is a difference of the runs' cases (`--allow-different-cases`)."""
    blocked = {c.case_id for c in candidate.cases if not c.has_verdict}
    return [c.case_id for c in other.cases if c.has_verdict and c.case_id in blocked]


def _measure(measure: Metric, score: RunScore, context: MetricContext, role: str) -> MetricValue:
    """The metric of one of the gate's runs; when it has none, the message says which run."""
    try:
        return measure.measure(score, context)
    except MetricUnavailable as exc:
        where = f" {score.source}" if score.source else ""
        raise MetricUnavailable(exc.token, f"{role} run{where}: {exc}") from None


def decide_gate(
    candidate: RunScore,
    current: RunScore | None = None,
    best: RunScore | None = None,
    *,
    metric: str = "hard",
    mixed_weight: float = 0.5,
    no_regression: bool = False,
    baseline: RunScore | None = None,
    alpha: float = 0.05,
) -> GateDecision:
    """Raises ValueError for an unknown metric, InputError for a metric without its baseline."""
    measure = get_metric(metric)
    context = MetricContext(mixed_weight=mixed_weight, baseline=baseline, alpha=alpha)
    value = _measure(measure, candidate, context, "candidate")
    cand = value.value
    cur = _measure(measure, current, context, "current").value if current else NO_SCORE_YET
    # Without a best run, best is current, as at the start of SkillOpt's training.
    bst = _measure(measure, best, context, "best").value if best else cur
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
    # A score is a mean over the cases with a verdict: a candidate without one where current or
    # best had it is scored on fewer cases (a failing case dropped raises it). Not comparable,
    # so never accepted as better; its cases should run again.
    missing = list(
        dict.fromkeys(
            case
            for other in (current, best)
            if other is not None
            for case in undecided(candidate, other)
        )
    )
    if missing and action != "reject":
        action = "reject"
        reason = (
            f"{reason}; rejected: the candidate has no verdict on {len(missing)} case(s) current"
            f" or best decided ({', '.join(missing)}), so its score is over fewer cases;"
            " run them again"
        )
    if measure.gate_threshold is not None and action != "reject":
        short = measure.shortfall(value, measure.gate_threshold, alpha)
        if short:
            action = "reject"
            reason = f"{reason}; rejected: {short}"
    return GateDecision(action, metric, cand, cur, bst, reason, found, value)
