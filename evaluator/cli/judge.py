"""`agentic-eval judge RUN_DIR`: re-judge every finished case from its saved evidence."""

from __future__ import annotations

from pathlib import Path

import click

from evaluator.cli.grading import build_grader, grader_options
from evaluator.cli.options import emit_json, json_option
from evaluator.errors import EXIT_FAILURES, EXIT_OK
from evaluator.pipeline.rejudge import rejudge_run


@click.command("judge")
@click.argument("run_dir", type=click.Path(path_type=Path, file_okay=False, exists=True))
@grader_options
@click.option(
    "--behaviors",
    type=click.Path(path_type=Path, file_okay=False, exists=True),
    default=None,
    help="Answer judge prompts with the scripted model server playing these behaviours.",
)
@json_option
def command(
    run_dir: Path,
    judge_model: str | None,
    judge_votes: int | None,
    behaviors: Path | None,
    as_json: bool,
) -> int:
    """Judge again (after editing assertions) without re-running agents."""
    if behaviors is not None and judge_model is None:
        raise click.UsageError("--behaviors needs --judge-model (it scripts the judge's model)")
    grader = build_grader(judge_model, judge_votes, behaviors=behaviors)
    try:
        results = rejudge_run(run_dir, grader)
    finally:
        if grader is not None:
            grader.close()
    if as_json:
        emit_json(
            {
                "cases": [
                    {"case_id": r.case_id, "status": r.status, "blocked_reason": r.blocked_reason}
                    for r in results
                ]
            }
        )
    else:
        for result in results:
            reason = f" ({result.blocked_reason})" if result.blocked_reason else ""
            click.echo(f"{result.case_id}: {result.status}{reason}")
    return EXIT_OK if all(r.status == "pass" for r in results) else EXIT_FAILURES
