"""Stage 2: choose the target, suites and cases of a run before anything executes."""

from evaluator.plan.selection import (
    Selection,
    open_repo,
    other_targets_prompts,
    resolve_target,
    select_cases,
)
from evaluator.plan.splits import case_split, filter_split

__all__ = [
    "Selection",
    "case_split",
    "filter_split",
    "open_repo",
    "other_targets_prompts",
    "resolve_target",
    "select_cases",
]
