"""`trigger-f1`: how well the skill's description decides when it fires, the F1 of a trigger
run over prompts (a prompt fires when most of its attempts did; docs/triggers.md), with its
interval: a Wilson score interval on the prompts' counts (triggers/metrics.py).

A run flagged suspect (nothing fired, or everything did) has no score: such a number more
likely measures a broken setup than the description, and an optimiser must not climb it.
"""

from __future__ import annotations

from evaluator.artifacts.attribution import RunScore
from evaluator.gate.metrics.base import Metric, MetricContext, MetricUnavailable, MetricValue
from evaluator.gate.metrics.registry import register_metric


@register_metric
class TriggerF1(Metric):
    name = "trigger-f1"
    summary = "the F1 of a trigger run over its prompts (agentic-eval triggers)"
    threshold_option = "--min-f1"
    shows_pass_rates = False

    def measure(self, score: RunScore, context: MetricContext) -> MetricValue:
        data = score.triggers
        if data is None:
            raise MetricUnavailable(
                "not-a-trigger-run", "the run has no triggers.json: it is not a trigger run"
            )
        suspect = data.get("suspect")
        if suspect:
            raise MetricUnavailable(
                f"suspect-trigger-run={suspect['kind']}",
                f"the trigger run is suspect ({suspect['kind']}): " + "; ".join(suspect["causes"]),
            )
        prompts = data.get("over_prompts") or {}
        f1 = prompts.get("f1")
        if f1 is None:
            raise MetricUnavailable(
                "trigger-f1-undefined", "F1 is undefined: no prompt fired, or none should"
            )
        low, high = (prompts.get("intervals") or {}).get("f1") or (None, None)
        decided = sum(1 for p in data.get("prompts", []) if p.get("triggered") is not None)
        return MetricValue(self.name, float(f1), low=low, high=high, cases=decided, signed=False)
