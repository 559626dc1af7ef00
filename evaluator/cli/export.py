"""`agentic-eval export`: our cases and splits in the shapes skill optimisers read, and finished
runs in the formats other evaluation tools read (skill-creator's benchmark, Harbor's ATIF)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from evaluator.adapters import DEFAULT_RUNNER
from evaluator.cli.agent_flags import runner_option
from evaluator.cli.agent_run import api_key_env_option, base_url_option
from evaluator.cli.options import FiniteFloatRange, repo_options
from evaluator.defaults import DEFAULT_TIMEOUT_S, MAX_TIMEOUT_S
from evaluator.errors import EXIT_INPUT, EXIT_OK


@click.group("export")
def group() -> None:
    """Write the eval's cases for SkillOpt or CodexOpt, or runs for skill-creator and Harbor."""


@group.command("codexopt-tasks")
@repo_options
@click.option("--target", default=None, help="Target id (default: the repo default).")
@click.option("--suite", "suites", multiple=True, help="Suite id; repeat for several.")
@click.option("--case", "cases", multiple=True, help="Case id; repeat for several.")
@click.option("--attempts", type=click.IntRange(1, 100), default=1, show_default=True)
@click.option(
    "--min-pass-rate",
    type=FiniteFloatRange(0, 1),
    default=1.0,
    show_default=True,
    help="Per-case pass rate over the attempts that makes a task pass.",
)
@click.option(
    "--timeout",
    "timeout_s",
    type=FiniteFloatRange(min=1, max=MAX_TIMEOUT_S),
    default=DEFAULT_TIMEOUT_S,
    show_default=True,
    help="Seconds per attempt (a case's own timeout_s wins).",
)
@click.option(
    "--behaviors",
    default=None,
    help="Scripted behaviours dir, relative to the repo root CodexOpt copies.",
)
@runner_option(f"The agent runner every task's score runs (default {DEFAULT_RUNNER}).")
@click.option("--model", default=None, help="Model name every task's score passes to the agent.")
@base_url_option
@api_key_env_option
@click.option(
    "--program",
    default="agentic-eval",
    show_default=True,
    help="The agentic-eval command the tasks run (on PATH; CodexOpt does not copy .venv).",
)
@click.option(
    "--out",
    type=click.Path(path_type=Path, dir_okay=False),
    default=Path("codexopt-tasks.json"),
    show_default=True,
)
def codexopt_tasks(
    repo: Path,
    source_workspace: Path | None,
    target: str | None,
    suites: tuple[str, ...],
    cases: tuple[str, ...],
    attempts: int,
    min_pass_rate: float,
    timeout_s: float,
    behaviors: str | None,
    agent: str | None,
    model: str | None,
    base_url: str | None,
    api_key_env: str | None,
    program: str,
    out: Path,
) -> int:
    """CodexOpt rollout tasks, train cases first, and the skillopt_train_ratio to use."""
    # the stages are imported when the command runs, not for its --help
    from evaluator.artifacts.rundir import write_atomic
    from evaluator.gate.thresholds import near_miss
    from evaluator.integrations.codexopt import export_tasks
    from evaluator.pipeline.runplan import check_endpoint_options
    from evaluator.plan import open_repo, select_cases

    # Every task would be refused alike (CodexOpt counts each a failure): refused here once.
    check_endpoint_options(
        behaviors=behaviors is not None, base_url=base_url, api_key_env=api_key_env, model=model
    )
    given = {
        "--agent": agent,
        "--model": model,
        "--base-url": base_url,
        "--api-key-env": api_key_env,
    }
    agent_args = tuple(part for flag, value in given.items() if value for part in (flag, value))
    miss = near_miss(min_pass_rate, attempts)
    if miss is not None:
        click.echo(f"warning: {miss}", err=True)
    loaded = open_repo(repo, source_workspace, target=target, default_target_only=True)
    selection = select_cases(loaded, target, suites, cases)
    export = export_tasks(
        loaded,
        selection,
        program=program,
        repo_arg=str(repo),
        attempts=attempts,
        min_pass_rate=min_pass_rate,
        timeout_s=timeout_s,
        behaviors=behaviors,
        agent_args=agent_args,
    )
    write_atomic(out, json.dumps(export.tasks, indent=2, ensure_ascii=False) + "\n")
    n = len(export.tasks)
    click.echo(f"wrote {n} task(s) to {out}: {export.n_train} train, {n - export.n_train} val")
    ratio = export.train_ratio
    if ratio is None:
        click.echo(
            "skillopt_train_ratio: none reproduces this split (CodexOpt keeps 10-90% and at"
            " least one task on each side)"
        )
    else:
        click.echo(f"skillopt_train_ratio: {ratio:.6f}")
    return EXIT_OK


