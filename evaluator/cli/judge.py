"""`agentic-eval judge RUN_DIR`: re-judge every finished case from its saved evidence."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from evaluator.cli.agent_flags import AgentOptionsByAdapter, agent_option_flags
from evaluator.cli.grading import build_grader, grader_options, judge_options
from evaluator.cli.history import record_finished_run
from evaluator.cli.options import emit_json, json_option, judge_option, resolve_grader
from evaluator.defaults import DEFAULT_SCRATCH
from evaluator.errors import EXIT_ENVIRONMENT, EXIT_FAILURES, EXIT_OK
from evaluator.vocabulary import JudgeMode

if TYPE_CHECKING:
    from evaluator.artifacts.models import CaseResult


@click.command("judge")
@click.argument("run_dir", type=click.Path(path_type=Path, file_okay=False, exists=True))
@judge_option
@grader_options
@click.option(
    "--behaviors",
    type=click.Path(path_type=Path, file_okay=False, exists=True),
    default=None,
    help="Answer judge prompts with the scripted model server playing these behaviours.",
)
@click.option(
    "--scratch-root",
    type=click.Path(path_type=Path, file_okay=False),
    default=DEFAULT_SCRATCH,
    show_default=True,
    help="Where the model judge's evidence bundles and homes live (not under /tmp).",
)
# Every adapter's short flags: any agent's CLI may play the judge (`--judge-agent`).
@agent_option_flags
@click.option(
    "--auth-from",
    type=click.Path(path_type=Path, file_okay=False, exists=True),
    default=None,
    help="Copy only the login file from this agent home (a real judge model).",
)
@json_option
def command(
    run_dir: Path,
    judge_mode: JudgeMode,
    judge_model: str | None,
    judge_agent: str | None,
    judge_votes: int | None,
    judge_base_url: str | None,
    judge_api_key_env: str | None,
    behaviors: Path | None,
    scratch_root: Path,
    agent_options: AgentOptionsByAdapter,
    auth_from: Path | None,
    as_json: bool,
) -> int:
    """Judge again (after editing assertions) without re-running agents."""
    if behaviors is not None and judge_model is None:
        raise click.UsageError("--behaviors needs --judge-model (it scripts the judge's model)")
    grader = build_grader(
        judge_model,
        judge_votes,
        judge_agent=judge_agent,
        behaviors=behaviors,
        judge_agent_options=judge_options(agent_options, judge_agent=judge_agent),
        auth_from=auth_from,
        scratch_root=scratch_root,
        base_url=judge_base_url,
        api_key_env=judge_api_key_env,
        mode=judge_mode,
    )
    # the pipeline is imported when the command runs, not for its --help
    from evaluator.pipeline.rejudge import rejudge_run

    try:
        results = rejudge_run(run_dir, grader=resolve_grader(judge_mode, grader))
    finally:
        if grader is not None:
            grader.close()
    # The verdicts changed: a history that holds this run is brought up to date.
    record_finished_run(run_dir, run_dir.parent, create=False)
    # As for `run`: nothing judged, or nothing passed, is never a success; a case an outage of
    # the agent blocked (its attempts are kept) makes the run no result at all: exit 3.
    from evaluator.cli.run import outage_reason

    passed = bool(results) and all(r.status == "pass" for r in results)
    outage = outage_reason(results)
    code = EXIT_ENVIRONMENT if outage else EXIT_OK if passed else EXIT_FAILURES
    if as_json:
        emit_json(
            {
                "run_id": run_dir.name,
                "run_dir": str(run_dir),
                "cases": [
                    {"case_id": r.case_id, "status": r.status, "blocked_reason": r.blocked_reason}
                    for r in results
                ],
            },
            code,
        )
    else:
        for result in results:
            reason = f" ({result.blocked_reason})" if result.blocked_reason else ""
            click.echo(f"{result.case_id}: {result.status}{reason}")
        headline = _headline(run_dir, results)
        if headline is not None:
            click.echo(f"verified pass rate: {headline}")
        if outage is not None:
            click.echo(f"exit {code}: {outage}")
    return code


def _headline(run_dir: Path, results: list[CaseResult]) -> str | None:
    """The report's summary line, as `run` prints it; None for a trigger run (its line is the
    prompts') or a run whose manifest cannot be read."""
    from evaluator.artifacts.attribution import score_run
    from evaluator.artifacts.rundir import RunDir
    from evaluator.artifacts.trigger_report import TRIGGERS_FILE
    from evaluator.errors import EvalError

    if (run_dir / TRIGGERS_FILE).is_file():
        return None
    try:
        selected = len(RunDir(run_dir).read_manifest().resolved_case_ids)
    except EvalError:
        return None
    return score_run(results, selected).headline()
