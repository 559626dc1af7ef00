"""`agentic-eval attempt new|collect`: attempts whose sub-agent an evaluator agent spawns itself."""

from __future__ import annotations

import os
from pathlib import Path

import click

from evaluator.cli.agent_flags import AgentHome, agent_home_flags
from evaluator.cli.grading import build_grader, grader_options
from evaluator.cli.options import (
    emit_json,
    evals_options,
    evals_repo,
    json_option,
    judge_option,
    repo_options,
    resolve_grader,
)
from evaluator.errors import EXIT_ENVIRONMENT, EXIT_FAILURES, EXIT_OK
from evaluator.vocabulary import JudgeMode

RUNS_DIR_OPTION = click.option(
    "--runs-dir",
    type=click.Path(path_type=Path, file_okay=False),
    default=Path("runs"),
    show_default=True,
    help="Where run directories live.",
)


@click.group("attempt")
def group() -> None:
    """In-session attempts: you spawn each case's sub-agent; these commands do the rest."""


@group.command("new")
@click.argument("case_id")
@repo_options
@evals_options
@click.option("--run-id", default=None, help="The run to add the attempt to (new if absent).")
@RUNS_DIR_OPTION
@click.option("--target", default=None, help="Target id of a new run (default: the repo's).")
@click.option("--suite", "suites", multiple=True, help="A new run's suites; repeat for several.")
@click.option("--case", "cases", multiple=True, help="A new run's cases; repeat for several.")
@click.option(
    "--case-workspace-root",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="Parent of a new run's attempt workspaces (default: the scratch root, as `run`).",
)
@json_option
def new(
    case_id: str,
    repo: Path,
    source_workspace: Path | None,
    evals: Path | None,
    skill: Path | None,
    run_id: str | None,
    runs_dir: Path,
    target: str | None,
    suites: tuple[str, ...],
    cases: tuple[str, ...],
    case_workspace_root: Path | None,
    as_json: bool,
) -> int:
    """Create a fresh attempt workspace for CASE_ID and print it, then the sub-agent's prompt.

    The first call plans the run (its manifest names every selected case); later calls with
    its --run-id add attempts to it. Spawn the sub-agent with the printed prompt, byte for byte.
    A case that `needs` a program or Python distribution this machine lacks, or whose setup
    cannot be reproduced here (a free-form setup key, variables: a spawned sub-agent gets no
    environment), is recorded blocked (environment) instead, with nothing to spawn (`--json`:
    `blocked`, `unmet_needs`).
    """
    # the pipeline is imported when the command runs, not for its --help
    from evaluator.pipeline.in_session import PlanRequest, new_attempt

    repo, source_workspace = evals_repo(repo, source_workspace, evals, skill)
    made = new_attempt(
        PlanRequest(
            repo=repo,
            source_workspace=source_workspace,
            runs_dir=runs_dir,
            run_id=run_id,
            target=target,
            suites=suites,
            cases=cases,
            case_workspace_root=case_workspace_root,
        ),
        case_id,
    )
    pending = made.pending
    if made.unmet_needs:
        # Nothing to spawn: the attempt is recorded blocked, as `run` records it.
        reason = "; ".join(made.unmet_needs)
        if as_json:
            emit_json(
                {
                    "run_id": made.run_dir.run_id,
                    "run_dir": str(made.run_dir.path),
                    "case_id": pending.case_id,
                    "attempt": pending.attempt,
                    "blocked": "environment",
                    "unmet_needs": made.unmet_needs,
                    "case_status": made.case_status,
                    "created_run": made.created_run,
                },
                EXIT_OK,
            )
            return EXIT_OK
        click.echo(
            f"run: {made.run_dir.run_id}  case: {pending.case_id}  attempt: {pending.attempt}:"
            f" blocked (environment), no sub-agent to spawn: the case needs what this machine"
            f" lacks, or a setup not reproduced here: {reason}"
        )
        return EXIT_OK
    if as_json:
        emit_json(
            {
                "run_id": made.run_dir.run_id,
                "run_dir": str(made.run_dir.path),
                "case_id": pending.case_id,
                "attempt": pending.attempt,
                "workspace": pending.workspace,
                "prompt": pending.prompt,
                "created_run": made.created_run,
            },
            EXIT_OK,
        )
        return EXIT_OK
    click.echo(pending.workspace)
    click.echo(f"run: {made.run_dir.run_id}  case: {pending.case_id}  attempt: {pending.attempt}")
    click.echo("prompt (spawn the sub-agent with exactly this message):")
    click.echo(pending.prompt)
    return EXIT_OK


