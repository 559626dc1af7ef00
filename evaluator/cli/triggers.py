"""`agentic-eval triggers`: does the skill fire when it should, and only then (docs/triggers.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from evaluator.cli.agent_run import AgentRunArgs, agent_run_options
from evaluator.cli.options import (
    SKILL_FILE,
    emit_json,
    evals_repo,
    executor_options,
    json_option,
    repo_options,
    show_load_warnings,
)
from evaluator.errors import EXIT_ENVIRONMENT, EXIT_FAILURES, EXIT_OK


@click.command("triggers")
@repo_options
@click.option(
    "--evals",
    type=click.Path(path_type=Path, exists=True),
    default=None,
    help="A skill-creator evals.json, or a skill folder holding evals/evals.json, read in place"
    " of --repo; its trigger set is the trigger-evals.json (or trigger_evals.json) beside it.",
)
@click.option("--target", default=None, help="Target id (default: the repo default).")
@click.option(
    "--triggers",
    "trigger_file",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    default=None,
    help="A trigger set by path, in any of the four shapes (default: the target's trigger_suite).",
)
@click.option(
    "--attempts",
    type=click.IntRange(1, 100),
    default=None,
    help="Attempts per prompt, K (default: the trigger set's, else 3).",
)
@click.option(
    "--skill",
    "skill_file",
    type=SKILL_FILE,
    default=None,
    help="Candidate SKILL.md of the target written into every workspace (a description to"
    " measure).",
)
@click.option(
    "--other-targets",
    is_flag=True,
    help="Also install the other targets' entry skills as distractors.",
)
@click.option(
    "--distractor",
    "distractors",
    multiple=True,
    type=click.Path(path_type=Path, file_okay=False, exists=True),
    help="A skill folder installed beside the skill as a distractor (repeatable): with --evals,"
    " which has no target.yaml to name them in, or added to the target's own.",
)
@click.option(
    "--full-attempts",
    is_flag=True,
    help="Let each agent finish its task instead of stopping it once the decision is seen.",
)
@click.option(
    "--resume",
    default=None,
    help="Finish an interrupted trigger run: only prompts without a result, as it planned them.",
)
@agent_run_options
@executor_options
@json_option
def command(
    repo: Path,
    source_workspace: Path | None,
    evals: Path | None,
    target: str | None,
    trigger_file: Path | None,
    attempts: int | None,
    skill_file: Path | None,
    other_targets: bool,
    distractors: tuple[Path, ...],
    full_attempts: bool,
    resume: str | None,
    run_args: AgentRunArgs,
    executor: str,
    ray_address: str | None,
    as_json: bool,
) -> int:
    """Run a trigger set: K attempts per prompt beside distractor skills; precision, recall, F1."""
    from evaluator.pipeline.progress import choose_progress
    from evaluator.pipeline.run import RunOptions
    from evaluator.pipeline.triggers import TriggerOptions, execute_triggers
    from evaluator.repo.candidate_skill import read_candidate_skill

    if resume and (run_args.run_id or target or trigger_file or other_targets or full_attempts):
        raise click.UsageError(
            "--resume takes the plan of the trigger run it resumes;"
            " drop --run-id/--target/--triggers/--other-targets/--full-attempts"
        )
    # `--skill` is the candidate description here, so the skill folder of an evals.json is the
    # one it belongs to (as `run --evals` finds it without `--skill DIR`).
    repo, source_workspace = evals_repo(repo, source_workspace, evals, None)
    if resume is None:
        # Without a candidate, a skill no agent lists stops the trigger run (exit 2) with the
        # same located line: it is not repeated as a warning first.
        show_load_warnings(
            repo,
            source_workspace,
            target,
            lenient=run_args.lenient,
            keep=lambda w: skill_file is not None or not str(w.path).endswith("SKILL.md"),
        )
    options = RunOptions(
        repo=repo,
        source_workspace=source_workspace,
        target=target,
        attempts=attempts,
        resume=resume,
        skill_text=read_candidate_skill(skill_file, "--skill") if skill_file else None,
        executor=executor,
        ray_address=ray_address,
    )
    run_args.apply(options)
    trigger = TriggerOptions(
        trigger_file=trigger_file.absolute() if trigger_file else None,
        other_targets=other_targets,
        trigger_only=not full_attempts,
        distractor_folders=tuple(path.resolve() for path in distractors),
    )
    outcome = execute_triggers(options, trigger, choose_progress(as_json))
    found = outcome.run_dir.path / "triggers.json"
    data = json.loads(found.read_text(encoding="utf-8")) if found.is_file() else {}
    # A suspect run (nothing fired, or everything did) more likely measures a broken setup than
    # the description: like a run where no case passed, it is never a success.
    suspect = bool(data.get("suspect"))
    code = EXIT_OK if data and not outcome.interrupted and not suspect else EXIT_FAILURES
    # As `run`: a prompt whose every attempt an outage of the agent's model or tooling blocked
    # got no verdict (nor did the trigger metrics): the machine's error, not the description's.
    from evaluator.cli.run import outage_reason

    outage = None if outcome.interrupted else outage_reason(outcome.run_dir.read_case_results())
    if outage is not None:
        code = EXIT_ENVIRONMENT
    if as_json:
        emit_json(
            {
                "run_id": outcome.run_dir.run_id,
                "run_dir": str(outcome.run_dir.path),
                "interrupted": outcome.interrupted,
                "triggers": data,
            },
            code,
        )
        return code
    for prompt in data.get("prompts", []):
        click.echo(prompt_line(prompt))
    scores = data.get("over_prompts", {})

    def shown(value: float | None) -> str:
        return "n/a" if value is None else f"{value:.3f}"

    click.echo(
        f"precision={shown(scores.get('precision'))} recall={shown(scores.get('recall'))}"
        f" f1={shown(scores.get('f1'))} (over prompts)"
    )
    if data.get("suspect"):
        click.echo(f"SUSPECT ({data['suspect']['kind']}): " + "; ".join(data["suspect"]["causes"]))
    if outcome.interrupted:
        # The figures above cover only the prompts measured before the stop.
        click.echo(
            f"INTERRUPTED: the figures cover the {len(data.get('prompts', []))} prompt(s) measured"
            f" before the stop; finish with `agentic-eval triggers --resume"
            f" {outcome.run_dir.run_id}`"
        )
    click.echo(f"report: {outcome.run_dir.path / 'report.md'}")
    if outage is not None:
        click.echo(f"exit {code}: {outage}")
    return code


def prompt_line(prompt: dict[str, Any]) -> str:
    """One prompt of `triggers.json` as a line; one that missed, misfired or stayed undecided quotes its
    text, since its id alone sends the author to report.md to learn which prompt it was."""
    from evaluator.artifacts.trigger_report import prompt_verdict

    verdict = prompt_verdict(prompt)
    mark = {"missed": "MISSED", "misfired": "MISFIRE"}.get(verdict, verdict)
    text = " ".join(str(prompt.get("prompt", "")).split())
    short = text if len(text) <= 60 else text[:57] + "..."
    quoted = f"  {short!r}" if mark != "ok" else ""
    return (
        f"{prompt['id']:<24} expect={'fire' if prompt['expect'] else 'none':<4}"
        f" fired {prompt['fired']}/{prompt['attempts']}  {mark}{quoted}"
    )
