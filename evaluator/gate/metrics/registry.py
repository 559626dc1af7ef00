"""Metric names and the module that implements each; a module is imported when its metric is
used, so listing the names (a command's options) imports no statistics library."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from evaluator.errors import InputError

if TYPE_CHECKING:
    from evaluator.gate.metrics.base import Metric

# One line per metric; a module registers its class with `@register_metric`.
METRIC_MODULES: dict[str, str] = {
    "hard": "evaluator.gate.metrics.hard",
    "soft": "evaluator.gate.metrics.soft",
    "mixed": "evaluator.gate.metrics.mixed",
    "uplift": "evaluator.gate.metrics.uplift",
    "trigger-f1": "evaluator.gate.metrics.trigger_f1",
}
METRIC_NAMES: tuple[str, ...] = tuple(METRIC_MODULES)

_REGISTERED: dict[str, Metric] = {}


def register_metric(cls: type[Metric]) -> type[Metric]:
    if cls.name not in METRIC_MODULES:
        raise ValueError(f"metric {cls.name!r} is not in METRIC_MODULES")
    _REGISTERED[cls.name] = cls()
    return cls


def check_baseline(name: str, baseline: object | None) -> None:
    """A metric that needs a baseline run gets one, and no other metric takes one."""
    needs = get_metric(name).needs_baseline
    if needs and baseline is None:
        raise InputError(f"--metric {name} needs --baseline-run", field="--baseline-run")
    if baseline is not None and not needs:
        raise InputError(f"--metric {name} takes no baseline run", field="--baseline-run")


def get_metric(name: str) -> Metric:
    if name not in METRIC_MODULES:
        known = ", ".join(METRIC_NAMES)
        raise ValueError(f"unknown metric {name!r}; expected one of {known}")
    importlib.import_module(METRIC_MODULES[name])
    return _REGISTERED[name]