@group.command("collect")
@click.argument("case_id")
@click.option("--run-id", required=True, help="The run the attempt belongs to.")
@RUNS_DIR_OPTION
@click.option(
    "--parent-thread",
    default=None,
    help="Thread id of the session that spawned the sub-agent (default: the variable the"
    " agent sets for every command it runs, docs/agents.md).",
)
@click.option(
    "--nickname", default=None, help="The sub-agent's nickname, as the agent's spawn tool gave it."
)
@click.option(
    "--agent-id", default=None, help="The sub-agent's id, as the agent's spawn tool gave it."
)
@agent_home_flags(exists=False, what="whose session store is searched")
@judge_option
@grader_options
@json_option
def collect(
    case_id: str,
    run_id: str,
    runs_dir: Path,
    parent_thread: str | None,
    nickname: str | None,
    agent_id: str | None,
    agent_home: AgentHome,
    judge_mode: JudgeMode,
    judge_model: str | None,
    judge_agent: str | None,
    judge_votes: int | None,
    judge_base_url: str | None,
    judge_api_key_env: str | None,
    as_json: bool,
) -> int:
    """Locate CASE_ID's accepted sub-agent session, check isolation, judge, write the results.

    Exit 0 when the case passes, 1 when it fails or is blocked, 3 when an outage of the agent's
    model or tooling blocked it (as `run`, `judge` and `score`)."""
    from evaluator.adapters import in_session_adapter
    from evaluator.cli.run import outage_reason
    from evaluator.pipeline.in_session import CollectRequest, collect_attempt

    adapter = in_session_adapter(agent_home.adapter)
    parent = parent_thread or (os.environ.get(adapter.session_env) if adapter.session_env else None)
    if not parent:
        raise click.UsageError(f"--parent-thread is required outside a {adapter.label} session")

    grader = build_grader(
        judge_model,
        judge_votes,
        judge_agent=judge_agent,
        base_url=judge_base_url,
        api_key_env=judge_api_key_env,
        mode=judge_mode,
    )
    try:
        collected = collect_attempt(
            CollectRequest(
                runs_dir=runs_dir,
                run_id=run_id,
                case_id=case_id,
                agent_home=agent_home.home or adapter.live_home(),
                parent_thread_id=parent,
                nickname=nickname,
                agent_id=agent_id,
                grader=resolve_grader(judge_mode, grader),
            )
        )
    finally:
        if grader is not None:
            grader.close()
    attempt = collected.attempt
    isolation = attempt.isolation.verdict if attempt.isolation else None
    report = collected.run_dir.path / "report.md"
    # The same rule as `run` and `judge`: a case an outage blocked got no verdict (`score` has
    # none for the run), so it is the machine's error, not a failure of the skill.
    outage = outage_reason([collected.case_result])
    if outage is not None:
        code = EXIT_ENVIRONMENT
    else:
        code = EXIT_OK if collected.case_status == "pass" else EXIT_FAILURES
    if as_json:
        emit_json(
            {
                "run_id": collected.run_dir.run_id,
                "run_dir": str(collected.run_dir.path),
                "case_id": case_id,
                "attempt": attempt.number,
                "thread_id": attempt.evidence.thread_id if attempt.evidence else None,
                "nickname": collected.nickname,
                "session_path": str(attempt.session.path) if attempt.session else None,
                "attempt_status": attempt.status,
                "valid": attempt.valid,
                "isolation": isolation,
                "reason": attempt.reason,
                "case_status": collected.case_status,
                "run_state": collected.run_state,
                "report": str(report),
            },
            code,
        )
    else:
        who = f"{collected.nickname} " if collected.nickname else ""
        click.echo(
            f"{case_id} attempt {attempt.number:02d}: sub-agent {who}"
            f"isolation {isolation or 'not checked'}, attempt {attempt.status}"
            + (f" ({attempt.reason})" if attempt.reason else "")
        )
        if not attempt.valid:
            click.echo("the attempt is invalid: make one new attempt (`attempt new`) and rerun it")
        click.echo(f"case {case_id}: {collected.case_status}")
        click.echo(f"report: {report}")
        if outage is not None:
            click.echo(f"exit {code}: {outage}")
    return code
