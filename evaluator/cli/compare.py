"""`agentic-eval compare`: classify every case of a candidate run against a base run."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from evaluator.cli.ci_output import junit_option, report_comparison
from evaluator.cli.options import FiniteFloatRange, emit_json, json_option
from evaluator.defaults import DEFAULT_ALPHA, DEFAULT_MIN_COVERAGE
from evaluator.errors import EXIT_ENVIRONMENT, EXIT_FAILURES, EXIT_OK

if TYPE_CHECKING:
    from evaluator.compare.model import Comparison

RUN_DIR = click.Path(path_type=Path, file_okay=False)


@click.command("compare")
@click.argument("base", type=RUN_DIR)
@click.argument("candidate", type=RUN_DIR)
@click.option(
    "--alpha",
    type=FiniteFloatRange(0, 1, min_open=True, max_open=True),
    default=DEFAULT_ALPHA,
    show_default=True,
    help="Significance level of the one-sided exact (Boschloo) test on pass counts (K > 1).",
)
@click.option(
    "--allow-different-cases",
    is_flag=True,
    help="Compare runs of different targets, skills or case definitions anyway.",
)
@click.option(
    "--min-coverage",
    type=FiniteFloatRange(0, 1),
    default=DEFAULT_MIN_COVERAGE,
    show_default=True,
    help="Least share of the cases in both runs decided on both sides; below it, exit 3.",
)
@junit_option
@json_option
def command(
    base: Path,
    candidate: Path,
    alpha: float,
    allow_different_cases: bool,
    min_coverage: float,
    junit: Path | None,
    as_json: bool,
) -> int:
    """Compare CANDIDATE with BASE (run dirs); exit 1 on any regression."""
    # the comparison and its renderers are imported when the command runs, not for its --help
    from evaluator.compare.build import compare_runs
    from evaluator.compare.write import write_comparison
    from evaluator.html.comparison_page import write_comparison_html

    comparison = compare_runs(
        base,
        candidate,
        alpha=alpha,
        allow_different_cases=allow_different_cases,
        min_coverage=min_coverage,
    )
    json_path, markdown_path = write_comparison(comparison, candidate)
    write_comparison_html(comparison, candidate)
    report_comparison(comparison, markdown_path, junit)
    # A regression is one however little was compared; no regression is a result only over
    # enough cases (an outage on one side is `environment-divergence` on every case).
    if comparison.has_regression:
        code = EXIT_FAILURES
    else:
        code = EXIT_ENVIRONMENT if comparison.below_coverage else EXIT_OK
    if as_json:
        emit_json(comparison.model_dump(mode="json"), code)
    else:
        print_comparison(comparison, json_path, markdown_path)
    return code


def print_comparison(comparison: Comparison, json_path: Path, markdown_path: Path) -> None:
    from evaluator.compare.markdown import (
        SECTION_ORDER,
        coverage_text,
        flip_line,
        headline,
        side_text,
    )

    width = max((len(c.case_id) for c in comparison.cases), default=10)
    shown = [c for name in SECTION_ORDER for c in comparison.cases if c.classification == name]
    for case in shown:
        click.echo(
            f"{case.case_id:<{width}}  {case.classification:<22}  {side_text(case.base)} →"
            f" {side_text(case.candidate)}  ({case.reason})"
            + (f" (renamed from {case.renamed_from})" if case.renamed_from else "")
        )
        for flip in case.assertion_flips:
            click.echo(f"{'':<{width}}    {flip_line(flip)}")
    unchanged = len(comparison.cases) - len(shown)
    if unchanged:
        # Only the classes that occur, with their counts: "5 same-fail, 2 same-blocked".
        counts = ", ".join(
            f"{n} {name}"
            for name, n in comparison.counts.items()
            if n and name not in SECTION_ORDER
        )
        click.echo(f"{chr(10) if shown else ''}{unchanged} case(s) unchanged: {counts}")
    click.echo(comparison.method)
    if comparison.setting_differences:
        click.echo(
            "run with different settings (a change may be theirs, not the skill's): "
            + "; ".join(comparison.setting_differences)
        )
    click.echo(f"compared: {coverage_text(comparison)}")
    click.echo(f"comparison: {json_path} ({markdown_path.name})")
    click.echo(f"COMPARE: {headline(comparison)}")
