"""`score`'s verdict: PASS, FAIL or ERROR from a run's verified score, and the VERDICT line."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Literal

from evaluator.artifacts.attribution import RunScore
from evaluator.defaults import DEFAULT_MIN_COVERAGE, DEFAULT_MIN_PASS_RATE
from evaluator.gate.metrics.base import MetricContext, MetricUnavailable, MetricValue
from evaluator.gate.metrics.registry import get_metric

VerdictKind = Literal["PASS", "FAIL", "ERROR"]


@dataclass(frozen=True)
class ScoreVerdict:
    kind: VerdictKind
    score: RunScore
    reason: str
    value: MetricValue | None = None  # the metric that decided, when it is not hard or soft
    # False for a metric beside which the pass rates mean nothing (trigger-f1): not shown.
    shows_pass_rates: bool = True

    def line(self) -> str:
        """The last line of `score`'s stdout, the one CodexOpt's rollout task greps for."""
        counts = f"cases={self.score.selected} blocked={self.score.count('blocked')}"
        if self.kind == "ERROR":
            return f"VERDICT: ERROR {self.reason} {counts}"
        metric = f" {self.value.text()}" if self.value else ""
        if not self.shows_pass_rates:
            return f"VERDICT: {self.kind}{metric} {counts}"
        hard = self.score.hard or 0.0
        soft = self.score.soft or 0.0
        return f"VERDICT: {self.kind} hard={hard:.3f} soft={soft:.3f}{metric} {counts}"

    def to_json(self) -> dict[str, Any]:
        score = self.score
        rates = self.shows_pass_rates
        return {
            "verdict": self.kind,
            "reason": self.reason,
            "metric": self.value.to_json() if self.value else None,
            "hard": score.hard if rates else None,
            "soft": score.soft if rates else None,
            "coverage": score.coverage,
            "cases": score.selected,
            "judged": len(score.judged),
            "passed": score.count("pass"),
            "failed": score.count("fail"),
            "blocked": score.count("blocked"),
            "blocked_causes": {
                f"{blame.side}:{blame.cause}": count
                for blame, count in score.blocked_causes().items()
            },
            "per_case": [
                {
                    "case_id": c.case_id,
                    "status": c.status,
                    "hard": c.hard if rates else None,
                    "soft": c.soft if rates else None,
                }
                for c in score.cases
            ],
        }


def decide(
    score: RunScore,
    *,
    min_pass_rate: float = DEFAULT_MIN_PASS_RATE,
    min_coverage: float = DEFAULT_MIN_COVERAGE,
    interrupted: bool = False,
    metric: str = "hard",
    context: MetricContext | None = None,
    threshold: float | None = None,
) -> ScoreVerdict:
    """PASS when `metric` meets `threshold` (default: `min_pass_rate`), else FAIL.

    No score at all (ERROR) when the run was cut short, the agent's model or tooling failed,
    nothing got a verdict, or too few cases did; an outage must never read as a score of 0."""
    return replace(
        _decide(
            score,
            min_pass_rate=min_pass_rate,
            min_coverage=min_coverage,
            interrupted=interrupted,
            metric=metric,
            context=context,
            threshold=threshold,
        ),
        shows_pass_rates=get_metric(metric).shows_pass_rates,
    )


def _decide(
    score: RunScore,
    *,
    min_pass_rate: float,
    min_coverage: float,
    interrupted: bool,
    metric: str,
    context: MetricContext | None,
    threshold: float | None,
) -> ScoreVerdict:
    if interrupted:
        return ScoreVerdict("ERROR", score, "run-interrupted")
    missing = score.selected - len(score.cases)
    if missing:
        return ScoreVerdict("ERROR", score, f"unfinished={missing}")
    if score.outage:
        outages = sum(1 for c in score.cases if c.outage)
        return ScoreVerdict("ERROR", score, f"agent-outage={outages}")
    if score.hard is None:
        return ScoreVerdict("ERROR", score, "no-verdict")
    if score.coverage < min_coverage:
        return ScoreVerdict(
            "ERROR", score, f"coverage={score.coverage:.3f}<min-coverage={min_coverage:g}"
        )
    measure = get_metric(metric)
    context = context or MetricContext()
    try:
        value = measure.measure(score, context)
    except MetricUnavailable as exc:
        return ScoreVerdict("ERROR", score, exc.token)
    limit = min_pass_rate if threshold is None else threshold
    short = measure.shortfall(value, limit, context.alpha)
    kind: VerdictKind = "FAIL" if short else "PASS"
    option = measure.threshold_option.lstrip("-")
    reason = short or f"{value.metric} {value.value:.3f} meets {option} {limit:g}"
    return ScoreVerdict(kind, score, reason, None if metric in ("hard", "soft") else value)
