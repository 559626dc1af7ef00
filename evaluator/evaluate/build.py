"""`evaluation.json` from the variants' finished run directories (docs/statistics.md, "evaluate").

A case's counted attempts are its K tries as the verified score counts them
(`artifacts/attribution.py`): judged tries, plus tries blocked by the agent's own fault (a
timeout, a repeated isolation violation) as not passed; tries blocked by the eval or the machine,
and contaminated no-skill attempts, are not counted.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from evaluator.artifacts.attribution import attempt_blame, final_attempts
from evaluator.artifacts.models import CaseResult, Manifest
from evaluator.artifacts.rundir import RunDir
from evaluator.evaluate.inspect import CONTAMINATED, CONTAMINATION_FILE
from evaluator.evaluate.model import (
    Bounds,
    CaseDifference,
    ContaminationCheck,
    CostDifference,
    Headline,
    OverallDifference,
    VariantComparison,
    VariantCostSummary,
    VariantSummary,
)
from evaluator.stats.cost import VariantCost, cost_of_difference
from evaluator.stats.noise import headline
from evaluator.stats.proportion import Interval, wilson
from evaluator.stats.variants import CaseCounts, compare_variants
from evaluator.stats.variants import VariantComparison as Stats


@dataclass(frozen=True)
class FinishedVariant:
    label: str
    kind: str
    source: str
    description: str
    run_dir: RunDir
    relative_dir: str
    manifest: Manifest
    results: list[CaseResult]
    commit: str | None = None
    skill_dir: Path | None = None  # set for a no-skill variant: the skill it must never see
    checked: bool = False  # a no-skill variant's attempts were checked for contamination


def case_counts(result: CaseResult) -> tuple[int, int]:
    """(passed, counted) over the case's K tries."""
    tries = final_attempts(result)
    if not tries:
        if result.status in ("pass", "fail"):
            return (1 if result.status == "pass" else 0), 1
        return 0, 0
    passed = sum(1 for t in tries if t.status == "pass")
    judged = sum(1 for t in tries if t.status in ("pass", "fail"))
    against = sum(
        1
        for t in tries
        if t.status not in ("pass", "fail")
        and not ((t.reason or "").startswith(CONTAMINATED) and t.blocked_by != "agent")
        and attempt_blame(t).side == "agent"
    )
    return passed, judged + against


def _bounds(interval: Interval | None) -> Bounds | None:
    return Bounds(low=interval.low, high=interval.high) if interval is not None else None


def _cost(results: Sequence[CaseResult]) -> VariantCost:
    attempts, tokens, seconds, any_tokens = 0, 0, 0.0, False
    for result in results:
        for record in final_attempts(result):
            if record.interrupted or record.duration_s is None:
                continue
            attempts += 1
            seconds += record.duration_s
            if record.tokens:
                any_tokens = True
                tokens += record.tokens.get(
                    "total", record.tokens.get("input", 0) + record.tokens.get("output", 0)
                )
    return VariantCost(attempts, tokens if any_tokens else None, seconds if attempts else None)


def contamination_check(variant: FinishedVariant) -> ContaminationCheck | None:
    if not variant.checked or variant.skill_dir is None:
        return None
    layers: dict[str, None] = {}
    checked = 0
    contaminated: list[str] = []
    root = variant.run_dir.path / "case-artifacts"
    for found in sorted(root.glob(f"*/attempts/attempt-*/{CONTAMINATION_FILE}")):
        payload = json.loads(found.read_text(encoding="utf-8"))
        checked += 1
        layers.update(dict.fromkeys(payload.get("layers", [])))
        if payload.get("contaminated"):
            case_id, attempt = found.parts[-4], found.parts[-2]
            findings = payload.get("findings") or [{}]
            first = findings[0]
            # Only the agent's own reach or making (`Finding.reached`): counted, not passed.
            own = all(f.get("reached") is False for f in findings)
            contaminated.append(
                f"{case_id}/{attempt}: {first.get('layer')} {first.get('ref')}: {first.get('detail')}"
                + (" (the agent's own doing: counted as not passed)" if own else "")
            )
    blocked = [
        r.case_id
        for r in variant.results
        if any(
            (t.reason or "").startswith(CONTAMINATED) and t.blocked_by != "agent"
            for t in final_attempts(r)
        )
    ]
    return ContaminationCheck(
        skill_dir=str(variant.skill_dir),
        layers=list(layers),
        attempts_checked=checked,
        contaminated_attempts=contaminated,
        blocked_cases=blocked,
    )


