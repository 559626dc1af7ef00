"""`agentic-eval report RUN_DIR`: re-render report.md and transcript.md from saved results."""

from __future__ import annotations

from pathlib import Path

import click

from evaluator.artifacts.rundir import RunDir
from evaluator.errors import EXIT_OK
from evaluator.pipeline.run import write_reports


@click.command("report")
@click.argument("run_dir", type=click.Path(path_type=Path, file_okay=False, exists=True))
def command(run_dir: Path) -> int:
    """Rewrite report.md and transcript.md of a run from its saved results."""
    directory = RunDir(run_dir)
    write_reports(directory, directory.read_manifest())
    click.echo(str(run_dir / "report.md"))
    return EXIT_OK
