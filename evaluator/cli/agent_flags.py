"""The flags that reach an agent's adapter: `--agent-option KEY=VALUE` with the short forms each
adapter declares (`--codex-bin`), and `--agent NAME --agent-home DIR` with each adapter's short
flag for its home (`--codex-home`). The CLI names no agent: the flags come from the registry."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar, cast

import click

from evaluator.adapters import (
    adapter_named,
    agent_choices,
    default_adapter_name,
    home_flags,
    option_aliases,
    runner_named,
)

F = TypeVar("F", bound=Callable[..., Any])

# Each adapter's short flags, as (click parameter name, adapter, alias).
_ALIASES = [(f"alias_{adapter}_{alias.key}", adapter, alias) for adapter, alias in option_aliases()]
# Each adapter's home flag, as (click parameter name, adapter, flag).
_HOMES = [(f"home_{adapter}", adapter, flag) for adapter, flag in home_flags()]

AgentOptionsByAdapter = dict[str, dict[str, object]]


def _as_runner(_ctx: click.Context, _param: click.Parameter, value: str | None) -> str | None:
    return None if value is None else runner_named(value)


def _as_adapter(_ctx: click.Context, _param: click.Parameter, value: str | None) -> str | None:
    return None if value is None else adapter_named(value)


def runner_option(help_text: str) -> Callable[[F], F]:
    """`--agent` of a command that runs a runner: a runner's name or an agent's (`gemini` is
    `gemini-cli`), as the commands that take an agent accept both (`agent_home_options`)."""
    return click.option(
        "--agent",
        type=click.Choice(agent_choices()),
        callback=_as_runner,
        default=None,
        help=help_text,
    )


def collect_agent_options(
    pairs: tuple[str, ...], aliased: Mapping[str, object]
) -> AgentOptionsByAdapter:
    """`--agent-option KEY=VALUE` pairs (for the command's agent, under "") and alias values
    (under their adapter)."""
    options: AgentOptionsByAdapter = {}
    for pair in pairs:
        key, equals, value = pair.partition("=")
        if not equals or not key:
            raise click.BadParameter(f"{pair!r} is not KEY=VALUE", param_hint="--agent-option")
        options.setdefault("", {})[key.strip()] = value
    for parameter, adapter, alias in _ALIASES:
        if aliased.get(parameter) is not None:
            options.setdefault(adapter, {})[alias.key] = aliased[parameter]
    return options


def options_for(
    options: Mapping[str, Mapping[str, object]], adapter: str, *, own: bool
) -> dict[str, object]:
    """`adapter`'s options: its short flags, and `--agent-option` when it is the command's own
    agent (`own`)."""
    return {**options.get(adapter, {}), **(options.get("", {}) if own else {})}


def agent_option_flags(func: F) -> F:
    """Adds `--agent-option` and every adapter's short flags; the command receives them as one
    `agent_options` value (per adapter, "" for the command's own agent)."""
    return adapter_option_flags(None)(func)


def adapter_option_flags(adapter: str | None) -> Callable[[F], F]:
    """`agent_option_flags` with only `adapter`'s short flags (all adapters' with None): for a
    command that runs one agent whatever the run's (the model judge)."""
    aliases = [entry for entry in _ALIASES if adapter is None or entry[1] == adapter]

    def decorate(func: F) -> F:
        @functools.wraps(func)
        def command(**kwargs: Any) -> Any:
            aliased = {parameter: kwargs.pop(parameter) for parameter, _, _ in aliases}
            kwargs["agent_options"] = collect_agent_options(kwargs.pop("agent_option"), aliased)
            return func(**kwargs)

        decorators = [
            click.option(
                "--agent-option",
                "agent_option",
                multiple=True,
                metavar="KEY=VALUE",
                help="An option of the agent's adapter (repeatable; docs/agents.md lists them).",
            ),
            *(
                click.option(
                    alias.flag,
                    parameter,
                    type=click.Choice(alias.choices)
                    if alias.choices
                    else click.Path(path_type=Path, dir_okay=False)
                    if alias.is_path
                    else str,
                    default=None,
                    help=f"{alias.help} Short for --agent-option {alias.key}=VALUE ({name}).",
                )
                for parameter, name, alias in aliases
            ),
        ]
        decorated: Any = command
        for add in reversed(decorators):
            decorated = add(decorated)
        return cast(F, decorated)

    return decorate


@dataclass(frozen=True)
class AgentHome:
    """Which agent a command reads, and its home (None: the user's own)."""

    adapter: str
    home: Path | None


def agent_home_flags(*, exists: bool, what: str) -> Callable[[F], F]:
    """Adds `--agent`, `--agent-home` and every adapter's home flag; the command receives one
    `agent_home` value. `what` says what the home is used for, in the help."""
    path = click.Path(path_type=Path, file_okay=False, exists=exists)

    def decorate(func: F) -> F:
        @functools.wraps(func)
        def command(**kwargs: Any) -> Any:
            named = kwargs.pop("agent_name")
            home = kwargs.pop("agent_home_dir")
            chosen = [(a, kwargs.pop(p)) for p, a, _ in _HOMES]
            given = [(a, h) for a, h in chosen if h is not None]
            if len(given) > 1 or (given and home is not None):
                flags = ", ".join(flag for _, _, flag in _HOMES)
                raise click.UsageError(f"give one agent home (--agent-home or one of {flags})")
            if given:
                adapter, home = given[0]
                if named is not None and named != adapter:
                    raise click.UsageError(f"--agent {named} does not read a {adapter} home")
            else:
                adapter = named or default_adapter_name()
            kwargs["agent_home"] = AgentHome(adapter, home)
            return func(**kwargs)

        decorators = [
            click.option(
                "--agent",
                "agent_name",
                type=click.Choice(agent_choices()),
                callback=_as_adapter,
                default=None,
                help=f"The agent (default {default_adapter_name()}).",
            ),
            click.option(
                "--agent-home",
                "agent_home_dir",
                type=path,
                default=None,
                help=f"The agent's home, {what} (default: the user's own).",
            ),
            *(
                click.option(
                    flag,
                    parameter,
                    type=path,
                    default=None,
                    help=f"Short for --agent {adapter} --agent-home DIR.",
                )
                for parameter, adapter, flag in _HOMES
            ),
        ]
        decorated: Any = command
        for add in reversed(decorators):
            decorated = add(decorated)
        return cast(F, decorated)

    return decorate
