"""Comparing two finished runs: read both, refuse incomparable ones, classify every case."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from evaluator.artifacts.attribution import score_run
from evaluator.artifacts.models import CaseResult
from evaluator.compare.assertions import assertion_flips, entry_verdicts
from evaluator.compare.classify import classify
from evaluator.compare.compatibility import differences, setting_differences
from evaluator.compare.model import CaseComparison, Comparison, RunSummary, compared_cases
from evaluator.compare.sides import case_side
from evaluator.defaults import DEFAULT_ALPHA, DEFAULT_MIN_COVERAGE
from evaluator.errors import InputError
from evaluator.gate.rundir import RunRecord, read_run
from evaluator.stats.holm import holm_optional
from evaluator.stats.proportion import newcombe
from evaluator.vocabulary import COMPARISON_CLASSES

METHOD = (
    "With more than one attempt on a side, a regression needs a significant drop in pass count:"
    " one-sided Boschloo exact test at alpha={alpha:g}. With one attempt per side, any pass → fail"
    " is a regression. An attempt the agent caused to be blocked counts as not passed. Each"
    " case's p is also given Holm-corrected over the cases tested (`p_drop_holm`), which does"
    " not change its class."
)


def _text(manifest: dict[str, Any], name: str) -> str | None:
    value = manifest.get(name)
    return value if isinstance(value, str) else None


def _variant_name(manifest: dict[str, Any]) -> str | None:
    variant = manifest.get("variant")
    if not isinstance(variant, dict):
        return None
    label, evaluation = variant.get("label"), variant.get("evaluation_id")
    if not isinstance(label, str) or not isinstance(evaluation, str):
        return None
    return f"{label} of {evaluation}"


def _summary(run: RunRecord) -> RunSummary:
    score = score_run(run.results, run.selected)
    manifest = run.manifest
    attempts = manifest.get("attempts")
    return RunSummary(
        run_id=run.run_id,
        variant=_variant_name(manifest),
        path=str(run.path),
        target_id=_text(manifest, "target_id"),
        target_skill_path=_text(manifest, "target_skill_path"),
        candidate_skill=_text(manifest, "candidate_skill"),
        attempts=attempts if isinstance(attempts, int) else None,
        cases=len(run.results),
        passed=score.count("pass"),
        failed=score.count("fail"),
        blocked=score.count("blocked"),
        pass_rate=score.hard,
        coverage=score.coverage,
    )


def _compare_case(
    base_run: RunRecord,
    candidate_run: RunRecord,
    base: CaseResult | None,
    candidate: CaseResult | None,
    alpha: float,
) -> CaseComparison:
    base_side = case_side(base) if base else None
    candidate_side = case_side(candidate) if candidate else None
    found = classify(base_side, candidate_side, alpha)
    flips = (
        assertion_flips(
            entry_verdicts(base_run.path, base), entry_verdicts(candidate_run.path, candidate)
        )
        if base and candidate
        else []
    )
    known = candidate or base
    assert known is not None
    renamed = base.case_id if base and candidate and base.case_id != candidate.case_id else None
    interval = (
        newcombe(candidate_side.passed, candidate_side.counted, base_side.passed, base_side.counted)
        if base_side and candidate_side
        else None
    )
    return CaseComparison(
        case_id=known.case_id,
        renamed_from=renamed,
        suite_id=known.suite_id,
        title=known.title,
        classification=found.classification,
        reason=found.reason,
        decision=found.decision,
        p_drop=found.p_drop,
        p_rise=found.p_rise,
        difference=(
            candidate_side.passed / candidate_side.counted - base_side.passed / base_side.counted
            if interval and base_side and candidate_side
            else None
        ),
        difference_interval=(interval.low, interval.high) if interval else None,
        base=base_side,
        candidate=candidate_side,
        assertion_flips=flips,
    )


def renamed_cases(base: list[CaseResult], candidate: list[CaseResult]) -> dict[str, str]:
    """Old id → new id of each case the base has and the candidate lacks whose definition,
    but for its id, is that of exactly one case the candidate has and the base lacks. Without
    this a renamed case that broke was `removed` + `added`, and CI saw no regression. Runs that
    recorded no `definition_digest` (older ones, other evaluators') pair nothing."""
    base_ids = {r.case_id for r in base}
    candidate_ids = {r.case_id for r in candidate}

    def unpaired(results: list[CaseResult], others: set[str]) -> dict[str, list[str]]:
        found: dict[str, list[str]] = {}
        for r in results:
            if r.case_id not in others and r.definition_digest:
                found.setdefault(r.definition_digest, []).append(r.case_id)
        return found

    gone, new = unpaired(base, candidate_ids), unpaired(candidate, base_ids)
    return {
        ids[0]: new[digest][0]
        for digest, ids in gone.items()
        if len(ids) == 1 and len(new.get(digest, [])) == 1
    }


def compare_runs(
    base_path: Path,
    candidate_path: Path,
    *,
    alpha: float = DEFAULT_ALPHA,
    allow_different_cases: bool = False,
    min_coverage: float = DEFAULT_MIN_COVERAGE,
) -> Comparison:
    """Raises InputError (exit 2) for unreadable runs and, without `allow_different_cases`, for
    runs of different targets, skills or case definitions."""
    if not 0 < alpha < 1:
        raise InputError(
            f"alpha must lie strictly between 0 and 1 (got {alpha:g})", field="--alpha"
        )
    base_run, candidate_run = read_run(base_path), read_run(candidate_path)
    found = differences(base_run, candidate_run)
    if found and not allow_different_cases:
        raise InputError(
            f"{'; '.join(found)} (pass --allow-different-cases to compare anyway)",
            path=candidate_path,
        )
    base_by_id = {r.case_id: r for r in base_run.results}
    candidate_by_id = {r.case_id: r for r in candidate_run.results}
    renames = renamed_cases(base_run.results, candidate_run.results)
    for old, new in renames.items():
        base_by_id[new] = base_by_id.pop(old)
    # Candidate order first (the run under review), then what only the base had.
    order = [*candidate_by_id, *(c for c in base_by_id if c not in candidate_by_id)]
    cases = [
        _compare_case(base_run, candidate_run, base_by_id.get(c), candidate_by_id.get(c), alpha)
        for c in order
    ]
    # Shown beside the raw p, as `evaluate` corrects; the class stays the per-case alarm's.
    drops = holm_optional([c.p_drop for c in cases])
    rises = holm_optional([c.p_rise for c in cases])
    for case, drop, rise in zip(cases, drops, rises, strict=True):
        case.p_drop_holm, case.p_rise_holm = drop, rise
    counts = {name: 0 for name in COMPARISON_CLASSES}
    for case in cases:
        counts[case.classification] += 1
    decided, both = compared_cases(cases)
    return Comparison(
        created_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        base=_summary(base_run),
        candidate=_summary(candidate_run),
        alpha=alpha,
        method=METHOD.format(alpha=alpha),
        allow_different_cases=allow_different_cases,
        differences=found,
        setting_differences=setting_differences(base_run, candidate_run),
        counts=counts,
        regressions=[c.case_id for c in cases if c.classification == "regression"],
        coverage=decided / both if both else None,
        min_coverage=min_coverage,
        cases=cases,
    )
