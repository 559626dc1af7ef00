"""`soft`: the share of decided assertion entries that passed, per case, averaged over judged
cases; an attempt the agent caused to be blocked counts as nothing passed
(`artifacts/attribution.py`)."""

from __future__ import annotations

from evaluator.artifacts.attribution import RunScore
from evaluator.gate.metrics.base import Metric, MetricContext, MetricValue
from evaluator.gate.metrics.registry import register_metric


@register_metric
class Soft(Metric):
    name = "soft"
    summary = "the share of assertion entries passed"

    def measure(self, score: RunScore, context: MetricContext) -> MetricValue:
        assert score.soft is not None
        return MetricValue(self.name, float(score.soft))
