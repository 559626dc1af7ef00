"""What a metric is: a number measured from a run's verified score (and, for some, a baseline
run's), and the rule that says whether it meets a threshold."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from evaluator.errors import EXIT_ENVIRONMENT, EvalError

if TYPE_CHECKING:  # the registry is read by --help, which must not load the artifact models
    from evaluator.artifacts.attribution import RunScore

# A hair of tolerance: 2 of 3 must meet a threshold written as 0.6667.
TOLERANCE = 1e-9


class MetricUnavailable(EvalError):
    """The run has a verdict but not this metric (no case shared with the baseline has one):
    no score, as for a run without a verdict. `token` is the VERDICT line's reason."""

    exit_code = EXIT_ENVIRONMENT

    def __init__(self, token: str, message: str) -> None:
        super().__init__(message)
        self.token = token


@dataclass(frozen=True)
class MetricContext:
    """What a metric may need besides the run: the weight of `mixed`, the baseline of `uplift`
    (a run of the same cases without the skill) and the significance level of its test."""

    mixed_weight: float = 0.5
    baseline: RunScore | None = None
    alpha: float = 0.05


@dataclass(frozen=True)
class MetricValue:
    metric: str
    value: float
    # For metrics measured with uncertainty: the 95% interval, the p-value of their test and
    # the number of cases behind them.
    low: float | None = None
    high: float | None = None
    p: float | None = None
    cases: int | None = None
    # A difference (uplift) is shown with its sign; a plain measure (an F1) is not.
    signed: bool = True

    def to_json(self) -> dict[str, Any]:
        found: dict[str, Any] = {"metric": self.metric, "value": self.value}
        if self.low is not None and self.high is not None:
            found["interval"] = [self.low, self.high]
        if self.p is not None:
            found["p"] = self.p
        if self.cases is not None:
            found["cases"] = self.cases
        return found

    def text(self) -> str:
        sign = "+" if self.signed and self.low is not None else ""
        found = f"{self.metric}={self.value:{sign}.3f}"
        if self.low is not None and self.high is not None:
            found += f" ci=[{self.low:{sign}.3f},{self.high:{sign}.3f}]"
        if self.p is not None:
            found += f" p={self.p:.4f}"
        return found


class Metric(ABC):
    name: ClassVar[str]
    summary: ClassVar[str]  # one line, for docs and errors
    needs_baseline: ClassVar[bool] = False
    # A threshold the gate holds every candidate to, whatever current and best score: a
    # candidate short of it is rejected (`uplift`: the skill must be shown to help).
    gate_threshold: ClassVar[float | None] = None
    # The `score` option that holds the threshold of its PASS/FAIL verdict.
    threshold_option: ClassVar[str] = "--min-pass-rate"
    # Whether the run's pass rates (`hard`, `soft`) mean something beside this metric: not for a
    # trigger run, whose cases are prompts that fire or not, so `score` shows only the metric.
    shows_pass_rates: ClassVar[bool] = True

    @abstractmethod
    def measure(self, score: RunScore, context: MetricContext) -> MetricValue:
        """The metric of a run that has a verdict (the caller checked `score.hard`)."""

    def shortfall(self, value: MetricValue, threshold: float, alpha: float) -> str | None:
        """Why `value` does not meet `threshold`, or None when it does."""
        if value.value + TOLERANCE >= threshold:
            return None
        option = self.threshold_option.lstrip("-")
        return f"{value.metric} {value.value:.3f} is below {option} {threshold:g}"
