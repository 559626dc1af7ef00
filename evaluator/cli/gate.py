"""`agentic-eval gate`: SkillOpt's accept/reject decision on the verified scores of finished runs."""

from __future__ import annotations

from pathlib import Path

import click

from evaluator.cli.options import FiniteFloatRange, emit_json, json_option
from evaluator.defaults import DEFAULT_MIN_COVERAGE
from evaluator.errors import EXIT_FAILURES, EXIT_OK
from evaluator.gate.metrics.registry import METRIC_NAMES

RUN_DIR = click.Path(path_type=Path, file_okay=False)


@click.command("gate")
@click.option("--candidate", type=RUN_DIR, required=True, help="Run dir of the candidate skill.")
@click.option("--current", type=RUN_DIR, default=None, help="Run dir of the current skill.")
@click.option("--best", type=RUN_DIR, default=None, help="Run dir of the best skill so far.")
@click.option(
    "--metric",
    type=click.Choice(METRIC_NAMES),
    default="hard",
    show_default=True,
    help="Score compared: hard, soft, (1-w)*hard + w*soft, or uplift over --baseline-run.",
)
@click.option(
    "--baseline-run",
    type=RUN_DIR,
    default=None,
    help="Run dir of the same cases without the skill (the uplift metric's baseline).",
)
@click.option(
    "--mixed-weight",
    type=FiniteFloatRange(),
    default=0.5,
    show_default=True,
    help="w of the mixed metric, clamped to [0, 1].",
)
@click.option(
    "--no-regression", is_flag=True, help="Also reject when a case passing in current does not."
)
@click.option(
    "--min-coverage",
    type=click.FloatRange(0, 1),
    default=DEFAULT_MIN_COVERAGE,
    show_default=True,
    help="A run below this share of judged cases has no score (exit 3).",
)
@click.option(
    "--allow-different-cases",
    is_flag=True,
    help="Gate runs of different cases, targets, skills or case definitions anyway"
    " (the differences are listed).",
)
@json_option
def command(
    candidate: Path,
    current: Path | None,
    best: Path | None,
    metric: str,
    baseline_run: Path | None,
    mixed_weight: float,
    no_regression: bool,
    min_coverage: float,
    allow_different_cases: bool,
    as_json: bool,
) -> int:
    """Accept or reject a candidate skill's run against the current and best runs."""
    # the gate and the run reader are imported when the command runs, not for its --help
    from evaluator.compare.compatibility import score_differences
    from evaluator.errors import InputError
    from evaluator.gate.decision import decide_gate
    from evaluator.gate.metrics.registry import check_baseline
    from evaluator.gate.rundir import read_run

    check_baseline(metric, baseline_run)
    baseline = read_run(baseline_run).score(min_coverage) if baseline_run else None
    runs = [read_run(path) if path else None for path in (candidate, current, best)]
    for role, run in zip(("candidate", "current", "best"), runs, strict=True):
        held_out = run.held_out_cases() if run else []
        if run and held_out:
            # The test split is what the optimiser's result is judged on at the end: a gate that
            # sees it selects skills on it (SkillOpt keeps it for valid_unseen only).
            raise InputError(
                f"the {role} run holds case(s) of the held-out test split:"
                f" {', '.join(held_out)}; a gate must not see them: score with --split val",
                path=run.path,
                field="case_splits",
            )
    scores = [run.score(min_coverage) if run else None for run in runs]
    cand, cur, bst = scores
    assert cand is not None
    decision = decide_gate(
        cand,
        cur,
        bst,
        metric=metric,
        mixed_weight=mixed_weight,
        no_regression=no_regression,
        baseline=baseline,
    )
    # After the decision: a metric a run cannot have (no triggers.json) is named first, exit 3.
    found = [
        difference
        for role, run in (("current", runs[1]), ("best", runs[2]))
        if run is not None and runs[0] is not None
        for difference in score_differences(run, runs[0], role)
    ]
    if found and not allow_different_cases:
        raise InputError(
            f"{'; '.join(found)}: their scores are not comparable"
            " (pass --allow-different-cases to gate anyway)",
            path=candidate,
        )
    code = EXIT_FAILURES if decision.action == "reject" else EXIT_OK
    if as_json:
        emit_json({**decision.to_json(), "differences": found}, code)
    else:
        for difference in found:
            click.echo(f"difference: {difference}")
        for regression in decision.regressions:
            click.echo(
                f"regression: {regression.case_id} {regression.current} -> {regression.candidate}"
            )
        click.echo(decision.reason)
        if decision.candidate_value and decision.candidate_value.low is not None:
            click.echo(f"candidate {decision.candidate_value.text()}")
        click.echo(
            f"GATE: {decision.action} metric={metric} candidate={decision.candidate_score:.4f}"
            f" current={decision.current_score:.4f} best={decision.best_score:.4f}"
        )
    return code
