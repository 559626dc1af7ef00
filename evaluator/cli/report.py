"""`agentic-eval report RUN_DIR [--html]`: re-render a run's reports from its saved results."""

from __future__ import annotations

from pathlib import Path

import click

from evaluator.errors import EXIT_OK


@click.command("report")
@click.argument("run_dir", type=click.Path(path_type=Path, file_okay=False, exists=True))
@click.option(
    "--html",
    "html_only",
    is_flag=True,
    help="Only rewrite report.html (self-contained, for a browser) and print its path.",
)
def command(run_dir: Path, html_only: bool) -> int:
    """Rewrite report.md, transcript.md and report.html of a run from its saved results (and
    comparison.html when the run has a comparison.json)."""
    # the artifacts and renderers are imported when the command runs, not for its --help
    from evaluator.artifacts.models import UNFINISHED_STATES
    from evaluator.artifacts.rundir import RunDir, RunLock, lock_held, unfinished_why
    from evaluator.errors import InputError
    from evaluator.html.comparison_page import rewrite_comparison_html
    from evaluator.html.run_page import write_run_html
    from evaluator.pipeline.run import write_reports

    directory = RunDir(run_dir)
    manifest = directory.read_manifest()
    if lock_held(run_dir):
        # The run writes its reports (and skill-creator's files, rebuilt whole) when it ends:
        # a second writer meanwhile, as `judge` is refused. Read, never taken (a probe could
        # refuse the run's own resume).
        holder = (run_dir / RunLock.name).read_text(encoding="utf-8").strip() or "pid unknown"
        raise InputError(
            f"run directory {run_dir} is in use by another agentic-eval ({holder});"
            " report it when the run has ended (it writes its reports then)"
        )
    if manifest.run_state in UNFINISHED_STATES:
        # Its report says "Run state: running" whether an evaluator still runs it or it was
        # killed: say which, since only the second is the user's to finish.
        why = unfinished_why(run_dir, manifest.run_id, manifest.run_state)
        click.echo(f"agentic-eval: note: the run is {why}", err=True)
    if html_only:
        results = directory.read_case_results(manifest.resolved_case_ids)
        click.echo(str(write_run_html(directory, manifest, results)))
    else:
        write_reports(directory, manifest)
        click.echo(str(run_dir / "report.md"))
    comparison = rewrite_comparison_html(run_dir)
    if comparison is not None:
        click.echo(str(comparison))
    return EXIT_OK
