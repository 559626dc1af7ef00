"""`agentic-eval convert`: write the agentic-evals YAML repo equivalent to an `evals.json`."""

from __future__ import annotations

from pathlib import Path

import click

from evaluator.cli.options import emit_json, json_option, located_evals
from evaluator.errors import EXIT_OK, InputError


@click.command("convert")
@click.argument("evals", type=click.Path(path_type=Path, exists=True))
@click.option(
    "--out",
    type=click.Path(path_type=Path, file_okay=False),
    default=Path("agentic-evals"),
    show_default=True,
    help="The eval repo to write (must not exist, or be empty).",
)
@click.option(
    "--skill",
    type=click.Path(path_type=Path, file_okay=False, exists=True),
    default=None,
    help="The skill folder the evals test (default: the folder the file belongs to).",
)
@json_option
def command(evals: Path, out: Path, skill: Path | None, as_json: bool) -> int:
    """Write the agentic-evals YAML repo equivalent to a skill-creator evals.json."""
    from evaluator.repo.convert import convert_repo
    from evaluator.repo.evals_json import evals_file, load_evals_json

    given, skill = located_evals(evals, skill, None)
    path = evals_file(given)
    if path is None:
        raise InputError("no evals.json here (nor evals/evals.json)", path=evals)
    loaded, diagnostics = load_evals_json(path, skill)
    if diagnostics.errors or loaded is None:
        raise diagnostics.errors[0]
    written = convert_repo(loaded, out)
    target = next(iter(loaded.targets.values()))
    mount = target.skill_mount
    assert mount is not None
    if as_json:
        emit_json(
            {
                "out": str(out),
                "files": [str(p) for p in written],
                "skill": str(mount.origin),
                "skill_path": mount.at,
            },
            EXIT_OK,
        )
        return EXIT_OK
    click.echo(f"wrote {len(written)} file(s) under {out}")
    click.echo(
        f"the skill is not copied: place {mount.origin} at {mount.at}/ in the source workspace"
        f" (default: {out.parent.resolve()}), then `agentic-eval validate --repo {out}`"
    )
    return EXIT_OK
