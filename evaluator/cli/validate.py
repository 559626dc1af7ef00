"""`agentic-eval validate`: every problem of an eval repo, one located line each."""

from __future__ import annotations

from pathlib import Path

import click

from evaluator.cli.options import emit_json, json_option, repo_options
from evaluator.errors import EXIT_INPUT, EXIT_OK
from evaluator.pipeline.selftest import golden_problems
from evaluator.repo import load_repo


@click.command("validate")
@repo_options
@json_option
def command(repo: Path, source_workspace: Path | None, as_json: bool) -> int:
    """Check an eval repo: schemas, paths, ids, skill files. Exit 2 if any error."""
    loaded, diagnostics = load_repo(repo, source_workspace)
    for target in loaded.targets.values() if loaded else []:
        for problem in golden_problems(target):
            diagnostics.error(problem)
    cases = sum(len(t.all_cases()) for t in loaded.targets.values()) if loaded else 0
    if as_json:
        emit_json(
            {
                "ok": not diagnostics.errors,
                "repo": str(repo),
                "targets": sorted(loaded.targets) if loaded else [],
                "cases": cases,
                "errors": [_issue(e) for e in diagnostics.errors],
                "warnings": [_issue(w) for w in diagnostics.warnings],
            }
        )
    else:
        for error in diagnostics.errors:
            click.echo(f"{error.render()}", err=True)
        for warning in diagnostics.warnings:
            click.echo(f"warning: {warning.render()}", err=True)
        if not diagnostics.errors:
            targets = len(loaded.targets) if loaded else 0
            click.echo(f"ok: {targets} target(s), {cases} case(s) in {repo}")
    return EXIT_INPUT if diagnostics.errors else EXIT_OK


def _issue(problem: object) -> dict[str, object]:
    from evaluator.errors import InputError

    assert isinstance(problem, InputError)
    return {
        "path": problem.path,
        "line": problem.line,
        "col": problem.col,
        "field": problem.field,
        "message": problem.message,
        "text": problem.render(),
    }