@group.command("skillopt-splits")
@repo_options
@click.option("--target", default=None, help="Target id (default: the repo default).")
@click.option("--suite", "suites", multiple=True, help="Suite id; repeat for several.")
@click.option("--out", type=click.Path(path_type=Path, file_okay=False), required=True)
def skillopt_splits(
    repo: Path,
    source_workspace: Path | None,
    target: str | None,
    suites: tuple[str, ...],
    out: Path,
) -> int:
    """SkillOpt's split dir: {train,val,test}/items.json and split_manifest.json."""
    from evaluator.integrations.items import export_split_dir
    from evaluator.plan import open_repo, select_cases

    loaded = open_repo(repo, source_workspace, target=target, default_target_only=True)
    counts = export_split_dir(loaded, select_cases(loaded, target, suites), out)
    click.echo(f"wrote {out}: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    return EXIT_OK


RUN_DIR = click.Path(path_type=Path, file_okay=False, exists=True)


@group.command("atif")
@click.argument("run", type=RUN_DIR)
@click.option(
    "--out",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="Write OUT/<case>/attempt-NN/trajectory.json instead of beside each attempt's evidence.",
)
def atif(run: Path, out: Path | None) -> int:
    """Harbor ATIF v1.7 trajectory.json of every attempt of RUN, sub-agents embedded."""
    from evaluator.artifacts.rundir import RunDir
    from evaluator.interop import export_trajectories

    written = export_trajectories(RunDir(run), out)
    for problem in written.problems:
        click.echo(f"agentic-eval: {problem}", err=True)
    click.echo(f"wrote {len(written.trajectories)} trajectory file(s)")
    return EXIT_INPUT if written.problems else EXIT_OK


@group.command("benchmark")
@click.argument("runs", nargs=-1, required=True, type=RUN_DIR)
@click.option(
    "--labels",
    default=None,
    help="Comma-separated configuration name per run, in order (default for two runs:"
    " with_skill,without_skill).",
)
@click.option(
    "--baseline",
    default=None,
    help="The label deltas are measured from (default: a label named without_skill, old_skill,"
    " old, baseline or base, else the last).",
)
@click.option(
    "--out",
    type=click.Path(path_type=Path, file_okay=False),
    default=Path("benchmark"),
    show_default=True,
    help="Directory for benchmark.json, benchmark.md and the gradings (eval-<id>/<label>/run-<n>/).",
)
def benchmark(runs: tuple[Path, ...], labels: str | None, baseline: str | None, out: Path) -> int:
    """skill-creator's benchmark.json and benchmark.md comparing two or more RUNS."""
    from evaluator.artifacts.rundir import RunDir
    from evaluator.interop.benchmark import Configuration, check_labels, write_benchmark
    from evaluator.interop.runs import redactor

    if len(runs) < 2:
        raise click.UsageError("a benchmark compares at least two runs")
    if labels is None and len(runs) != 2:
        raise click.UsageError("--labels is required for more than two runs")
    names = labels.split(",") if labels else ["with_skill", "without_skill"]
    base = check_labels([n.strip() for n in names], len(runs), baseline)
    configurations = [
        Configuration(name.strip(), RunDir(path)) for name, path in zip(names, runs, strict=True)
    ]
    result = write_benchmark(configurations, base, out, redactor())
    delta = result.run_summary["delta"]
    click.echo(f"wrote {out / 'benchmark.json'} and {out / 'benchmark.md'}")
    click.echo(f"pass rate delta (against {base}): {getattr(delta, 'pass_rate', '?')}")
    return EXIT_OK
