"""`agentic-eval setup-agents`: install the pinned agent CLIs where the evaluator finds them."""

from __future__ import annotations

from pathlib import Path

import click

from evaluator.agents.codex_binary import PACKAGE, install_pinned_codex, user_codex_dir
from evaluator.cli.options import emit_json, json_option
from evaluator.errors import EXIT_OK


@click.command("setup-agents")
@click.option(
    "--prefix",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="npm prefix to install into (default: $XDG_CACHE_HOME/agentic-eval/codex-<version>).",
)
@json_option
def command(prefix: Path | None, as_json: bool) -> int:
    """Install the pinned Codex CLI with npm into the user cache (nothing if already there)."""
    binary, installed = install_pinned_codex(prefix or user_codex_dir())
    if as_json:
        emit_json(
            {"agent": "codex", "package": PACKAGE, "binary": str(binary), "installed": installed}
        )
    else:
        state = "installed" if installed else "already installed"
        click.echo(f"codex: {PACKAGE} {state}: {binary}")
    return EXIT_OK
