"""`agentic-eval setup-agents`: install the pinned agent CLIs where the evaluator finds them."""

from __future__ import annotations

from pathlib import Path

import click

from evaluator.adapters.claude.binary import CLAUDE
from evaluator.adapters.codex.binary import CODEX
from evaluator.agents.npm_cli import PinnedCli
from evaluator.cli.options import emit_json, json_option
from evaluator.errors import EXIT_OK

CLIS: dict[str, PinnedCli] = {"codex": CODEX, "claude": CLAUDE}


@click.command("setup-agents")
@click.option(
    "--agent",
    "agents",
    type=click.Choice(sorted(CLIS)),
    multiple=True,
    help="Which CLI to install (repeatable; default codex).",
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
    for name in agents or ("codex",):
        pinned = CLIS[name]
        target = prefix / name if prefix and len(agents) > 1 else prefix
        binary, installed = pinned.install(target or pinned.user_dir())
        results.append(
            {"agent": name, "package": pinned.spec, "binary": str(binary), "installed": installed}
        )
        if not as_json:
            state = "installed" if installed else "already installed"
            click.echo(f"{name}: {pinned.spec} {state}: {binary}")
    if as_json:
        emit_json(results[0] if len(results) == 1 else results)
    return EXIT_OK
