"""`agentic-eval validate`: every problem of an eval repo, one located line each."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from evaluator.cli.options import (
    emit_json,
    evals_options,
    evals_repo,
    json_option,
    lenient_option,
    problem_json,
    repo_options,
)
from evaluator.errors import EXIT_INPUT, EXIT_OK, InputError

if TYPE_CHECKING:  # the stages are imported when the command runs, not for its --help
    from evaluator.modelserver.behaviors import Behavior
    from evaluator.repo import Diagnostics, EvalRepo


@click.command("validate")
@repo_options
@evals_options
@click.option(
    "--target",
    default=None,
    help="Check only this target (what `run --target` needs); other targets are not read.",
)
@click.option(
    "--behaviors",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="Also check a directory of scripted behaviours against the target's case and trigger prompts.",
)
@lenient_option
@json_option
def command(
    repo: Path,
    source_workspace: Path | None,
    evals: Path | None,
    skill: Path | None,
    target: str | None,
    behaviors: Path | None,
    lenient: bool,
    as_json: bool,
) -> int:
    """Check an eval repo: schemas, unknown keys, paths, ids, patterns, skill files, golden
    behaviours. Exit 2 if any error."""
    from evaluator.cli.options import rule_path_warnings
    from evaluator.pipeline.selftest import golden_problems
    from evaluator.repo import load_repo

    repo, source_workspace = evals_repo(repo, source_workspace, evals, skill)
    loaded, diagnostics = load_repo(repo, source_workspace, lenient=lenient, target=target)
    for loaded_target in loaded.targets.values() if loaded else []:
        for problem in golden_problems(loaded_target):
            diagnostics.error(problem)
    if loaded is not None and not diagnostics.errors:
        for problem in rule_path_warnings(loaded, target):
            diagnostics.warn(problem)
    if behaviors is not None:
        _check_behaviors(behaviors, loaded, target, diagnostics)
    cases = sum(len(t.all_cases()) for t in loaded.targets.values()) if loaded else 0
    # A skill measured only by its trigger queries has 0 cases: say what was loaded instead.
    prompts = (
        sum(len(t.triggers.cases) for t in loaded.targets.values() if t.triggers) if loaded else 0
    )
    deferred = _deferred(loaded)
    needs = _needs(loaded) if not diagnostics.errors else []
    if as_json:
        emit_json(
            {
                "ok": not diagnostics.errors,
                "repo": str(repo),
                "targets": sorted(loaded.targets) if loaded else [],
                "cases": cases,
                "trigger_prompts": prompts,
                "errors": [problem_json(e) for e in diagnostics.errors],
                "warnings": [problem_json(w) for w in diagnostics.warnings],
                "deferred": deferred,
                "needs": needs,
            },
            EXIT_INPUT if diagnostics.errors else EXIT_OK,
        )
    else:
        for error in diagnostics.errors:
            click.echo(f"{error.render()}", err=True)
        for warning in diagnostics.warnings:
            click.echo(f"warning: {warning.render()}", err=True)
        if not diagnostics.errors:
            targets = len(loaded.targets) if loaded else 0
            loaded_prompts = f", {prompts} trigger prompt(s)" if prompts else ""
            click.echo(f"ok: {targets} target(s), {cases} case(s){loaded_prompts} in {repo}")
        for item in needs:
            missing = item["missing_here"]
            here = f"; missing here: {'; '.join(missing)}" if missing else "; all found here"
            click.echo(
                f"needs: {item['target']}/{item['suite']}/{item['case']}:"
                f" {', '.join(item['needs'])}{here}"
            )
        for item in deferred:
            why = f" (not runnable: {item['problem']})" if item.get("problem") else ""
            click.echo(
                f"deferred: {item['target']}/{item['suite']}/{item['case']}{why};"
                " runs only with --include-deferred or when named"
            )
    return EXIT_INPUT if diagnostics.errors else EXIT_OK


def _needs(repo: EvalRepo | None) -> list[dict[str, Any]]:
    """Every case that states `needs`, and what of it this machine's PATH lacks (without the
    jail, which only a run sets up: the run looks again where its agent will run)."""
    from evaluator.pipeline.needs import check_needs
    from evaluator.sandbox import LaunchPolicy

    listed: list[dict[str, Any]] = []
    found: dict[str, list[str]] = {}  # one lookup per distinct set of needs
    for target in repo.targets.values() if repo else []:
        for case in target.all_cases():
            stated = case.needs.stated()
            if not stated:
                continue
            env = case.case.setup.env or {}
            key = "\n".join([*stated, env.get("PATH", "")])
            if key not in found:
                check = check_needs(case.needs, LaunchPolicy(), Path.cwd(), env)
                found[key] = check.missing or ([check.problem] if check.problem else [])
            listed.append(
                {
                    "target": target.target_id,
                    "suite": case.suite_id,
                    "case": case.case_id,
                    "needs": stated,
                    "missing_here": found[key],
                }
            )
    return listed


def _deferred(repo: EvalRepo | None) -> list[dict[str, str | None]]:
    """Every deferred case (upstream's `deferred-cases/`), and every draft that cannot load."""
    listed: list[dict[str, str | None]] = []
    for target in repo.targets.values() if repo else []:
        for case in target.deferred_cases():
            listed.append(
                {"target": target.target_id, "suite": case.suite_id, "case": case.case_id}
            )
        for draft in target.deferred_problems:
            listed.append(
                {
                    "target": target.target_id,
                    "suite": "?",
                    "case": Path(draft.path or "?").stem,
                    "problem": draft.render(),
                }
            )
    return listed


def _check_behaviors(
    directory: Path, repo: EvalRepo | None, target: str | None, diagnostics: Diagnostics
) -> None:
    """Every behaviour file loads, and each one answers exactly the cases it is meant for."""
    from evaluator.adapters import adapter_names
    from evaluator.modelserver.behaviors import (
        BehaviorLibrary,
        behavior_files,
        coverage_problems,
        load_behavior_file,
        unmatched_behaviors,
    )
    from evaluator.plan import other_targets_prompts

    try:
        files = behavior_files(directory)
    except InputError as exc:
        diagnostics.error(exc)
        return
    library: list[tuple[Path, Behavior]] = []
    for path in files:
        try:
            library.append((path, load_behavior_file(path, adapter_names())))
        except InputError as exc:
            diagnostics.error(exc)
    if diagnostics.errors or repo is None:
        return
    chosen = target or repo.default_target_id
    targets = [repo.targets[chosen]] if chosen in repo.targets else list(repo.targets.values())
    prompts = {c.case_id: c.case.input.user_prompt for t in targets for c in t.all_cases()}
    # `agentic-eval triggers` plays the same kind of folder to the target's trigger set.
    trigger_prompts = {
        f"{t.target_id}/{case.id}": case.prompt
        for t in targets
        if t.triggers is not None
        for case in t.triggers.cases
    }
    try:
        behaviors = BehaviorLibrary(
            [b for _, b in library], source=directory, files={b.name: p for p, b in library}
        )
    except InputError as exc:
        diagnostics.error(exc)
        return
    # Checked against one target (--target, or the default), a folder may still script the
    # repo's other targets too, as a run of that target accepts it.
    others = (
        other_targets_prompts(repo.root, repo.source_workspace, targets[0].target_id)
        if len(targets) == 1 and unmatched_behaviors(behaviors, prompts)
        else {}
    )
    for problem in coverage_problems(behaviors, prompts, trigger_prompts, other_prompts=others):
        diagnostics.error(problem)
