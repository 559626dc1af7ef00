"""Our verdicts in the formats other skill-evaluation tools read.

One module per format, each written from the artifacts a run already holds (case results, each
attempt's `attempt.json`, its saved sessions), never from anything new: skill-creator's
`grading.json` per judged attempt (`skill_creator.py`) and `benchmark.json`/`benchmark.md` over
several runs (`benchmark.py`), and Harbor's ATIF v1.7 `trajectory.json` per attempt (`atif.py`,
the model of the specification in `atif_model.py`). Everything written passes through the run's
redaction (`runs.py`). See docs/interop.md.
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from evaluator.artifacts.models import Manifest
from evaluator.artifacts.rundir import RunDir
from evaluator.interop.atif import attempt_trajectory, trajectory_path, write_trajectory
from evaluator.interop.runs import redactor, run_attempts
from evaluator.interop.skill_creator import (
    DEFAULT_CONFIGURATION,
    SKILL_CREATOR_DIR,
    grading,
    prompt_of,
    write_grading,
)


@dataclass
class Written:
    """What an export wrote, and the attempts it could not convert (with why)."""

    trajectories: list[Path] = field(default_factory=list)
    gradings: list[Path] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def write_run_outputs(
    run_dir: RunDir,
    manifest: Manifest,
    secrets: Mapping[str, str] | None = None,
    configuration: str = DEFAULT_CONFIGURATION,
) -> Written:
    """At the end of every run (and whenever its reports are rewritten): each attempt's
    `trajectory.json` beside its evidence, and skill-creator's tree under `skill-creator/`
    (rebuilt whole, so a re-judged run keeps no stale grading), as `configuration` (a run
    evaluates the skill: `with_skill`; a no-skill baseline variant would say `without_skill`)."""
    redact = redactor(secrets)
    written = Written()
    root = run_dir.path / SKILL_CREATOR_DIR
    shutil.rmtree(root, ignore_errors=True)
    for source in run_attempts(run_dir, manifest):
        trajectory = attempt_trajectory(source, manifest, written.problems)
        if trajectory is not None:
            path = trajectory_path(source)
            write_trajectory(path, trajectory, redact)
            written.trajectories.append(path)
        graded = grading(source, trajectory)
        if graded is not None:
            written.gradings.append(
                write_grading(root, configuration, source, graded, prompt_of(trajectory), redact)
            )
    return written


def export_trajectories(
    run_dir: RunDir, out: Path | None = None, secrets: Mapping[str, str] | None = None
) -> Written:
    """`agentic-eval export atif`: every attempt's trajectory, in the run or under `out`."""
    manifest = run_dir.read_manifest()
    redact = redactor(secrets)
    written = Written()
    for source in run_attempts(run_dir, manifest):
        trajectory = attempt_trajectory(source, manifest, written.problems)
        if trajectory is not None:
            path = trajectory_path(source, out)
            write_trajectory(path, trajectory, redact)
            written.trajectories.append(path)
    return written


__all__ = ["Written", "export_trajectories", "write_run_outputs"]
