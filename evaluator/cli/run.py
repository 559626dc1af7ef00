"""`agentic-eval run`: the whole evaluation of a target, with its statuses and artifacts."""

from __future__ import annotations

from pathlib import Path

import click

from evaluator.agents import runner_names
from evaluator.cli.grading import build_grader, grader_options
from evaluator.cli.options import emit_json, json_option, repo_options
from evaluator.errors import EXIT_FAILURES, EXIT_OK
from evaluator.pipeline.progress import choose_progress
from evaluator.pipeline.run import DEFAULT_SCRATCH, Run, RunOptions, RunOutcome


@click.command("run")
@repo_options
@click.option("--target", default=None, help="Target id (default: the repo default).")
@click.option("--suite", "suites", multiple=True, help="Suite id; repeat for several.")
@click.option("--case", "cases", multiple=True, help="Case id; repeat for several.")
@click.option(
    "--agent",
    type=click.Choice(runner_names()),
    default=None,
    help="Agent runner (default codex-exec).",
)
@click.option(
    "--attempts", type=click.IntRange(1, 100), default=None, help="Attempts per case (default 1)."
)
@click.option("--workers", type=click.IntRange(1, 64), default=None, help="Attempts run at once.")
@click.option(
    "--timeout",
    "timeout_s",
    type=click.FloatRange(min=1),
    default=None,
    help="Seconds per attempt.",
)
@click.option("--run-id", default=None, help="Name of the run directory (default: time-based).")
@click.option(
    "--resume", default=None, help="Finish an interrupted run: only cases without a result."
)
@click.option("--model", default=None, help="Model name passed to the agent.")
@click.option(
    "--behaviors",
    type=click.Path(path_type=Path, file_okay=False, exists=True),
    default=None,
    help="Run against the scripted model server with these behaviours.",
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
@click.option("--codex-bin", type=click.Path(path_type=Path, dir_okay=False), default=None)
@click.option(
    "--auth-from",
    type=click.Path(path_type=Path, file_okay=False, exists=True),
    default=None,
    help="Copy only auth.json from this Codex home (real models).",
)
@click.option(
    "--allow-blocked", is_flag=True, help="Blocked cases alone do not make the exit code 1."
)
@grader_options
@json_option
def command(
    repo: Path,
    source_workspace: Path | None,
    target: str | None,
    suites: tuple[str, ...],
    cases: tuple[str, ...],
    agent: str | None,
    attempts: int | None,
    workers: int | None,
    timeout_s: float | None,
    run_id: str | None,
    resume: str | None,
    model: str | None,
    behaviors: Path | None,
    runs_dir: Path,
    scratch_root: Path,
    codex_bin: Path | None,
    auth_from: Path | None,
    allow_blocked: bool,
    judge_model: str | None,
    judge_votes: int | None,
    as_json: bool,
) -> int:
    """Run every selected case in fresh workspaces and judge it from the recorded sessions."""
    if resume and (run_id or suites or cases or target):
        raise click.UsageError(
            "--resume takes the plan of the run it resumes; drop --run-id/--target/--suite/--case"
        )
    grader = build_grader(
        judge_model,
        judge_votes,
        behaviors=behaviors,
        codex_bin=codex_bin,
        auth_from=auth_from,
        scratch_root=scratch_root,
    )
    options = RunOptions(
        repo=repo,
        source_workspace=source_workspace,
        target=target,
        suites=suites,
        cases=cases,
        agent=agent,
        attempts=attempts,
        workers=workers,
        timeout_s=timeout_s,
        run_id=run_id,
        resume=resume,
        model=model,
        behaviors=behaviors,
        runs_dir=runs_dir,
        scratch_root=scratch_root,
        codex_bin=codex_bin,
        auth_from=auth_from,
        grader=grader,
    )
    try:
        outcome = Run(options, choose_progress(as_json)).execute()
    finally:
        if grader is not None:
            grader.close()
    code = exit_code(outcome, allow_blocked)
    if as_json:
        emit_json(summary(outcome, code))
    else:
        print_summary(outcome)
    return code


def exit_code(outcome: RunOutcome, allow_blocked: bool) -> int:
    counts = outcome.counts()
    if outcome.interrupted or counts["fail"]:
        return EXIT_FAILURES
    if counts["blocked"] and not allow_blocked:
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
