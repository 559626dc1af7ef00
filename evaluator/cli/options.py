"""Options shared by several commands, and the JSON/plain output helpers."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from evaluator.judge import ModelGrader
from evaluator.vocabulary import JUDGE_MODES, JudgeMode

F = TypeVar("F", bound=Callable[..., Any])

DEFAULT_REPO = Path("agentic-evals")


def repo_options(func: F) -> F:
    func = click.option(
        "--source-workspace",
        type=click.Path(path_type=Path, file_okay=False),
        default=None,
        help="Directory holding .agents/skills/... (default: the repo's parent).",
    )(func)
    func = click.option(
        "--repo",
        type=click.Path(path_type=Path, file_okay=False),
        default=DEFAULT_REPO,
        show_default=True,
        help="The eval repo.",
    )(func)
    return func


def agent_run_options(func: F) -> F:
    """The options of every command that runs agents (`run`, `score`): how and where each attempt
    runs, which model plays the agent, the jail and trace around it, and how it is judged."""
    # Imported here: cli.grading imports the pipeline, which the other commands need not load.
    from evaluator.agents import runner_names
    from evaluator.cli.grading import grader_options
    from evaluator.pipeline.run import DEFAULT_SCRATCH
    from evaluator.sandbox import jail_names

    decorators = [
        click.option(
            "--agent",
            type=click.Choice(runner_names()),
            default=None,
            help="Agent runner (default codex-exec).",
        ),
        click.option(
            "--workers", type=click.IntRange(1, 64), default=None, help="Attempts run at once."
        ),
        click.option(
            "--timeout",
            "timeout_s",
            type=click.FloatRange(min=1),
            default=None,
            help="Seconds per attempt.",
        ),
        click.option(
            "--run-id", default=None, help="Name of the run directory (default: time-based)."
        ),
        click.option("--model", default=None, help="Model name passed to the agent."),
        click.option(
            "--behaviors",
            type=click.Path(path_type=Path, file_okay=False, exists=True),
            default=None,
            help="Run against the scripted model server with these behaviours.",
        ),
        click.option(
            "--runs-dir",
            type=click.Path(path_type=Path, file_okay=False),
            default=Path("runs"),
            show_default=True,
        ),
        click.option(
            "--scratch-root",
            type=click.Path(path_type=Path, file_okay=False),
            default=DEFAULT_SCRATCH,
            show_default=True,
            help="Workspaces and agent homes (not under /tmp).",
        ),
        click.option(
            "--keep-scratch",
            is_flag=True,
            help="Keep this run's workspaces and agent homes (removed when the run ends by default).",
        ),
        click.option("--codex-bin", type=click.Path(path_type=Path, dir_okay=False), default=None),
        click.option(
            "--auth-from",
            type=click.Path(path_type=Path, file_okay=False, exists=True),
            default=None,
            help="Copy only auth.json from this Codex home (real models).",
        ),
        click.option(
            "--sandbox",
            type=click.Choice(jail_names()),
            default=None,
            help="Jail around the agent (default: bwrap where bubblewrap works, else none).",
        ),
        click.option(
            "--trace",
            type=click.Choice(["auto", "on", "off"]),
            default="auto",
            show_default=True,
            help="Trace the agent's file accesses with strace (auto: where strace works).",
        ),
        judge_option,
        grader_options,
        lenient_option,
    ]
    for decorate in reversed(decorators):
        func = decorate(func)
    return func


def lenient_option(func: F) -> F:
    return click.option(
        "--lenient",
        is_flag=True,
        help="Unknown keys (repos written for other evaluators) are warnings, not errors.",
    )(func)


def json_option(func: F) -> F:
    return click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")(func)


def emit_json(payload: Any) -> None:
    sys.stdout.write(json.dumps(payload, indent=2, ensure_ascii=False) + "\n")


def judge_option(func: F) -> F:
    return click.option(
        "--judge",
        "judge_mode",
        type=click.Choice(JUDGE_MODES),
        default="auto",
        show_default=True,
        help="How prose assertions are judged: `rules` never calls a model; `auto` asks the"
        " model judge for what rules cannot decide when one is configured; `model` requires one.",
    )(func)


def resolve_grader(mode: JudgeMode, configured: ModelGrader | None) -> ModelGrader | None:
    """The grader the judge chain gets: the only thing `--judge` changes downstream."""
    if mode == "rules":
        return None
    if mode == "model" and configured is None:
        raise click.UsageError("--judge model needs a configured judge model; none is configured")
    return configured
