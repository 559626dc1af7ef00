"""`--judge-model`, `--judge-agent`, `--judge-votes` and the judge's endpoint, shared by every
command that judges, and the grader they build."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from evaluator.adapters import adapter_names, default_adapter_name, runner_names
from evaluator.cli.agent_flags import options_for
from evaluator.defaults import DEFAULT_SCRATCH
from evaluator.errors import EnvironmentProblem

if TYPE_CHECKING:  # the model judge is imported only when one is configured
    from evaluator.grader import Grader
    from evaluator.vocabulary import JudgeMode

F = TypeVar("F", bound=Callable[..., Any])


def grader_options(func: F) -> F:
    func = click.option(
        "--judge-api-key-env",
        default=None,
        metavar="NAME",
        help="Variable holding the key for --judge-base-url (default: the judge agent's own).",
    )(func)
    func = click.option(
        "--judge-base-url",
        default=None,
        metavar="URL",
        help="The judge's model endpoint: any server speaking the judge agent's provider API"
        ', such as vLLM, Ollama or a LiteLLM gateway (docs/cli.md, "Real models", names the API'
        " and the variables of each agent).",
    )(func)
    func = click.option(
        "--judge-votes",
        type=click.IntRange(min=1),
        default=None,
        help="Judge calls per entry, odd; a strict majority decides (default 1).",
    )(func)
    func = click.option(
        "--judge-agent",
        type=click.Choice([*adapter_names(), *runner_names()]),
        default=None,
        help="Agent whose CLI plays the model judge, by adapter or runner name (default"
        f" {default_adapter_name()}).",
    )(func)
    func = click.option(
        "--judge-model",
        default=None,
        help="Model of the model-graded judge, for entries no rule decides (default: none).",
    )(func)
    return func


def judge_adapter_name(judge_agent: str | None) -> str:
    """The adapter `--judge-agent` names (an adapter or one of its runners), else the default."""
    from evaluator.adapters import adapter_for_agent

    adapter = adapter_for_agent(judge_agent)
    return adapter.name if adapter is not None else default_adapter_name()


def judge_options(
    agent_options: Mapping[str, Mapping[str, object]],
    agent: str | None = None,
    judge_agent: str | None = None,
) -> dict[str, object]:
    """The options of the judge's adapter (`judge_agent`, else the default agent's: its CLI
    plays the judge): its short flags, and `--agent-option` when `agent`, the runner under test,
    is the same agent, or when no agent runs (`judge`: the judge is the command's agent)."""
    from evaluator.adapters import adapter_for_runner

    judge = judge_adapter_name(judge_agent)
    own = agent is None or adapter_for_runner(agent).name == judge
    return options_for(agent_options, judge, own=own)


def build_grader(
    judge_model: str | None,
    judge_votes: int | None,
    *,
    judge_agent: str | None = None,
    behaviors: Path | None = None,
    judge_agent_options: Mapping[str, object] | None = None,
    auth_from: Path | None = None,
    scratch_root: Path | None = None,
    base_url: str | None = None,
    api_key_env: str | None = None,
    mode: JudgeMode = "auto",
) -> Grader | None:
    """The grader the options ask for, or None without `--judge-model` or under `--judge rules`
    (which never asks a model: nothing is built, checked or called); the caller closes it."""
    if judge_model is None:
        for flag, value in (
            ("--judge-votes", judge_votes),
            ("--judge-agent", judge_agent),
            ("--judge-base-url", base_url),
            ("--judge-api-key-env", api_key_env),
        ):
            if value is not None:
                raise click.UsageError(f"{flag} needs --judge-model")
        return None
    if behaviors is not None and (base_url or api_key_env):
        raise click.UsageError(
            "--behaviors scripts the judge's model; it takes no --judge-base-url"
        )
    if mode == "rules":
        return None
    if api_key_env and not os.environ.get(api_key_env):
        raise EnvironmentProblem(f"--judge-api-key-env {api_key_env}: that variable is not set")
    from evaluator.pipeline.reachable import unreachable

    if base_url and (why := unreachable(base_url)):
        raise EnvironmentProblem(
            f"--judge-base-url {why}: every judgement would wait for it until its timeout;"
            " start the server or correct the URL"
        )
    from evaluator.adapters import get_adapter
    from evaluator.grader import make_grader
    from evaluator.workspace.scratch import check_scratch_root, make_private_dir

    # Under the same checked, private scratch root as the agents; the leading dot keeps it apart
    # from every run's scratch (run ids cannot start with a dot).
    root = scratch_root or DEFAULT_SCRATCH
    check_scratch_root(root)
    judge_scratch = root / ".judge"
    make_private_dir(judge_scratch)
    adapter = get_adapter(judge_adapter_name(judge_agent))
    options = adapter.options(judge_agent_options or {})
    grader = make_grader(
        judge_model,
        votes=judge_votes or 1,
        backend=lambda endpoint: adapter.judge_backend(endpoint, options),
        behaviors=behaviors,
        behavior_agents=adapter_names(),
        auth_from=auth_from,
        scratch_root=judge_scratch,
        base_url=base_url,
        api_key_env=api_key_env,
    )
    # With no endpoint given, the one the judge's CLI reaches by default for its login (its
    # adapter's data): on a machine without a network each judged entry would wait it out.
    default = grader.backend.default_endpoint() if behaviors is None else None
    if default and (why := unreachable(default)):
        grader.close()
        raise EnvironmentProblem(
            f"the {adapter.label} judge's default model endpoint {why}: every judgement would"
            " wait for it until its timeout; point the judge elsewhere with --judge-base-url URL,"
            " or judge by rules alone with --judge rules"
        )
    return grader
