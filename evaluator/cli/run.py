"""`agentic-eval run`: the whole evaluation of a target, with its statuses and artifacts."""

from __future__ import annotations

from collections.abc import Sequence, Sized
from pathlib import Path
from typing import TYPE_CHECKING

import click

from evaluator.cli.agent_run import AgentRunArgs, agent_run_options
from evaluator.cli.ci_output import junit_option, report_run
from evaluator.cli.history import record_finished_run
from evaluator.cli.options import (
    emit_json,
    evals_options,
    evals_repo,
    executor_options,
    json_option,
    repo_options,
    show_load_warnings,
)
from evaluator.errors import EXIT_ENVIRONMENT, EXIT_FAILURES, EXIT_OK

if TYPE_CHECKING:  # the pipeline is imported when the command runs, not for its --help
    from evaluator.artifacts.models import CaseResult
    from evaluator.pipeline.run import RunOutcome


@click.command("run")
@repo_options
@evals_options
@click.option("--target", default=None, help="Target id (default: the repo default).")
@click.option("--suite", "suites", multiple=True, help="Suite id; repeat for several.")
@click.option("--case", "cases", multiple=True, help="Case id; repeat for several.")
@click.option(
    "--include-deferred",
    is_flag=True,
    help="Also run the target's deferred cases (deferred-cases/); naming one with --case or"
    " --suite runs it too.",
)
@click.option(
    "--attempts",
    type=click.IntRange(1, 100),
    default=None,
    help="Attempts per case (default: the case's attempts, else the target's, else 1).",
)
@click.option(
    "--resume", default=None, help="Finish an interrupted run: only cases without a result."
)
@click.option(
    "--rerun-failed",
    "rerun_failed",
    default=None,
    metavar="RUN",
    help="Run again, as a new run, only the cases of RUN (a run id under --runs-dir, or its"
    " directory) that failed or were blocked: on its target and agent unless --target/--agent"
    " name others.",
)
@agent_run_options
@executor_options
@click.option(
    "--allow-blocked",
    is_flag=True,
    help="Cases blocked by the eval or the machine (not by the agent) do not make the exit code 1.",
)
@junit_option
@json_option
def command(
    repo: Path,
    source_workspace: Path | None,
    evals: Path | None,
    skill: Path | None,
    target: str | None,
    suites: tuple[str, ...],
    cases: tuple[str, ...],
    include_deferred: bool,
    attempts: int | None,
    resume: str | None,
    rerun_failed: str | None,
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
    if rerun_failed is not None:
        if resume or suites or cases or include_deferred:
            raise click.UsageError(
                "--rerun-failed takes its cases from the run it names; drop"
                " --resume/--suite/--case/--include-deferred"
            )
        from evaluator.cli.rerun import rerun_plan

        plan = rerun_plan(rerun_failed, run_args.runs_dir)
        if not plan.cases:
            click.echo(f"nothing to rerun: no case of run {plan.run_id} failed or was blocked")
            return EXIT_OK
        cases, target = plan.cases, target or plan.target
        run_args.agent = run_args.agent or plan.agent
        if not (run_args.behaviors or run_args.model or run_args.base_url):
            # The same model as the run's, unless the user names another.
            run_args.behaviors, run_args.model = plan.behaviors, plan.model
            run_args.base_url, run_args.api_key_env = plan.base_url, plan.api_key_env
        if plan.judge is not None and not run_args.judge_named():
            run_args.take_judge(plan.judge)  # the same judge, unless the user names one
        click.echo(
            f"rerunning {len(cases)} case(s) of run {plan.run_id} that failed or were blocked:"
            f" {', '.join(cases)}",
            err=True,
        )
    if run_args.auth_from is not None:
        from evaluator.adapters import DEFAULT_RUNNER, adapter_for_runner

        adapter_for_runner(run_args.agent or DEFAULT_RUNNER).check_login_dir(run_args.auth_from)
    from evaluator.pipeline.progress import choose_progress
    from evaluator.pipeline.run import Run, RunOptions

    repo, source_workspace = evals_repo(repo, source_workspace, evals, skill)
    if resume is None:
        show_load_warnings(repo, source_workspace, target, lenient=run_args.lenient)
    if include_deferred:
        if resume:
            raise click.UsageError("--resume takes the plan of the run it resumes")
        suites = with_deferred(repo, source_workspace, target, suites, cases)

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
    with run_args.judging(options):
        outcome = Run(options, choose_progress(as_json)).execute()
    record_finished_run(outcome.run_dir.path, options.runs_dir)
    code = exit_code(outcome, allow_blocked)
    report_run("run", outcome, junit)
    reason = exit_reason(outcome, allow_blocked)
    if as_json:
        emit_json({**summary(outcome, code), "exit_reason": reason}, code)
    else:
        print_summary(outcome)
        hint = unclear_rule_hint(outcome.results, from_evals=evals is not None)
        if hint is not None:
            click.echo(hint)
        if reason is not None:
            click.echo(f"exit {code}: {reason}")
    return code


def with_deferred(
    repo: Path,
    source_workspace: Path | None,
    target: str | None,
    suites: tuple[str, ...],
    cases: tuple[str, ...],
) -> tuple[str, ...]:
    """The suites a run with `--include-deferred` names: the selection's, then the deferred."""
    from evaluator.plan import open_repo, select_cases

    loaded = open_repo(repo, source_workspace, target=target, default_target_only=True)
    selection = select_cases(loaded, target, suites, cases, include_deferred=True)
    deferred = [s for s in selection.target.deferred if s not in selection.suite_ids]
    return (*selection.suite_ids, *deferred)


def exit_code(outcome: RunOutcome, allow_blocked: bool) -> int:
    if outcome.interrupted and outcome.stopped_by_signal is not None:
        # The shell's convention, as everywhere else in the CLI: 130 for Ctrl-C, 143 for
        # SIGTERM, so a script tells a stopped run from one that failed.
        return 128 + outcome.stopped_by_signal
    if not outcome.interrupted and _outage_cases(outcome.results):
        return EXIT_ENVIRONMENT
    return EXIT_OK if exit_reason(outcome, allow_blocked) is None else EXIT_FAILURES


def _outage_cases(results: Sequence[CaseResult]) -> list[str]:
    """Cases the agent's model or tooling failed: they were never evaluated, by this skill or any
    other. The blame is the score's (`score` has no score then, exit 3): as exit 1 a CI job
    would leave the verdict to `compare`, which sees no verdict on that side and no regression."""
    from evaluator.artifacts.attribution import score_case

    return [r.case_id for r in results if r.status == "blocked" and score_case(r).outage]


def _agent_blocked(blocked: Sequence[CaseResult]) -> list[CaseResult]:
    """Blocked cases the agent caused (the score counts them as not passed)."""
    from evaluator.artifacts.attribution import case_blame

    found = []
    for result in blocked:
        blame = case_blame(result)
        if blame is not None and blame.side == "agent":
            found.append(result)
    return found


def outage_reason(results: Sequence[CaseResult]) -> str | None:
    """Why results with cases an outage blocked are no result (exit 3), in one line; None when
    none was. `run` and `judge` (which keeps the run's attempts) say it the same way."""
    outages = _outage_cases(results)
    if not outages:
        return None
    return (
        f"the agent's model or tooling failed on {_cases(outages)}, which got no verdict:"
        f" {', '.join(outages[:5])}"
        + (", ..." if len(outages) > 5 else "")
        + "; this is not a result of the skill: fix the agent's set-up and run again"
    )


def exit_reason(outcome: RunOutcome, allow_blocked: bool) -> str | None:
    """Why the run exits non-zero, in one line; None when it exits 0."""
    counts = outcome.counts()
    if outcome.interrupted:
        return f"the run was interrupted; resume it with --resume {outcome.run_dir.run_id}"
    outage = outage_reason(outcome.results)
    if outage is not None:
        # Not forgiven by --allow-blocked: no case of the run was shown to fail or pass there.
        return outage
    failed = [r.case_id for r in outcome.results if r.status == "fail"]
    if failed:
        return f"{_cases(failed)} failed: {', '.join(failed[:5])}" + (
            ", ..." if len(failed) > 5 else ""
        )
    blocked = [r for r in outcome.results if r.status == "blocked"]
    agents = _agent_blocked(blocked)
    if agents:
        # The agent timed out, left its workspace, crashed or gave no answer: counted as not
        # passed, as `score` counts it; --allow-blocked forgives only what the eval or the
        # machine caused (a missing variable, a program this machine lacks).
        first = agents[0]
        why = first.notes[0] if first.notes else blocked_why(first)
        more = f" (and {len(agents) - 1} more)" if len(agents) > 1 else ""
        return (
            f"{_cases(agents)} blocked by the agent's own doing, counted as not passed:"
            f" {first.case_id}: {why}{more}; --allow-blocked accepts only blocks the eval or"
            " the machine caused"
        )
    if blocked and not allow_blocked:
        first = blocked[0]
        why = first.notes[0] if first.notes else blocked_why(first)
        more = f" (and {len(blocked) - 1} more)" if len(blocked) > 1 else ""
        return (
            f"{_cases(blocked)} blocked, so nothing was proven about {'them' if more else 'it'}:"
            f" {first.case_id}: {why}{more}; --allow-blocked accepts blocked cases beside passes"
        )
    if not counts["pass"]:
        # --allow-blocked forgives blocked cases beside passes, never a run that proved nothing.
        return "no case passed: a run that proves nothing does not succeed"
    return None


WHY_LIMIT = 240  # characters of a check's detail in the exit line


def blocked_why(result: CaseResult) -> str:
    """A case blocked by one of its assertions: its reason and what the first blocked check
    said (a command the machine stopped names the tool and why), not the reason alone."""
    reason = result.blocked_reason or "blocked"
    for entry in result.assertions:
        if entry.status != "blocked":
            continue
        pending = list(entry.checks)
        while pending:
            check = pending.pop(0)
            if check.status == "blocked" and not check.checks:
                detail = check.detail
                if len(detail) > WHY_LIMIT:
                    detail = detail[: WHY_LIMIT - 3] + "..."
                return f"{reason}: {check.kind}: {detail}"
            pending = [*check.checks, *pending]
        if entry.notes:
            return f"{reason}: {entry.notes[0]}"
    return reason


def unclear_rule_hint(results: Sequence[CaseResult], *, from_evals: bool = False) -> str | None:
    """What to do about cases blocked because nothing could decide their prose (skill-creator's
    expectations are prose): one line, or None when no case is. An evals.json has no `checks:`,
    so its author is pointed at what that file can hold instead."""
    from evaluator.judge.chain import NO_ASSERTIONS

    # A case with no assertions is not blocked by prose: its exit line says what it lacks.
    unclear = [
        r.case_id
        for r in results
        if r.blocked_reason == "unclear-rule" and NO_ASSERTIONS not in r.notes
    ]
    if not unclear:
        return None
    exact = (
        "or make them typed assertions (file_contains, command, ...), or `agentic-eval convert`"
        " to YAML, whose entries take checks"
        if from_evals
        else "or write checks"
    )
    return (
        f"hint: {_cases(unclear)} blocked by unclear-rule (prose that no rule decides):"
        " give a judge model (--judge-model M, with --judge auto or model; docs/model-judge.md)"
        f" {exact} (`agentic-eval explain` shows each entry's route)"
    )


def _cases(items: Sized) -> str:
    return "1 case" if len(items) == 1 else f"{len(items)} cases"


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
    from evaluator.artifacts.attribution import score_run
    from evaluator.artifacts.trigger_report import TRIGGERS_FILE

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
    if not (outcome.run_dir.path / TRIGGERS_FILE).is_file():
        # The report's summary line, word for word: what is judged, what the rate is of.
        selected = len(outcome.manifest.resolved_case_ids)
        click.echo(f"verified pass rate: {score_run(outcome.results, selected).headline()}")
    click.echo(f"report: {outcome.run_dir.path / 'report.md'}")
