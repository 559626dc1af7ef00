"""`agentic-eval selftest`: run every case's golden behaviours and test the assertions."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from evaluator.adapters import DEFAULT_RUNNER
from evaluator.cli.agent_flags import AgentOptionsByAdapter, agent_option_flags, runner_option
from evaluator.cli.options import (
    FiniteFloatRange,
    emit_json,
    json_option,
    repo_options,
    scratch_memory_option,
)
from evaluator.defaults import DEFAULT_SCRATCH, MAX_TIMEOUT_S
from evaluator.errors import EXIT_ENVIRONMENT, EXIT_FAILURES, EXIT_OK
from evaluator.vocabulary import ScratchMemory

if TYPE_CHECKING:  # the pipeline is imported when the command runs, not for its --help
    from evaluator.pipeline.selftest import SelftestReport


@click.command("selftest")
@repo_options
@click.option("--target", default=None, help="Target id (default: the repo default).")
@click.option("--suite", "suites", multiple=True, help="Suite id; repeat for several.")
@click.option("--case", "cases", multiple=True, help="Case id; repeat for several.")
@runner_option(
    f"The agent runner the goldens are played to, or its agent (default {DEFAULT_RUNNER})."
)
@click.option("--workers", type=click.IntRange(1, 64), default=None, help="Attempts run at once.")
@click.option(
    "--timeout",
    "timeout_s",
    type=FiniteFloatRange(min=1, max=MAX_TIMEOUT_S),
    default=None,
    help="Seconds per attempt.",
)
@click.option(
    "--runs-dir",
    type=click.Path(path_type=Path, file_okay=False),
    default=Path("runs"),
    show_default=True,
)
@click.option(
    "--scratch-root",
    type=click.Path(path_type=Path, file_okay=False),
    default=DEFAULT_SCRATCH,
    show_default=True,
    help="Workspaces and agent homes (not under /tmp).",
)
@scratch_memory_option
@agent_option_flags
@json_option
def command(
    repo: Path,
    source_workspace: Path | None,
    target: str | None,
    suites: tuple[str, ...],
    cases: tuple[str, ...],
    agent: str | None,
    workers: int | None,
    timeout_s: float | None,
    runs_dir: Path,
    scratch_root: Path,
    scratch_memory: ScratchMemory,
    agent_options: AgentOptionsByAdapter,
    as_json: bool,
) -> int:
    """Check that each case's assertions tell its golden behaviours apart. Exit 1 if not."""
    if scratch_memory != "off":
        from evaluator.workspace.memory import enter_private_mounts

        enter_private_mounts()  # first, while the command has one thread
    from evaluator.pipeline.progress import choose_progress
    from evaluator.pipeline.selftest import SelftestOptions, run_selftest

    options = SelftestOptions(
        repo=repo,
        source_workspace=source_workspace,
        target=target,
        suites=suites,
        cases=cases,
        workers=workers,
        timeout_s=timeout_s,
        runs_dir=runs_dir,
        scratch_root=scratch_root,
        scratch_memory=scratch_memory,
        agent_options=agent_options,
        agent=agent,
    )
    report = run_selftest(options, lambda: choose_progress(as_json))
    # As `run`: a golden an outage of the agent's model or tooling blocked got no verdict, so the
    # self-test could not tell whether the assertions separate it: the machine's error.
    outages = report.outages()
    code = EXIT_ENVIRONMENT if outages else EXIT_OK if report.ok else EXIT_FAILURES
    if as_json:
        # `selftest_id` and `directory` were its first names (docs/cli.md): kept.
        names = {"run_id": report.selftest_id, "run_dir": report.directory}
        emit_json({**report.as_json(), **names}, code)
    else:
        print_report(report)
        if outages:
            named = ", ".join(f"{g.case_id} ({g.behavior})" for g in outages[:5])
            click.echo(
                f"exit {code}: the agent's model or tooling failed on {len(outages)} golden"
                f" behaviour(s), which got no verdict: {named}"
                + (", ..." if len(outages) > 5 else "")
                + "; this is not a result of the assertions: fix the agent's set-up and run again"
            )
    return code


def print_report(report: SelftestReport) -> None:
    rows = [("case", "golden behaviour", "expect", "got", "")]
    for golden in report.goldens:
        got: str = golden.status or "not run"
        if golden.blocked_reason:
            got += f" ({golden.blocked_reason})"
        rows.append(
            (
                golden.case_id,
                golden.behavior,
                golden.expect,
                got,
                "" if golden.matches else "STEP FAILED" if golden.misscripted else "MISMATCH",
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    click.echo("")
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row[:4], widths, strict=True)]
        click.echo("  ".join([*cells, row[4]]).rstrip())
    misscripted = report.misscripted()
    if misscripted:
        click.echo(
            "\ngolden behaviours that did not do what they script (fix the behaviour, not the"
            " assertions):"
        )
        for golden in misscripted:
            click.echo(f"  {golden.case_id} {golden.behavior}:")
            for step in golden.failed_steps:
                click.echo(f"    {step}")
    if report.non_separating_cases():
        click.echo(
            "\ncases whose assertions do not separate good from bad behaviour: "
            + ", ".join(report.non_separating_cases())
        )
    vacuous = report.vacuous()
    if vacuous:
        click.echo("\nassertions no golden behaviour fails (they test nothing):")
        for entry in vacuous:
            click.echo(f"  {entry.case_id} {entry.polarity}[{entry.index}]: {entry.description}")
    unchecked = [e for e in report.entries if e.not_started]
    if unchecked:
        click.echo(
            "\nassertions not checked here (every golden of their case was blocked before its"
            " agent started: a setup or need this machine lacks):"
        )
        for entry in unchecked:
            click.echo(f"  {entry.case_id} {entry.polarity}[{entry.index}]: {entry.description}")
    mismatches = len(report.mismatches())
    state = " (interrupted)" if report.interrupted else ""
    click.echo(
        f"\n{len(report.goldens)} golden behaviour(s), {mismatches} mismatch(es),"
        f" {len(vacuous)} vacuous assertion(s){state}"
    )
    if report.cases_without_golden:
        click.echo(f"cases without golden behaviours: {', '.join(report.cases_without_golden)}")
    click.echo(f"selftest: {report.directory}")
