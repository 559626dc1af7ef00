"""`agentic-eval schemas export|check`: the JSON Schemas generated from the models."""

from __future__ import annotations

from pathlib import Path

import click

from evaluator.cli.options import emit_json, json_option
from evaluator.errors import EXIT_INPUT, EXIT_OK
from evaluator.schemas import drifted, export_schemas


@click.group("schemas")
def command() -> None:
    """Generate or check the JSON Schemas in schemas/."""


@command.command("export")
@click.option("--out", type=click.Path(path_type=Path, file_okay=False), default=Path("schemas"))
def export(out: Path) -> int:
    """Write every schema file from the models."""
    for path in export_schemas(out):
        click.echo(str(path))
    return EXIT_OK


@command.command("check")
@click.option("--dir", "directory", type=click.Path(path_type=Path), default=Path("schemas"))
@json_option
def check(directory: Path, as_json: bool) -> int:
    """Exit 2 if a committed schema differs from the models."""
    stale = drifted(directory)
    if as_json:
        emit_json({"ok": not stale, "directory": str(directory), "stale": stale})
        return EXIT_INPUT if stale else EXIT_OK
    for kind in stale:
        click.echo(
            f"{directory}/{kind}.schema.json: out of date; run `agentic-eval schemas export`"
        )
    if not stale:
        click.echo(f"ok: schemas in {directory} match the models")
    return EXIT_INPUT if stale else EXIT_OK
