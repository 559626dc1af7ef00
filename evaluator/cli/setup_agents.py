"""`agentic-eval setup-agents`: install the pinned agent CLIs where the evaluator finds them."""

from __future__ import annotations

from pathlib import Path

import click

from evaluator.adapters import adapter_named, agent_choices, default_adapter_name, get_adapter
from evaluator.cli.options import emit_json, json_option
from evaluator.errors import EXIT_OK, InputError


@click.command("setup-agents")
@click.option(
    "--agent",
    "agents",
    type=click.Choice(agent_choices()),
    callback=lambda _ctx, _param, names: tuple(dict.fromkeys(adapter_named(n) for n in names)),
    multiple=True,
    help=f"Which agent's CLI to install (repeatable; default {default_adapter_name()}).",
)
@click.option(
    "--prefix",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="npm prefix to install into (default: $XDG_CACHE_HOME/agentic-eval/<cli>-<version>).",
)
@json_option
def command(agents: tuple[str, ...], prefix: Path | None, as_json: bool) -> int:
    """Install the pinned agent CLIs with npm into the user cache (nothing if already there)."""
    results = []
    for name in agents or (default_adapter_name(),):
        pinned = get_adapter(name).cli()
        if pinned is None:
            raise InputError(f"the {name} agent has no pinned CLI to install", field="--agent")
        target = prefix / name if prefix and len(agents) > 1 else prefix
        binary, installed = pinned.install(target or pinned.user_dir())
        results.append(
            {"agent": name, "package": pinned.spec, "binary": str(binary), "installed": installed}
        )
        if not as_json:
            state = "installed" if installed else "already installed"
            click.echo(f"{name}: {pinned.spec} {state}: {binary}")
    if as_json:
        emit_json(results[0] if len(results) == 1 else results, EXIT_OK)
    return EXIT_OK
