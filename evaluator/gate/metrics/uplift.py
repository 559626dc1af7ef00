"""`uplift`: how much the skill raises the verified pass rate over a baseline run of the same
cases without it, the mean per-case difference of `hard` (docs/statistics.md).

Cases are the pairs: a case that has a verdict in both runs gives one difference; the interval
is the case bootstrap and the test the sign-flip test over cases (`stats/paired.py`), one-sided
"the skill helps". The metric meets a threshold only when the skill's help is shown: the test is
significant and the interval's lower end is above the threshold, so an optimiser cannot ship a
skill whose uplift is noise.
"""

from __future__ import annotations

from evaluator.artifacts.attribution import RunScore
from evaluator.errors import InputError
from evaluator.gate.metrics.base import Metric, MetricContext, MetricUnavailable, MetricValue
from evaluator.gate.metrics.registry import register_metric
from evaluator.stats.paired import bootstrap_mean, fewest_cases_to_call, sign_flip_p


def case_differences(score: RunScore, baseline: RunScore) -> list[float]:
    """hard(with skill) - hard(baseline) for each case with a verdict in both runs."""
    before = {c.case_id: c.hard for c in baseline.cases if c.hard is not None}
    return [
        c.hard - before[c.case_id]
        for c in score.cases
        if c.hard is not None and c.case_id in before
    ]


@register_metric
class Uplift(Metric):
    name = "uplift"
    summary = "the mean per-case gain in pass rate over a baseline run without the skill"
    needs_baseline = True
    gate_threshold = 0.0
    threshold_option = "--min-uplift"

    def measure(self, score: RunScore, context: MetricContext) -> MetricValue:
        if context.baseline is None:
            raise InputError("the uplift metric needs a baseline run", field="--baseline-run")
        differences = case_differences(score, context.baseline)
        if not differences:
            raise MetricUnavailable(
                "no-shared-verdict", "no case has a verdict in both this run and the baseline run"
            )
        interval = bootstrap_mean(differences)
        return MetricValue(
            self.name,
            sum(differences) / len(differences),
            low=interval.interval.low if interval else None,
            high=interval.interval.high if interval else None,
            p=sign_flip_p(differences, "greater"),
            cases=len(differences),
        )

    def shortfall(self, value: MetricValue, threshold: float, alpha: float) -> str | None:
        if value.p is None or value.p > alpha:
            p = "n/a" if value.p is None else f"{value.p:.4f}"
            needed = fewest_cases_to_call(alpha, "greater")
            few = (
                f"; {value.cases} case(s) can never reach it, at least {needed} are needed"
                if value.cases is not None and value.cases < needed
                else ""
            )
            return (
                f"the uplift {value.value:+.3f} is not significant (paired p={p} > {alpha:g}{few})"
            )
        if value.low is None or value.low <= threshold:
            low = "none (too few cases)" if value.low is None else f"{value.low:+.3f}"
            return f"the uplift's interval starts at {low}, not above {threshold:g}"
        return None
