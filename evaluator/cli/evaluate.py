"""`agentic-eval evaluate`: variants of a skill on the same cases, interleaved and compared."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from evaluator.cli.agent_run import AgentRunArgs, agent_run_options
from evaluator.cli.options import (
    emit_json,
    evals_options,
    evals_repo,
    executor_options,
    json_option,
    repo_options,
    show_load_warnings,
)
from evaluator.errors import EXIT_ENVIRONMENT, EXIT_FAILURES, EXIT_OK, InputError

if TYPE_CHECKING:
    from evaluator.artifacts.models import CaseResult
    from evaluator.evaluate.model import EvaluationResult


@click.command("evaluate")
@repo_options
@evals_options
@click.option("--target", default=None, help="Target id (default: the repo default).")
@click.option("--suite", "suites", multiple=True, help="Suite id; repeat for several.")
@click.option("--case", "cases", multiple=True, help="Case id; repeat for several.")
@click.option(
    "--attempts",
    type=click.IntRange(1, 100),
    default=None,
    help="Attempts per case and variant (default: the target's, else 1).",
)
@click.option(
    "--baseline",
    default=None,
    help="The reference variant: none (no skill; the default), a skill directory, a SKILL.md"
    " file, or rev:REV (a git revision of the source workspace).",
)
@click.option(
    "--candidate",
    default=None,
    help="The variant under review: a skill directory, a SKILL.md file or rev:REV (default:"
    " the current skill).",
)
@click.option(
    "--baseline-from",
    type=click.Path(path_type=Path, file_okay=False, exists=True),
    default=None,
    help="Reuse this finished run (no skill, or an old version) as the baseline when its"
    " cases, agent, model and set-up match; refused, naming the difference, when not.",
)
@click.option(
    "--evaluation",
    "evaluation_file",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    default=None,
    help="Run an upstream evaluations/<mode>/<id>.yaml (ab, comparison or subjective) as it"
    " is; its rubric is scored by the model judge (--judge-model).",
)
@click.option(
    "--aa",
    is_flag=True,
    help="A/A: the candidate against itself, to measure the noise floor.",
)
@click.option(
    "--noise-floor-from",
    type=click.Path(path_type=Path, exists=True),
    default=None,
    help="An earlier --aa evaluation (its directory): no difference inside its noise floor is"
    " called.",
)
@agent_run_options
@executor_options
@json_option
def command(
    repo: Path,
    source_workspace: Path | None,
    evals: Path | None,
    skill: Path | None,
    target: str | None,
    suites: tuple[str, ...],
    cases: tuple[str, ...],
    attempts: int | None,
    baseline: str | None,
    candidate: str | None,
    baseline_from: Path | None,
    evaluation_file: Path | None,
    aa: bool,
    noise_floor_from: Path | None,
    run_args: AgentRunArgs,
    executor: str,
    ray_address: str | None,
    as_json: bool,
) -> int:
    """Compare variants of a skill on the same cases: pass rates, per-case differences, uplift.

    Each variant is a run under runs/<id>/variants/<label>/run; evaluation.json,
    eval-report.md and benchmark.json go to runs/<id>/. Exit 1 when a compared variant is
    significantly worse on some case or the evaluation was interrupted.
    """
    if evaluation_file is not None and (baseline or candidate or aa):
        raise click.UsageError("--evaluation names its variants: drop --baseline/--candidate/--aa")
    if aa and baseline is not None:
        raise click.UsageError("--aa runs the candidate twice: drop --baseline")
    if baseline_from is not None and (baseline or evaluation_file or aa):
        raise click.UsageError("--baseline-from is the baseline: drop --baseline/--evaluation/--aa")
    if evals is not None and evaluation_file is not None:
        raise click.UsageError(
            "--evaluation reads an eval repo's evaluations/; an --evals file has none:"
            " use --baseline/--candidate"
        )
    repo, source_workspace = evals_repo(repo, source_workspace, evals, skill)
    show_load_warnings(repo, source_workspace, target, lenient=run_args.lenient)
    from evaluator.evaluate.driver import read_noise_floor, run_evaluation
    from evaluator.evaluate.variants import (
        command_line_plan,
        evaluation_target,
        load_evaluation,
    )
    from evaluator.pipeline.run import RunOptions
    from evaluator.plan import open_repo

    options = RunOptions(
        repo=repo,
        source_workspace=source_workspace,
        target=target,
        suites=suites,
        cases=cases,
        attempts=attempts,
        executor=executor,
        ray_address=ray_address,
    )
    run_args.apply(options)
    floor = read_noise_floor(noise_floor_from) if noise_floor_from is not None else None
    if evaluation_file is not None:
        only = target or evaluation_target(evaluation_file, repo, lenient=run_args.lenient)
        loaded = open_repo(repo, source_workspace, target=only, lenient=run_args.lenient)
        plan = load_evaluation(evaluation_file, loaded)
    else:
        reuse = None
        if baseline_from is not None:
            from evaluator.artifacts.rundir import RunDir
            from evaluator.evaluate.reuse import is_no_skill

            reuse = (baseline_from, is_no_skill(RunDir(baseline_from).read_manifest()))
        plan = command_line_plan(
            baseline or "none", candidate, aa=aa, target=target, suites=suites, reuse=reuse
        )
    if plan.mode == "subjective" and run_args.judge_mode == "rules":
        raise InputError(
            "a subjective evaluation scores its rubric with the model judge; --judge rules"
            " never asks one (give --judge-model, with --judge auto or model)",
            field="--judge",
        )
    with run_args.judging(options) as grader:
        from evaluator.judge.scoring import RubricScorer

        scorer = grader if isinstance(grader, RubricScorer) else None
        outcome = run_evaluation(options, plan, evaluation_file, floor, scorer)
    from evaluator.cli.history import record_finished_run

    for run_dir in outcome.run_dirs:
        record_finished_run(run_dir, run_dir.parent)
    result = outcome.result
    worse = [c for c in result.comparisons if c.hurt_cases or c.headline.call == "worse"]
    unscored = rubric_unscored(result)
    # A comparison without a single case counted under both variants answered nothing.
    uncompared = [c for c in result.comparisons if c.headline.call == "no-data"]
    failed = worse or outcome.interrupted or unscored or uncompared
    # As `run`: a case an outage of the agent's model or tooling blocked, under any variant, got
    # no verdict there, so the comparison lacks it: the machine's error, not the skill's.
    outage = None if outcome.interrupted else _outage(outcome.run_dirs)
    code = EXIT_ENVIRONMENT if outage else EXIT_FAILURES if failed else EXIT_OK
    if as_json:
        emit_json(
            {
                # `eval_id` and `directory` were its first names (docs/cli.md): kept.
                "eval_id": result.eval_id,
                "directory": str(outcome.directory),
                "run_id": result.eval_id,
                "run_dir": str(outcome.directory),
                "variants": {
                    v.label: {
                        "pass_rate": v.pass_rate,
                        "passed": v.passed,
                        "counted": v.counted,
                        "rubric_scores": v.rubric.scores if v.rubric is not None else None,
                    }
                    for v in result.variants
                },
                "comparisons": [
                    {
                        "reference": c.reference,
                        "compared": c.compared,
                        "call": c.headline.call,
                        "mean_difference": c.overall.mean_difference,
                        "p": c.overall.p,
                        "hurt_cases": c.hurt_cases,
                    }
                    for c in result.comparisons
                ],
            },
            code,
        )
        return code
    click.echo("")
    for v in result.variants:
        rate = "n/a" if v.pass_rate is None else f"{v.pass_rate:.0%}"
        click.echo(f"{v.label:<16} {rate:>5}  ({v.passed}/{v.counted} attempts)  {v.description}")
    for v in result.variants:
        if v.rubric is not None:
            scores = ", ".join(
                f"{name} {'null' if mean is None else f'{mean:.2f}'}"
                for name, mean in v.rubric.scores.items()
            )
            why = (
                f" ({len(v.rubric.notes)} null score(s): why in eval-report.md)"
                if v.rubric.notes
                else ""
            )
            click.echo(f"{v.label:<16} rubric {v.rubric.rubric_id}: {scores}{why}")
    for c in result.comparisons:
        click.echo(f"{c.compared} vs {c.reference}: {c.headline.text}")
        if c.hurt_cases:
            click.echo(f"  hurt: {', '.join(c.hurt_cases)}")
    hint = _unclear_rule_hint(outcome.run_dirs, from_evals=evals is not None)
    if hint is not None:
        click.echo(hint)
    click.echo(f"report: {outcome.directory / 'eval-report.md'}")
    if outcome.interrupted:
        click.echo("exit 1: the evaluation was interrupted; its runs hold what finished")
    elif outage:
        click.echo(f"exit {code}: {outage}")
    elif worse:
        click.echo("exit 1: a compared variant is significantly worse on some case")
    elif unscored:
        click.echo("exit 1: the rubric was scored, but no score was verified (why: eval-report.md)")
    elif uncompared:
        pairs = ", ".join(f"{c.compared} vs {c.reference}" for c in uncompared)
        click.echo(f"exit 1: nothing was compared ({pairs}): no case was counted under both")
    return code


def _outage(run_dirs: list[Path]) -> str | None:
    """`run`'s outage line over every variant's run (each case named once), or None."""
    from evaluator.artifacts.rundir import RunDir
    from evaluator.cli.run import outage_reason

    named: dict[str, CaseResult] = {}
    for path in run_dirs:
        for result in RunDir(path).read_case_results():
            if outage_reason([result]) is not None:
                named.setdefault(result.case_id, result)
    return outage_reason(list(named.values()))


def _unclear_rule_hint(run_dirs: list[Path], *, from_evals: bool) -> str | None:
    """`run`'s hint about cases no rule could decide, over every variant's run: a suite of
    prose expectations without a judge model blocks every case of every variant."""
    from evaluator.artifacts.rundir import RunDir
    from evaluator.cli.run import unclear_rule_hint

    hints = [
        unclear_rule_hint(RunDir(path).read_case_results(), from_evals=from_evals)
        for path in run_dirs
    ]
    return next((h for h in hints if h is not None), None)


def rubric_unscored(result: EvaluationResult) -> bool:
    """Whether the rubric was scored and every score came out null: the evaluation answered
    nothing it was asked, which is no success."""
    scored = [v.rubric for v in result.variants if v.rubric is not None]
    return bool(scored) and all(
        mean is None for rubric in scored for mean in rubric.scores.values()
    )
