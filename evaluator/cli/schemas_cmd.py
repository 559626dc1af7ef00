"""`agentic-eval schemas export|check`: the JSON Schemas generated from the models.

A developer command (hidden from `--help`, documented in docs/cli.md): it maintains the two
committed copies, `schemas/` and the packaged `evaluator/data/schemas/`.
"""

from __future__ import annotations

from pathlib import Path

import click

from evaluator.cli.options import emit_json, json_option
from evaluator.errors import EXIT_INPUT, EXIT_OK


@click.group("schemas", hidden=True)
def command() -> None:
    """Generate or check the JSON Schemas in schemas/ and in the package (developers)."""


REFERENCE = Path("docs/file-reference.md")
reference_option = click.option(
    "--reference",
    type=click.Path(path_type=Path, dir_okay=False),
    default=REFERENCE,
    show_default=True,
    help="The file reference page generated from the same models (skipped when its folder is"
    " absent, as outside a checkout).",
)


@command.command("export")
@click.option("--out", type=click.Path(path_type=Path, file_okay=False), default=Path("schemas"))
@reference_option
def export(out: Path, reference: Path) -> int:
    """Write every schema file from the models, into --out and into the package."""
    # the models are imported when the command runs, not for its --help
    from evaluator.contract.reference import render
    from evaluator.schemas import export_schemas, packaged_schema_dir

    directories = [out, *([packaged] if (packaged := packaged_schema_dir()) else [])]
    for directory in dict.fromkeys(d.resolve() for d in directories):
        for path in export_schemas(directory):
            click.echo(str(path))
    if reference.parent.is_dir():
        reference.write_text(render(), encoding="utf-8")
        click.echo(str(reference))
    return EXIT_OK


@command.command("check")
@click.option("--dir", "directory", type=click.Path(path_type=Path), default=Path("schemas"))
@reference_option
@json_option
def check(directory: Path, reference: Path, as_json: bool) -> int:
    """Exit 2 if a committed schema (in --dir or in the package) differs from the models."""
    from evaluator.contract.reference import render
    from evaluator.schemas import drifted, packaged_schema_dir

    packaged = packaged_schema_dir()
    stale = [f"{directory}/{kind}.schema.json" for kind in drifted(directory)]
    if packaged is None:
        stale.append("evaluator/data/schemas/: missing from the package")
    else:
        stale += [f"{packaged}/{kind}.schema.json" for kind in drifted(packaged)]
    if reference.parent.is_dir() and (
        not reference.is_file() or reference.read_text(encoding="utf-8") != render()
    ):
        stale.append(str(reference))
    if as_json:
        emit_json(
            {"ok": not stale, "directory": str(directory), "stale": stale},
            EXIT_INPUT if stale else EXIT_OK,
        )
        return EXIT_INPUT if stale else EXIT_OK
    for path in stale:
        click.echo(f"{path}: out of date; run `agentic-eval schemas export`")
    if not stale:
        click.echo(f"ok: schemas in {directory} and in the package match the models")
    return EXIT_INPUT if stale else EXIT_OK
