"""`--junit FILE` and the GitHub step summary, shared by `run`, `score` and `compare`."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

if TYPE_CHECKING:  # the models are imported by the commands that produce them
    from evaluator.compare.model import Comparison
    from evaluator.pipeline.run import RunOutcome

F = TypeVar("F", bound=Callable[..., Any])


def _writable_file(_ctx: click.Context, _param: click.Parameter, value: Path | None) -> Path | None:
    """Checked before anything runs: a run must not end in a file it cannot write."""
    if value is None:
        return None
    existing = value.resolve().parent
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent  # missing directories are created when the file is written
    if not existing.is_dir() or not os.access(existing, os.W_OK):
        raise click.BadParameter(f"{existing} is not a writable directory")
    return value


def junit_option(func: F) -> F:
    return click.option(
        "--junit",
        type=click.Path(path_type=Path, dir_okay=False),
        default=None,
        callback=_writable_file,
        help="Also write a JUnit XML report here: one testcase per case.",
    )(func)


def _attempt(what: str, write: Callable[[], object]) -> None:
    """CI outputs come after the verdict: failing to write one is a warning, never a lost
    verdict or exit code."""
    try:
        write()
    except OSError as exc:
        click.echo(f"agentic-eval: warning: {what} not written: {exc}", err=True)


def report_run(
    command: str, outcome: RunOutcome, junit: Path | None, verdict: str | None = None
) -> None:
    from evaluator.ci.junit_run import run_junit, write_junit
    from evaluator.ci.step_summary import append_step_summary, run_summary

    run_id, run_dir = outcome.run_dir.run_id, outcome.run_dir.path
    if junit is not None:
        xml = run_junit(run_id, run_dir, outcome.manifest.target_id, outcome.results)
        _attempt(f"JUnit file {junit}", lambda: write_junit(xml, junit))
    markdown = run_summary(command, run_id, run_dir, outcome.results, verdict)
    _attempt("GitHub step summary", lambda: append_step_summary(markdown))


def report_comparison(comparison: Comparison, markdown_path: Path, junit: Path | None) -> None:
    from evaluator.ci.junit_compare import comparison_junit
    from evaluator.ci.junit_run import write_junit
    from evaluator.ci.step_summary import append_step_summary, comparison_summary

    if junit is not None:
        _attempt(f"JUnit file {junit}", lambda: write_junit(comparison_junit(comparison), junit))
    markdown = comparison_summary(comparison, markdown_path)
    _attempt("GitHub step summary", lambda: append_step_summary(markdown))
