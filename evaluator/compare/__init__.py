"""Comparing a candidate run with a base run, case by case, with statistics over K attempts."""

from evaluator.compare.build import compare_runs
from evaluator.compare.classify import classify
from evaluator.compare.model import AssertionFlip, CaseComparison, CaseSide, Comparison, RunSummary
from evaluator.compare.write import write_comparison
from evaluator.defaults import DEFAULT_ALPHA

__all__ = [
    "DEFAULT_ALPHA",
    "AssertionFlip",
    "CaseComparison",
    "CaseSide",
    "Comparison",
    "RunSummary",
    "classify",
    "compare_runs",
    "write_comparison",
]
