"""`agentic-eval history`: pass-rate trends per case from `<runs root>/history.db`, flaky cases
flagged; `history import` backfills existing run directories. Also the recording that `run`,
`score` and `judge` do when they finish, which may warn but never changes their outcome."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from evaluator.cli.options import emit_json
from evaluator.errors import EXIT_OK

if TYPE_CHECKING:  # the history package (sqlite-utils, the artifact models) loads when used
    from evaluator.history.trends import CaseTrend
    from evaluator.vocabulary import Status

TREND_MARK: dict[Status, str] = {"pass": "P", "fail": "F", "blocked": "B"}
TREND_STYLE = {"P": "green", "F": "red", "B": "yellow"}
# What matters most first: a narrow terminal crops the last columns.
COLUMNS = ("case", "skill", "pass rate", "trend", "flaky", "runs", "agent set-up", "target")
SHOWN_RUNS = 20  # the trend column shows this many latest runs; --json has them all


def record_finished_run(run_dir: Path, runs_root: Path, *, create: bool = True) -> None:
    """Records a finished run in its runs root's history (without `create`, only when that
    history exists). A failure is a warning on stderr: the run's verdicts and exit code stand
    whatever happens to the history."""
    from evaluator.history.database import history_path, open_history
    from evaluator.history.record import record_run

    db_path = history_path(runs_root)
    if not create and not db_path.exists():
        return
    try:
        with open_history(db_path) as db:
            record_run(db, run_dir)
    except Exception as exc:
        click.echo(
            # The error names the database or the file it could not read.
            f"agentic-eval: warning: run {run_dir.name} not recorded in the run history: {exc}",
            err=True,
        )


@click.group("history", invoke_without_command=True)
@click.option(
    "--runs-dir",
    type=click.Path(path_type=Path, file_okay=False),
    default=Path("runs"),
    show_default=True,
    help="Runs root whose history.db is read.",
)
@click.option("--target", default=None, help="Only this target's cases.")
@click.option("--case", "case_id", default=None, help="Only this case.")
@click.option("--json", "as_json", is_flag=True, help="Print the trends as one JSON list.")
@click.pass_context
def group(
    ctx: click.Context, runs_dir: Path, target: str | None, case_id: str | None, as_json: bool
) -> int:
    """Pass-rate trend per case across recorded runs, flaky cases flagged."""
    if ctx.invoked_subcommand is not None:
        given = [
            f"--{name.replace('_', '-')}"
            for name in ("runs_dir", "target", "case_id", "as_json")
            if ctx.get_parameter_source(name) is not click.core.ParameterSource.DEFAULT
        ]
        if given:
            raise click.UsageError(
                f"{', '.join(given)} belong(s) to the trend listing, not to"
                f" `history {ctx.invoked_subcommand}`"
            )
        return EXIT_OK
    from evaluator.history.database import history_path, open_history
    from evaluator.history.trends import case_trends

    with open_history(history_path(runs_dir), create=False) as db:
        trends = case_trends(db, target, case_id)
    if as_json:
        emit_json([t.model_dump(mode="json") for t in trends])
    elif not trends:
        click.echo("no recorded results match")
    else:
        show_table(trends)
    return EXIT_OK


def _row(trend: CaseTrend) -> tuple[str, ...]:
    setup = f"{trend.agent or '-'} {trend.model or 'default-model'}"
    if trend.behaviors_dir:
        setup += f" {Path(trend.behaviors_dir).name}"
    rate = (
        "-" if trend.pass_rate is None else f"{trend.passed}/{trend.attempts} {trend.pass_rate:.2f}"
    )
    marks = "".join(TREND_MARK[p.status] for p in trend.trend[-SHOWN_RUNS:])
    case = trend.case_id
    if trend.renamed_from:
        case += f" (renamed from {', '.join(trend.renamed_from)})"
    return (
        case,
        (trend.skill_hash or "unknown")[:12],
        rate,
        marks,
        "FLAKY" if trend.flaky else "",
        str(trend.runs),
        setup,
        trend.target_id,
    )


def show_table(trends: list[CaseTrend]) -> None:
    from rich import box
    from rich.console import Console
    from rich.table import Table

    rows = [_row(t) for t in trends]
    if not sys.stdout.isatty():
        # Plain, colour-free columns for logs and pipes.
        widths = [max(len(c), *(len(r[i]) for r in rows)) for i, c in enumerate(COLUMNS)]
        for line in [COLUMNS, *rows]:
            click.echo("  ".join(v.ljust(w) for v, w in zip(line, widths, strict=True)).rstrip())
        click.echo("trend: oldest run first; P pass, F fail, B blocked")
        return
    table = Table(box=box.SIMPLE, caption="trend: oldest run first; P pass, F fail, B blocked")
    for index, name in enumerate(COLUMNS):
        if name in ("target", "agent set-up"):
            table.add_column(name, overflow="fold")  # these wrap when the terminal is narrow
        else:  # ids, hashes and figures stay whole
            width = max(len(name), *(len(row[index]) for row in rows))
            table.add_column(name, no_wrap=True, min_width=min(width, 40))
    for case, skill, rate, marks, flaky, *rest in rows:
        trend = "".join(f"[{TREND_STYLE[m]}]{m}[/]" for m in marks)
        table.add_row(case, skill, rate, trend, flaky and f"[bold yellow]{flaky}[/]", *rest)
    Console().print(table)


@group.command("import")
@click.argument("runs_dir", type=click.Path(path_type=Path, exists=True, file_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def import_command(runs_dir: Path, as_json: bool) -> int:
    """Backfill the history from existing run directories (idempotent)."""
    from evaluator.history.database import history_path, open_history
    from evaluator.history.record import import_runs, run_dirs

    root, paths = run_dirs(runs_dir)
    db_path = history_path(root)
    with open_history(db_path) as db:
        report = import_runs(db, paths)
    if as_json:
        emit_json(
            {
                "db": str(db_path),
                "recorded": report.recorded,
                "skipped": [{"path": str(p), "reason": r} for p, r in report.skipped],
            },
            EXIT_OK,
        )
        return EXIT_OK
    for _path, reason in report.skipped:
        click.echo(f"skipped {reason}")
    click.echo(f"recorded {len(report.recorded)} run(s) in {db_path}")
    return EXIT_OK
