"""`mixed`: SkillOpt's (1 - w) * hard + w * soft, with w clamped to [0, 1] as SkillOpt does
(`skillopt.evaluation.gate.select_gate_score`, 0.2.0; tests/gate/test_gate.py checks they agree)."""

from __future__ import annotations

from evaluator.artifacts.attribution import RunScore
from evaluator.gate.metrics.base import Metric, MetricContext, MetricValue
from evaluator.gate.metrics.registry import register_metric


@register_metric
class Mixed(Metric):
    name = "mixed"
    summary = "(1 - w) * hard + w * soft"

    def measure(self, score: RunScore, context: MetricContext) -> MetricValue:
        assert score.hard is not None and score.soft is not None
        weight = max(0.0, min(1.0, float(context.mixed_weight)))
        return MetricValue(self.name, (1.0 - weight) * score.hard + weight * score.soft)
