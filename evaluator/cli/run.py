"""`agentic-eval run`: the whole evaluation of a target, with its statuses and artifacts."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from evaluator.cli.agent_run import AgentRunArgs, agent_run_options
from evaluator.cli.ci_output import junit_option, report_run
from evaluator.cli.history import record_finished_run
from evaluator.cli.options import emit_json, json_option, repo_options
from evaluator.errors import EXIT_FAILURES, EXIT_OK, InputError

if TYPE_CHECKING:  # the pipeline is imported when the command runs, not for its --help
    from evaluator.pipeline.run import RunOutcome


@click.command("run")
@repo_options
@click.option("--target", default=None, help="Target id (default: the repo default).")
@click.option("--suite", "suites", multiple=True, help="Suite id; repeat for several.")
@click.option("--case", "cases", multiple=True, help="Case id; repeat for several.")
@click.option(
    "--attempts", type=click.IntRange(1, 100), default=None, help="Attempts per case (default 1)."
)
@click.option(
    "--resume", default=None, help="Finish an interrupted run: only cases without a result."
)
@agent_run_options
@click.option(
    "--executor",
    type=click.Choice(["local", "ray"]),
    default="local",
    help="Where attempts run: local (a pool here) or ray (Ray tasks; the ray extra).",
)
@click.option(
    "--ray-address",
    default=None,
    help="Ray cluster to join with --executor ray (default: start one here).",
)
@click.option(
    "--allow-blocked", is_flag=True, help="Blocked cases alone do not make the exit code 1."
)
@junit_option
@json_option
def command(
    repo: Path,
    source_workspace: Path | None,
    target: str | None,
    suites: tuple[str, ...],
    cases: tuple[str, ...],
    attempts: int | None,
    resume: str | None,
    run_args: AgentRunArgs,
    executor: str,
    ray_address: str | None,
    allow_blocked: bool,
    junit: Path | None,
    as_json: bool,
) -> int:
    """Run every selected case in fresh workspaces and judge it from the recorded sessions."""
    if resume and (run_args.run_id or suites or cases or target):
        raise click.UsageError(
            "--resume takes the plan of the run it resumes; drop --run-id/--target/--suite/--case"
        )
    check_credentials(run_args.auth_from)
    from evaluator.pipeline.progress import choose_progress
    from evaluator.pipeline.run import Run, RunOptions

    options = RunOptions(
        repo=repo,
        source_workspace=source_workspace,
        target=target,
        suites=suites,
        cases=cases,
        attempts=attempts,
        resume=resume,
        executor=executor,
        ray_address=ray_address,
    )
    run_args.apply(options)
    with run_args.grader() as grader:
        options.grader = grader
        outcome = Run(options, choose_progress(as_json)).execute()
    record_finished_run(outcome.run_dir.path, options.runs_dir)
    code = exit_code(outcome, allow_blocked)
    report_run("run", outcome, junit)
    if as_json:
        emit_json(summary(outcome, code))
    else:
        print_summary(outcome)
    return code


def check_credentials(auth_from: Path | None) -> None:
    """A `--auth-from` folder must hold the file we copy from it (no credentials at all is
    checked by the run once the plan stands)."""
    if auth_from is not None and not (auth_from / "auth.json").is_file():
        raise InputError(
            "no auth.json in this folder (log in there with `codex login`, or set OPENAI_API_KEY)",
            path=auth_from,
            field="--auth-from",
        )


def exit_code(outcome: RunOutcome, allow_blocked: bool) -> int:
    counts = outcome.counts()
    if outcome.interrupted or counts["fail"]:
        return EXIT_FAILURES
    if counts["blocked"] and not allow_blocked:
        return EXIT_FAILURES
    if not counts["pass"]:
        # --allow-blocked forgives blocked cases beside passes, never a run that proved nothing.
        return EXIT_FAILURES
    return EXIT_OK


def summary(outcome: RunOutcome, code: int) -> dict[str, object]:
    judged = outcome.counts()["pass"] + outcome.counts()["fail"]
    return {
        "run_id": outcome.run_dir.run_id,
        "run_dir": str(outcome.run_dir.path),
        "run_state": outcome.manifest.run_state,
        "counts": outcome.counts(),
        "pass_rate": outcome.counts()["pass"] / judged if judged else None,
        "exit_code": code,
        "report": str(outcome.run_dir.path / "report.md"),
        "cases": [
            {
                "case_id": r.case_id,
                "status": r.status,
                "blocked_reason": r.blocked_reason,
                "pass_rate": r.stats.pass_rate if r.stats else None,
            }
            for r in outcome.results
        ],
    }


def print_summary(outcome: RunOutcome) -> None:
    width = max((len(r.case_id) for r in outcome.results), default=10)
    click.echo("")
    for result in outcome.results:
        reason = f" ({result.blocked_reason})" if result.blocked_reason else ""
        click.echo(f"{result.case_id:<{width}}  {result.status}{reason}")
    counts = outcome.counts()
    state = (
        " (interrupted; resume with --resume " + outcome.run_dir.run_id + ")"
        if outcome.interrupted
        else ""
    )
    click.echo(
        f"\npass {counts['pass']}, fail {counts['fail']}, blocked {counts['blocked']}{state}"
    )
    click.echo(f"report: {outcome.run_dir.path / 'report.md'}")
