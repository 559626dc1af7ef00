"""`--junit FILE` and the GitHub step summary, shared by `run`, `score` and `compare`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from evaluator.ci.junit_compare import comparison_junit
from evaluator.ci.junit_run import run_junit, write_junit
from evaluator.ci.step_summary import append_step_summary, comparison_summary, run_summary
from evaluator.compare.model import Comparison
from evaluator.pipeline.run import RunOutcome

F = TypeVar("F", bound=Callable[..., Any])


def junit_option(func: F) -> F:
    return click.option(
        "--junit",
        type=click.Path(path_type=Path, dir_okay=False),
        default=None,
        help="Also write a JUnit XML report here: one testcase per case.",
    )(func)


def report_run(
    command: str, outcome: RunOutcome, junit: Path | None, verdict: str | None = None
) -> None:
    run_id, run_dir = outcome.run_dir.run_id, outcome.run_dir.path
    if junit is not None:
        xml = run_junit(run_id, run_dir, outcome.manifest.target_id, outcome.results)
        write_junit(xml, junit)
    append_step_summary(run_summary(command, run_id, run_dir, outcome.results, verdict))


def report_comparison(comparison: Comparison, markdown_path: Path, junit: Path | None) -> None:
    if junit is not None:
        write_junit(comparison_junit(comparison), junit)
    append_step_summary(comparison_summary(comparison, markdown_path))
