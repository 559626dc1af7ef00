"""`agentic-eval score`: run the selected cases (optionally with a candidate skill) and print the
verified score, ending with the VERDICT line an optimiser's rollout gate greps for."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import click

from evaluator.cli.agent_run import AgentRunArgs, agent_run_options
from evaluator.cli.ci_output import junit_option, report_run
from evaluator.cli.history import record_finished_run
from evaluator.cli.options import (
    SKILL_FILE,
    FiniteFloatRange,
    emit_json_line,
    error_json,
    evals_only_option,
    evals_repo,
    repo_options,
    show_load_warnings,
)
from evaluator.cli.run import unclear_rule_hint
from evaluator.defaults import DEFAULT_MIN_COVERAGE, DEFAULT_MIN_PASS_RATE
from evaluator.errors import (
    EXIT_ENVIRONMENT,
    EXIT_FAILURES,
    EXIT_INPUT,
    EXIT_OK,
    EvalError,
    InputError,
)
from evaluator.gate.metrics.registry import METRIC_NAMES
from evaluator.vocabulary import SPLITS

if TYPE_CHECKING:  # the pipeline is imported when the command runs, not for its --help
    from evaluator.artifacts.attribution import RunScore
    from evaluator.contract.models import SplitSettings
    from evaluator.gate.score import ScoreVerdict
    from evaluator.pipeline.run import RunOptions, RunOutcome
    from evaluator.plan import Selection

EXIT_BY_VERDICT = {"PASS": EXIT_OK, "FAIL": EXIT_FAILURES, "ERROR": EXIT_ENVIRONMENT}


@click.command("score")
@repo_options
@evals_only_option
@click.option("--target", default=None, help="Target id (default: the repo default).")
@click.option("--suite", "suites", multiple=True, help="Suite id; repeat for several.")
@click.option("--case", "cases", multiple=True, help="Case id; repeat for several.")
@click.option(
    "--split",
    type=click.Choice([*SPLITS, "all"]),
    default="all",
    show_default=True,
    help="Only the selected cases of this split.",
)
@click.option(
    "--skill",
    "skill_file",
    type=SKILL_FILE,
    default=None,
    help="Candidate entry skill written into every fresh workspace (default: the source's).",
)
@click.option(
    "--attempts",
    type=click.IntRange(1, 100),
    default=None,
    help="Attempts per case, K (default: the case's attempts, else the target's, else 1).",
)
@click.option(
    "--min-pass-rate",
    type=FiniteFloatRange(0, 1),
    default=DEFAULT_MIN_PASS_RATE,
    show_default=True,
    help="PASS (exit 0) when hard reaches this, else FAIL (exit 1).",
)
@click.option(
    "--min-coverage",
    type=FiniteFloatRange(0, 1),
    default=DEFAULT_MIN_COVERAGE,
    show_default=True,
    help="Below this share of cases with a verdict there is no score (ERROR, exit 3).",
)
@click.option(
    "--metric",
    type=click.Choice(METRIC_NAMES),
    default="hard",
    show_default=True,
    help="What the verdict holds to its threshold: hard, soft, mixed, uplift over --baseline-run,"
    " or trigger-f1 (a trigger run, --min-f1).",
)
@click.option(
    "--baseline-run",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="Finished run dir of the same cases without the skill (needed by --metric uplift).",
)
@click.option(
    "--min-uplift",
    type=FiniteFloatRange(-1, 1),
    default=0.0,
    show_default=True,
    help="With --metric uplift, PASS needs a significant uplift whose interval starts above this.",
)
@click.option(
    "--min-f1",
    type=FiniteFloatRange(0, 1),
    default=0.9,
    show_default=True,
    help="With --metric trigger-f1, PASS when the trigger run's F1 over prompts reaches this.",
)
@click.option(
    "--triggers",
    "trigger_file",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    default=None,
    help="With --metric trigger-f1, a trigger set by path (default: the target's trigger_suite).",
)
@click.option("--resume", default=None, help="Finish an interrupted score run.")
@agent_run_options
@junit_option
@click.option("--json", "as_json", is_flag=True, help="One JSON line before the VERDICT line.")
def command(
    repo: Path,
    source_workspace: Path | None,
    evals: Path | None,
    target: str | None,
    suites: tuple[str, ...],
    cases: tuple[str, ...],
    split: str,
    skill_file: Path | None,
    attempts: int | None,
    min_pass_rate: float,
    min_coverage: float,
    metric: str,
    baseline_run: Path | None,
    min_uplift: float,
    min_f1: float,
    trigger_file: Path | None,
    resume: str | None,
    run_args: AgentRunArgs,
    junit: Path | None,
    as_json: bool,
) -> int:
    """Score a skill: hard and soft verified pass rates, coverage, and a VERDICT line."""
    from evaluator.artifacts.attribution import score_run
    from evaluator.gate.metrics.base import MetricContext
    from evaluator.gate.metrics.registry import get_metric
    from evaluator.gate.score import decide
    from evaluator.gate.thresholds import near_miss
    from evaluator.pipeline.progress import PlainProgress
    from evaluator.pipeline.run import Run

    miss = near_miss(min_pass_rate, attempts) if metric == "hard" else None
    if miss is not None:
        click.echo(f"warning: {miss}", err=True)
    try:
        # `--skill` is the candidate text here: the skill folder is the one the file belongs to
        repo, source_workspace = evals_repo(repo, source_workspace, evals, None)
        if resume is None:
            show_load_warnings(
                repo, source_workspace, target, lenient=run_args.lenient, candidate=skill_file
            )
        options = _options(
            repo, source_workspace, target, suites, cases, split, skill_file, resume, run_args
        )
        options.attempts = attempts
        baseline = _baseline(metric, baseline_run, options.cases)
        if metric == "trigger-f1":
            outcome = _trigger_run(options, trigger_file, resume)
        else:
            if trigger_file is not None:
                raise InputError("--triggers needs --metric trigger-f1", field="--triggers")
            with run_args.judging(options):
                outcome = Run(options, PlainProgress()).execute()
        record_finished_run(outcome.run_dir.path, options.runs_dir)
    except (EvalError, click.UsageError) as exc:
        # Say it on stdout too: a rollout gate reads only stdout, and an error is not a score.
        bad_input = isinstance(exc, (InputError, click.UsageError))
        kind = "input-error" if bad_input else "environment"
        if as_json:  # the JSON line comes before the VERDICT line, as for a score
            code = EXIT_INPUT if isinstance(exc, click.UsageError) else exc.exit_code
            emit_json_line(error_json(exc, code), code)
        click.echo(f"VERDICT: ERROR {kind}: {exc}")
        raise
    manifest = outcome.manifest
    score = score_run(outcome.results, len(manifest.resolved_case_ids))
    triggers = outcome.run_dir.path / "triggers.json"
    if triggers.is_file():
        score.triggers = json.loads(triggers.read_text(encoding="utf-8"))
    thresholds = {"--min-uplift": min_uplift, "--min-f1": min_f1}
    verdict = decide(
        score,
        min_pass_rate=min_pass_rate,
        min_coverage=min_coverage,
        interrupted=outcome.interrupted,
        metric=metric,
        context=MetricContext(baseline=baseline),
        threshold=thresholds.get(get_metric(metric).threshold_option),
    )
    report_run("score", outcome, junit, verdict.line())
    if as_json:
        payload = verdict.to_json()
        payload["run_id"] = outcome.run_dir.run_id
        payload["run_dir"] = str(outcome.run_dir.path)
        emit_json_line(payload, EXIT_BY_VERDICT[verdict.kind])
    else:
        hint = unclear_rule_hint(outcome.results, from_evals=evals is not None)
        _print_summary(verdict, str(outcome.run_dir.path), None if metric == "trigger-f1" else hint)
    click.echo(verdict.line())
    return EXIT_BY_VERDICT[verdict.kind]


def _trigger_run(options: RunOptions, trigger_file: Path | None, resume: str | None) -> RunOutcome:
    """A trigger run of the target's trigger set (or `trigger_file`), the skill candidate in
    every workspace; trigger-only attempts."""
    from evaluator.pipeline.progress import PlainProgress
    from evaluator.pipeline.triggers import TriggerOptions, TriggerRun

    if resume and trigger_file is not None:
        raise InputError(
            "takes the trigger set of the run it resumes; drop --triggers", field="--resume"
        )
    options.cases = ()  # the trigger set's prompts are the run's cases
    trigger = TriggerOptions(trigger_file=trigger_file.absolute() if trigger_file else None)
    return TriggerRun(options, trigger, PlainProgress()).execute()


def _options(
    repo: Path,
    source_workspace: Path | None,
    target: str | None,
    suites: tuple[str, ...],
    cases: tuple[str, ...],
    split: str,
    skill_file: Path | None,
    resume: str | None,
    run_args: AgentRunArgs,
) -> RunOptions:
    from evaluator.pipeline.run import RunOptions
    from evaluator.plan import filter_split, open_repo, select_cases
    from evaluator.repo.candidate_skill import read_candidate_skill
    from evaluator.repo.evals_json import evals_file

    skill_text = read_candidate_skill(skill_file, "--skill") if skill_file else None
    if resume:
        if run_args.run_id or suites or cases or target or split != "all":
            raise InputError(
                "takes the plan of the run it resumes;"
                " drop --run-id/--target/--suite/--case/--split",
                field="--resume",
            )
        options = RunOptions(
            repo=repo, source_workspace=source_workspace, resume=resume, skill_text=skill_text
        )
        run_args.apply(options)
        return options
    loaded = open_repo(
        repo, source_workspace, target=target, lenient=run_args.lenient, default_target_only=True
    )
    selection = select_cases(loaded, target, suites, cases)
    if split != "all":
        chosen = filter_split(selection, split, loaded.config.splits)  # type: ignore[arg-type]
        if not chosen.cases:
            raise InputError(
                empty_split_message(selection, split, loaded.config.splits, evals_file(repo)),
                field="--split",
            )
        selection = chosen
    options = RunOptions(
        repo=repo,
        source_workspace=source_workspace,
        target=selection.target.target_id,
        cases=tuple(c.case_id for c in selection.cases),
        skill_text=skill_text,
    )
    run_args.apply(options)
    return options


def empty_split_message(
    selection: Selection, split: str, settings: SplitSettings, evals: Path | None
) -> str:
    """Why `--split` selects nothing, and how a case gets into that split: the selected cases'
    own splits, then the file to edit (an `evals.json` eval takes our `split` key too)."""
    from evaluator.plan import case_split

    counts = {name: 0 for name in SPLITS}
    for case in selection.cases:
        counts[case_split(case, settings)] += 1
    held = ", ".join(f"{name} {count}" for name, count in counts.items())
    if evals is not None:
        how = (
            f'give evals `"split": "{split}"` in the evals.json (ours; skill-creator ignores'
            " it), or score with --split all (an eval without one is placed by a hash of its id)"
        )
    else:
        how = (
            f"give cases `split: {split}` in their case files, or change `splits:` in"
            " agentic-eval.yaml (`agentic-eval list --split` shows each case's)"
        )
    return f"the selection holds no case of split {split!r} (its cases: {held}); {how}"


def _baseline(metric: str, path: Path | None, cases: tuple[str, ...]) -> RunScore | None:
    """The baseline run's score, read before anything runs; it must hold every selected case."""
    from evaluator.gate.metrics.registry import check_baseline
    from evaluator.gate.rundir import read_run

    check_baseline(metric, path)
    if path is None:
        return None
    record = read_run(path)
    missing = [c for c in cases if c not in {r.case_id for r in record.results}]
    if missing:
        raise InputError(
            f"the baseline run has no result for {', '.join(missing)}",
            path=path,
            field="--baseline-run",
        )
    return record.score()


