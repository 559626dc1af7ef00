"""`agentic-eval show RUN [CASE]`: a run's results in the terminal, read from its saved files
(nothing is judged again): the run's cases with their statuses, or one case's status, blocked
reason, assertions, attempts and the paths of its artifacts."""

from __future__ import annotations

from pathlib import Path

import click

from evaluator.errors import EXIT_OK, InputError


@click.command("show")
@click.argument("run")
@click.argument("case", required=False)
@click.option(
    "--runs-dir",
    type=click.Path(path_type=Path, file_okay=False),
    default=Path("runs"),
    show_default=True,
    help="Runs root a run id is looked up in.",
)
def command(run: str, case: str | None, runs_dir: Path) -> int:
    """Show a run's cases, or one case's result: status, assertions, blocked reason, artifacts.

    RUN is a run id under --runs-dir or a run directory; CASE a case id of that run."""
    from evaluator.artifacts.rundir import unfinished_why
    from evaluator.cli.rerun import named_run

    run_dir = named_run(run, runs_dir, field="RUN")
    manifest = run_dir.read_manifest()
    results = {r.case_id: r for r in run_dir.read_case_results(manifest.resolved_case_ids or None)}
    if case is None:
        click.echo(
            f"run {run_dir.run_id}: target {manifest.target_id}, agent {manifest.agent},"
            f" {unfinished_why(run_dir.path, manifest.run_id, manifest.run_state)}; {run_dir.path}"
        )
        for case_id in manifest.resolved_case_ids or list(results):
            result = results.get(case_id)
            click.echo(
                f"  {case_id}: {_status(result.status, result.blocked_reason) if result else 'no result'}"
            )
        return EXIT_OK
    result = results.get(case)
    if result is None:
        known = ", ".join(manifest.resolved_case_ids or results) or "none"
        raise InputError(
            f"run {run_dir.run_id} has no result for case {case!r} (its cases: {known})",
            field="CASE",
        )
    click.echo(f"{case}: {_status(result.status, result.blocked_reason)}")
    if result.title:
        click.echo(f"  title: {result.title}")
    if result.case_file:
        click.echo(f"  case file: {result.case_file}")
    for note in result.notes:
        click.echo(f"  note: {note}")
    for mismatch in result.environment_mismatches:
        click.echo(f"  setup mismatch: {mismatch}")
    click.echo("  assertions:")
    for entry in result.assertions:
        decided = f" [{entry.decided_by}]" if entry.decided_by else ""
        where = entry.entry_id or entry.polarity
        click.echo(
            f"    {_status(entry.status, entry.blocked_reason)}{decided} {where}: {entry.summary}"
        )
        for note in entry.notes[:1]:
            click.echo(f"      {note}")
    if not result.assertions:
        click.echo("    none")
    click.echo("  attempts:")
    for attempt in result.attempts:
        line = f"    {attempt.attempt:02d}: {_status(attempt.status, attempt.blocked_reason)}"
        if attempt.reason:
            line += f" ({attempt.reason})"
        click.echo(line)
        if attempt.artifacts_dir:
            click.echo(f"      artifacts: {run_dir.path / attempt.artifacts_dir}")
    click.echo("  files:")
    for path in (
        run_dir.case_result_path(case),
        run_dir.case_artifacts(case) / "accepted-session.json",
        run_dir.case_artifacts(case) / "final-answer.txt",
        run_dir.path / "transcript.md",
        run_dir.path / "report.md",
    ):
        if path.is_file():
            click.echo(f"    {path}")
    return EXIT_OK


def _status(status: str | None, reason: str | None) -> str:
    shown = status or "no status"
    return f"{shown} ({reason})" if reason else shown
