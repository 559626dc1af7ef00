"""Stage 2: choose the target, suites and cases of a run before anything executes."""

from evaluator.plan.selection import Selection, open_repo, select_cases

__all__ = ["Selection", "open_repo", "select_cases"]