def _print_summary(verdict: ScoreVerdict, run_dir: str, hint: str | None = None) -> None:
    """The figures, the hint about entries no rule decides, and why a FAIL fails, just above
    the VERDICT line (printed after this: the last line, which scripts read)."""
    _print_figures(verdict, run_dir)
    if hint is not None:
        click.echo(hint)
    # The VERDICT line gives the figures, not the rule they missed: an uplift of +1.000 that
    # FAILs (too few cases for its test) must say why. A PASS needs no reason, and an ERROR's
    # VERDICT line carries its own.
    if verdict.kind == "FAIL":
        click.echo(f"FAIL because {verdict.reason}")


def _print_figures(verdict: ScoreVerdict, run_dir: str) -> None:
    score = verdict.score
    if not verdict.shows_pass_rates:
        _print_trigger_summary(verdict, run_dir)
        return
    width = max((len(c.case_id) for c in score.cases), default=10)
    for case in score.cases:
        blame = case.blame
        why = f" ({blame.cause}: {blame.side})" if blame else ""
        hard = "-" if case.hard is None else f"{case.hard:.3f}"
        click.echo(f"{case.case_id:<{width}}  {case.status}{why}  hard={hard}")
    hard = "n/a" if score.hard is None else f"{score.hard:.3f}"
    soft = "n/a" if score.soft is None else f"{score.soft:.3f}"
    click.echo(f"hard={hard} soft={soft} coverage={score.coverage:.3f}")
    click.echo(score.headline())
    click.echo(f"run dir: {run_dir}")


