"""`run --rerun-failed RUN`: the cases of a finished run to run again (those that failed or were
blocked), with the target, agent, model and judge that run used, for the options the user did not
set."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from evaluator.adapters.registry import runner_names
from evaluator.artifacts.models import JudgeSettings
from evaluator.artifacts.rundir import RunDir
from evaluator.errors import InputError

RERUN_STATUSES = ("fail", "blocked")


@dataclass(frozen=True)
class RerunPlan:
    run_id: str
    target: str
    agent: str | None  # the runner the run used, when `run` can start it
    cases: tuple[str, ...]
    # The model the run's agents reached: its scripted behaviours (while that folder is still
    # there), or its model, endpoint and key variable. Taken only when the user names none.
    behaviors: Path | None = None
    model: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    # The judge options the run was given (None: a run from before they were recorded).
    judge: JudgeSettings | None = None


def named_run(run: str, runs_dir: Path, field: str = "--rerun-failed") -> RunDir:
    """RUN as a run directory (a path holding a manifest) or a run id under `--runs-dir`."""
    given = Path(run)
    found = RunDir(given if (given / "manifest.json").is_file() else runs_dir / run)
    if not found.manifest_path.is_file():
        raise InputError(
            f"no run {run!r}: neither a run directory nor a run id under {runs_dir}",
            field=field,
        )
    return found


def rerun_plan(run: str, runs_dir: Path) -> RerunPlan:
    """The cases of RUN that failed or were blocked, in the order its manifest planned them."""
    run_dir = named_run(run, runs_dir)
    manifest = run_dir.read_manifest()
    results = run_dir.read_case_results(manifest.resolved_case_ids or None)
    cases = tuple(r.case_id for r in results if r.status in RERUN_STATUSES)
    # A run made in session (`codex-in-session`) has no runner `run` can start: the default
    # then applies unless --agent names one.
    agent = manifest.agent if manifest.agent in runner_names() else None
    if manifest.behaviors_dir is not None:
        behaviors = Path(manifest.behaviors_dir)
        if not behaviors.is_dir():
            raise InputError(
                f"run {run_dir.run_id} played the scripted behaviours of {behaviors}, which are"
                " gone; pass --behaviors (or --model/--base-url for a real model)",
                field="--rerun-failed",
            )
        return RerunPlan(
            run_dir.run_id,
            manifest.target_id,
            agent,
            cases,
            behaviors=behaviors,
            judge=manifest.judge,
        )
    return RerunPlan(
        run_dir.run_id,
        manifest.target_id,
        agent,
        cases,
        model=manifest.model,
        base_url=manifest.model_base_url,
        api_key_env=manifest.model_key_env,
        judge=manifest.judge,
    )
