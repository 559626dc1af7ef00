"""Resolve --target/--suite/--case against a loaded repo into an ordered case list."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from evaluator.errors import InputError
from evaluator.repo import EvalRepo, LoadedCase, LoadedTarget, load_repo


@dataclass
class Selection:
    target: LoadedTarget
    suite_ids: list[str]
    cases: list[LoadedCase]
    explicit_case_ids: list[str]


def open_repo(
    repo: Path,
    source_workspace: Path | None,
    *,
    target: str | None = None,
    lenient: bool = False,
    default_target_only: bool = False,
) -> EvalRepo:
    """Loads the repo (only `target` when given; with `default_target_only`, else only the
    config's default target) and raises its first error; commands that run need a clean repo."""
    loaded, diagnostics = load_repo(
        repo,
        source_workspace,
        lenient=lenient,
        target=target,
        default_target_only=default_target_only,
    )
    if diagnostics.errors:
        first = diagnostics.errors[0]
        more = len(diagnostics.errors) - 1
        if more:
            first = InputError(
                f"{first.message} (and {more} more problem(s); run `agentic-eval validate`)",
                path=first.path,
                line=first.line,
                col=first.col,
                field=first.field,
            )
        raise first
    assert loaded is not None
    return loaded


def other_targets_prompts(
    repo: Path, source_workspace: Path | None, target_id: str
) -> dict[str, str]:
    """The case prompts of the repo's targets other than `target_id`, keyed `target/case`: one
    behaviours folder may script a whole repo, so a behaviour for another target's case is not
    stale in a run (or a `validate`) of one target. Read leniently, and their problems are left
    to a `validate` of their own: a run of one target never stops on another's."""
    loaded, _ = load_repo(repo, source_workspace, lenient=True)
    if loaded is None:
        return {}
    return {
        f"{other}/{case.case_id}": case.case.input.user_prompt
        for other, target in loaded.targets.items()
        if other != target_id
        for case in target.all_cases()
    }


def resolve_target(
    repo: EvalRepo, target_id: str | None = None, case_ids: Iterable[str] = ()
) -> LoadedTarget:
    """The target `--target` names, else the repo's default, else the one target holding every
    case `case_ids` names (case ids are unique across a repo: the upstream contract resolves a
    run of a single case without naming its target)."""
    chosen = target_id or repo.default_target_id or _target_of_cases(repo, case_ids)
    if chosen is None:
        names = ", ".join(sorted(repo.targets))
        spread = _targets_of_cases(repo, case_ids)
        if len(spread) > 1:
            where = "; ".join(f"{t}: {', '.join(ids)}" for t, ids in sorted(spread.items()))
            raise InputError(
                f"the cases named belong to several targets ({where}): a run is of one"
                " target; pass --target and its cases",
                field="--case",
            )
        raise InputError(f"several targets ({names}); pass --target or set default_target")
    target = repo.targets.get(chosen)
    if target is None:
        raise InputError(
            f"unknown target {chosen!r} (known: {', '.join(sorted(repo.targets))})",
            field="--target",
        )
    return target


def select_cases(
    repo: EvalRepo,
    target_id: str | None = None,
    suite_ids: list[str] | tuple[str, ...] = (),
    case_ids: list[str] | tuple[str, ...] = (),
    *,
    include_deferred: bool = False,
) -> Selection:
    """Deferred cases (upstream's `deferred-cases/`) run only when asked for: by
    `include_deferred`, or by naming their suite or case."""
    target = resolve_target(repo, target_id, case_ids)
    chosen = target.target.target_id
    pool = {**target.deferred, **target.suites}
    if suite_ids:
        suites = list(dict.fromkeys(suite_ids))
    elif case_ids:
        suites = list(pool)
    else:
        suites = list(target.target.default_suites) or list(target.suites)
        if include_deferred:
            suites += [s for s in target.deferred if s not in suites]
    for suite_id in suites:
        if suite_id not in pool:
            raise InputError(
                f"unknown suite {suite_id!r} in target {chosen!r}"
                f" (known: {', '.join(sorted(pool))})",
                field="--suite",
            )
    cases = [case for suite_id in suites for case in pool[suite_id].cases]
    if case_ids:
        known = {case.case_id: case for suite in pool.values() for case in suite.cases}
        missing = [c for c in case_ids if c not in known]
        if missing:
            raise InputError(
                f"unknown case id(s): {', '.join(missing)}{_case_hint(missing, known)}",
                field="--case",
            )
        wanted = list(dict.fromkeys(case_ids))
        in_scope = {case.case_id for case in cases}
        outside = [c for c in wanted if c not in in_scope]
        if outside:
            raise InputError(
                f"case(s) {', '.join(outside)} not in the selected suites", field="--case"
            )
        cases = [known[c] for c in wanted]
        suites = list(dict.fromkeys(case.suite_id for case in cases))
    if not cases:
        if not pool and target.triggers is not None:
            raise InputError(
                f"target {chosen!r} holds no cases, only the trigger set"
                f" {target.triggers.path.name}: run it with `agentic-eval triggers`"
            )
        raise InputError(f"the selection of target {chosen!r} holds no cases")
    return Selection(target=target, suite_ids=suites, cases=cases, explicit_case_ids=list(case_ids))


def _targets_of_cases(repo: EvalRepo, case_ids: Iterable[str]) -> dict[str, list[str]]:
    """Each target holding some of `case_ids` (deferred cases too), with those ids."""
    found: dict[str, list[str]] = {}
    for case_id in dict.fromkeys(case_ids):
        for target_id, target in repo.targets.items():
            suites = [*target.suites.values(), *target.deferred.values()]
            if any(case.case_id == case_id for suite in suites for case in suite.cases):
                found.setdefault(target_id, []).append(case_id)
    return found


def _target_of_cases(repo: EvalRepo, case_ids: Iterable[str]) -> str | None:
    """The one target holding every case `case_ids` names."""
    wanted = list(dict.fromkeys(case_ids))
    found = _targets_of_cases(repo, wanted)
    if len(found) == 1:
        ((target_id, ids),) = found.items()
        return target_id if len(ids) == len(wanted) else None
    return None


def _case_hint(missing: list[str], known: Iterable[str]) -> str:
    """A did-you-mean for mistyped case ids: an evals.json author gives the eval's own id
    (`--case 6`), which the loader names `eval-6`; else the closest known id."""
    ids = sorted(known)
    hints = []
    for case_id in missing:
        close = [f"eval-{case_id}"] if f"eval-{case_id}" in ids else []
        close = close or difflib.get_close_matches(case_id, ids, n=1, cutoff=0.6)
        hints += [repr(c) for c in close]
    return f" (did you mean {', '.join(hints)}?)" if hints else ""