def _print_trigger_summary(verdict: ScoreVerdict, run_dir: str) -> None:
    """A trigger run's prompts and its scores over prompts (what `trigger-f1` reads); the pass
    rates of `hard` and `soft` mean nothing there."""
    score = verdict.score
    data = score.triggers or {}
    prompts = {p["id"]: p for p in data.get("prompts", [])}
    width = max((len(c.case_id) for c in score.cases), default=10)
    for case in score.cases:
        prompt = prompts.get(case.case_id)
        fired = (
            f"  expect={'fire' if prompt['expect'] else 'none'} fired {prompt['fired']}/{prompt['attempts']}"
            if prompt
            else ""
        )
        click.echo(f"{case.case_id:<{width}}  {case.status}{fired}")
    over = data.get("over_prompts") or {}

    def shown(value: float | None) -> str:
        return "n/a" if value is None else f"{value:.3f}"

    click.echo(
        f"precision={shown(over.get('precision'))} recall={shown(over.get('recall'))}"
        f" f1={shown(over.get('f1'))} (over prompts) coverage={score.coverage:.3f}"
    )
    if data.get("suspect"):
        suspect = data["suspect"]
        click.echo(f"SUSPECT ({suspect['kind']}): " + "; ".join(suspect["causes"]))
    click.echo(f"run dir: {run_dir}")