def variant_summary(variant: FinishedVariant) -> VariantSummary:
    counts = [case_counts(r) for r in variant.results]
    passed, counted = sum(p for p, _ in counts), sum(t for _, t in counts)
    cost = _cost(variant.results)
    return VariantSummary(
        label=variant.label,
        kind=variant.kind,
        source=variant.source,
        description=variant.description,
        run_dir=variant.relative_dir,
        commit=variant.commit,
        skill_hash=variant.manifest.skill_hash,
        run_state=variant.manifest.run_state,
        cases=len(variant.results),
        passed=passed,
        counted=counted,
        pass_rate=passed / counted if counted else None,
        interval=_bounds(wilson(passed, counted)),
        statuses={
            s: sum(1 for r in variant.results if r.status == s) for s in ("pass", "fail", "blocked")
        },
        cost=VariantCostSummary(
            attempts=cost.attempts,
            tokens_per_attempt=cost.tokens_per_attempt(),
            seconds_per_attempt=cost.seconds_per_attempt(),
        ),
        contamination=contamination_check(variant),
    )


def compare(
    reference: FinishedVariant, compared: FinishedVariant, floor: float | None
) -> tuple[VariantComparison, Stats]:
    a = {r.case_id: case_counts(r) for r in reference.results}
    b = {r.case_id: case_counts(r) for r in compared.results}
    counts = [
        CaseCounts(case_id, a[case_id][0], a[case_id][1], b[case_id][0], b[case_id][1])
        for case_id in a
        if case_id in b
    ]
    stats = compare_variants(counts, "greater")
    said = headline(stats, floor)
    cost = cost_of_difference(
        _cost(reference.results), _cost(compared.results), stats.overall.mean_difference
    )
    overall = stats.overall
    return (
        VariantComparison(
            reference=reference.label,
            compared=compared.label,
            alternative=stats.alternative,
            alpha=stats.alpha,
            seed=stats.seed,
            overall=OverallDifference(
                cases=overall.cases,
                mean_difference=overall.mean_difference,
                interval=_bounds(overall.bootstrap.interval) if overall.bootstrap else None,
                interval_method=overall.bootstrap.method if overall.bootstrap else None,
                p=overall.p,
                significant=overall.significant,
            ),
            cases=[
                CaseDifference(
                    case_id=c.counts.case_id,
                    passed_a=c.counts.passed_a,
                    total_a=c.counts.total_a,
                    passed_b=c.counts.passed_b,
                    total_b=c.counts.total_b,
                    difference=c.difference,
                    interval=_bounds(c.interval),
                    p=c.p,
                    p_holm=c.p_holm,
                    significant=c.significant,
                    p_hurt=c.p_hurt,
                    p_hurt_holm=c.p_hurt_holm,
                    hurt=c.hurt,
                )
                for c in stats.cases
            ],
            hurt_cases=[c.counts.case_id for c in stats.cases if c.hurt],
            untestable=stats.untestable,
            headline=Headline(call=said.call, text=said.text),
            cost=CostDifference(
                extra_tokens_per_attempt=cost.extra_tokens_per_attempt,
                extra_seconds_per_attempt=cost.extra_seconds_per_attempt,
                tokens_per_point=cost.tokens_per_point,
                seconds_per_point=cost.seconds_per_point,
            ),
        ),
        stats,
    )
