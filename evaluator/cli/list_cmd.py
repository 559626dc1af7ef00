"""`agentic-eval list`: targets, suites and the resolved cases of a selection."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

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

if TYPE_CHECKING:  # loaded when the command runs, not for its --help
    from evaluator.repo import EvalRepo
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
    if not (target_id or suites) and loaded.default_target_id is None and len(loaded.targets) > 1:
        return _list_targets(loaded, as_json)
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
            },
            EXIT_OK,
        )
        return EXIT_OK
    click.echo(
        f"targets: {', '.join(sorted(loaded.targets))} (default: {loaded.default_target_id})"
    )
    click.echo(f"target {target.target_id}: entry skill {target.target.entry_skill}")
    for suite in target.suites.values():
        mark = "*" if suite.suite_id in selection.suite_ids else " "
        title = f": {suite.suite.title}" if suite.suite.title else ""
        click.echo(f" {mark} suite {suite.suite_id}{title} ({len(suite.cases)})")
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


def _list_targets(loaded: EvalRepo, as_json: bool) -> int:
    """A repo of several targets and no `default_target`: which a run could name (a run without
    `--target` is refused, so listing one target's cases would be a guess)."""
    targets = [loaded.targets[name] for name in sorted(loaded.targets)]
    if as_json:
        emit_json(
            {
                "default_target": None,
                "targets": [t.target.target_id for t in targets],
                "target": None,
                "entry_skills": {t.target.target_id: t.target.entry_skill for t in targets},
                "suites": [],
                "selected_suites": [],
                "cases": [],
                "deferred_cases": [],
            },
            EXIT_OK,
        )
        return EXIT_OK
    click.echo(f"targets: {', '.join(t.target.target_id for t in targets)} (default: none)")
    for target in targets:
        suites = ", ".join(f"{s.suite_id} ({len(s.cases)})" for s in target.suites.values())
        click.echo(f"target {target.target.target_id}: entry skill {target.target.entry_skill}")
        click.echo(f"  suites: {suites or 'none'}")
    click.echo("pass --target T (or set default_target in agentic-eval.yaml) to list its cases")
    return EXIT_OK
