"""`agentic-eval list`: targets, suites and the resolved cases of a selection."""

from __future__ import annotations

from pathlib import Path

import click

from evaluator.cli.options import (
    emit_json,
    evals_options,
    evals_repo,
    json_option,
    lenient_option,
    repo_options,
)
from evaluator.errors import EXIT_OK
from evaluator.vocabulary import SPLITS, Split


@click.command("list")
@repo_options
@evals_options
@click.option("--target", "target_id", default=None, help="Target id (default: the repo default).")
@click.option("--suite", "suites", multiple=True, help="Suite id; repeat for several.")
@lenient_option
@click.option(
    "--split", type=click.Choice(SPLITS), default=None, help="Only the cases of this split."
)
@json_option
def command(
    repo: Path,
    source_workspace: Path | None,
    evals: Path | None,
    skill: Path | None,
    target_id: str | None,
    suites: tuple[str, ...],
    lenient: bool,
    split: Split | None,
    as_json: bool,
) -> int:
    """List targets, suites and the cases a run would execute, with their splits."""
    # the stages are imported when the command runs, not for its --help
    from evaluator.plan import case_split, filter_split, open_repo, select_cases

    repo, source_workspace = evals_repo(repo, source_workspace, evals, skill)
    loaded = open_repo(repo, source_workspace, target=target_id, lenient=lenient)
    splits = loaded.config.splits
    selection = filter_split(select_cases(loaded, target_id, suites), split, splits)
    target = selection.target
    if as_json:
        emit_json(
            {
                "default_target": loaded.default_target_id,
                "targets": sorted(loaded.targets),
                "target": target.target_id,
                "entry_skill": target.target.entry_skill,
                "suites": [
                    {
                        "suite_id": s.suite_id,
                        "title": s.suite.title,
                        "default": s.suite_id in target.target.default_suites,
                        "cases": [c.case_id for c in s.cases],
                    }
                    for s in target.suites.values()
                ],
                "selected_suites": selection.suite_ids,
                "cases": [
                    {
                        "case_id": c.case_id,
                        "suite_id": c.suite_id,
                        "title": c.case.title,
                        "split": case_split(c, splits),
                        "path": str(c.path.relative_to(loaded.root)),
                    }
                    for c in selection.cases
                ],
                "deferred_cases": [c.case_id for c in target.deferred_cases()],
            }
        )
        return EXIT_OK
    click.echo(
        f"targets: {', '.join(sorted(loaded.targets))} (default: {loaded.default_target_id})"
    )
    click.echo(f"target {target.target_id}: entry skill {target.target.entry_skill}")
    for suite in target.suites.values():
        mark = "*" if suite.suite_id in selection.suite_ids else " "
        click.echo(
            f" {mark} suite {suite.suite_id}: {suite.suite.title or ''} ({len(suite.cases)})"
        )
    click.echo(f"selected cases ({len(selection.cases)}):")
    for case in selection.cases:
        click.echo(
            f"  {case.suite_id}/{case.case_id}  [{case_split(case, splits)}]  {case.case.title}"
        )
    deferred = target.deferred_cases()
    if deferred:
        click.echo(f"deferred cases ({len(deferred)}; run only with --include-deferred or --case):")
        for case in deferred:
            click.echo(f"  {case.suite_id}/{case.case_id}  {case.case.title}")
    return EXIT_OK
