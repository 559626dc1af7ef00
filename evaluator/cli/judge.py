"""`agentic-eval judge RUN_DIR`: re-judge every finished case from its saved evidence."""

from __future__ import annotations

from pathlib import Path

import click

from evaluator.cli.options import emit_json, json_option, judge_option, resolve_grader
from evaluator.errors import EXIT_FAILURES, EXIT_OK
from evaluator.pipeline.rejudge import rejudge_run
from evaluator.vocabulary import JudgeMode


@click.command("judge")
@click.argument("run_dir", type=click.Path(path_type=Path, file_okay=False, exists=True))
@judge_option
@json_option
def command(run_dir: Path, judge_mode: JudgeMode, as_json: bool) -> int:
    """Judge again (after editing assertions) without re-running agents."""
    results = rejudge_run(run_dir, grader=resolve_grader(judge_mode, None))
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
