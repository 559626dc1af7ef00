"""`hard`: the verified pass rate, the mean over judged cases of each case's share of passed
attempts (`artifacts/attribution.py`)."""

from __future__ import annotations

from evaluator.artifacts.attribution import RunScore
from evaluator.gate.metrics.base import Metric, MetricContext, MetricValue
from evaluator.gate.metrics.registry import register_metric


@register_metric
class Hard(Metric):
    name = "hard"
    summary = "the verified pass rate"

    def measure(self, score: RunScore, context: MetricContext) -> MetricValue:
        assert score.hard is not None
        return MetricValue(self.name, float(score.hard))
