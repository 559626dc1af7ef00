"""`agentic-eval run`: the whole evaluation of a target, with its statuses and artifacts."""

from __future__ import annotations

from pathlib import Path

import click

from evaluator.cli.grading import build_grader
from evaluator.cli.options import (
    agent_run_options,
    emit_json,
    json_option,
    repo_options,
    resolve_grader,
)
from evaluator.errors import EXIT_FAILURES, EXIT_OK, InputError
from evaluator.pipeline.progress import choose_progress
from evaluator.pipeline.run import Run, RunOptions, RunOutcome
from evaluator.sandbox import TraceMode
from evaluator.vocabulary import JudgeMode


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
    "--allow-blocked", is_flag=True, help="Blocked cases alone do not make the exit code 1."
)
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
    keep_scratch: bool,
    codex_bin: Path | None,
    auth_from: Path | None,
    sandbox: str | None,
    trace: TraceMode,
    allow_blocked: bool,
    judge_mode: JudgeMode,
    judge_model: str | None,
    judge_votes: int | None,
    lenient: bool,
    as_json: bool,
) -> int:
    """Run every selected case in fresh workspaces and judge it from the recorded sessions."""
    if resume and (run_id or suites or cases or target):
        raise click.UsageError(
            "--resume takes the plan of the run it resumes; drop --run-id/--target/--suite/--case"
        )
    check_credentials(auth_from)
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
        keep_scratch=keep_scratch,
        codex_bin=codex_bin,
        auth_from=auth_from,
        grader=resolve_grader(judge_mode, grader),
        sandbox=sandbox,
        trace=trace,
        lenient=lenient,
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
