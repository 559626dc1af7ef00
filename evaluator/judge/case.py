"""Judging one attempt of a case: every entry, then the attempt status per the contract."""

from __future__ import annotations

from dataclasses import dataclass, field

from evaluator.contract.models import AssertionEntry, BlockedReason, Case
from evaluator.judge import criteria as _criteria  # noqa: F401  (registers the judge)
from evaluator.judge import structured as _structured  # noqa: F401  (registers the judge)
from evaluator.judge.base import CheckOutcome, EntryVerdict, JudgeContext
from evaluator.judge.registry import JUDGES
from evaluator.vocabulary import CheckStatus


@dataclass
class CaseJudgement:
    status: CheckStatus
    blocked_reason: BlockedReason | None
    entries: list[EntryVerdict] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _entry(entry: AssertionEntry, polarity: str, context: JudgeContext) -> EntryVerdict:
    verdict = EntryVerdict(summary=entry.description, polarity=polarity, status="blocked")  # type: ignore[arg-type]
    for judge in JUDGES:
        outcomes = judge.judge(entry, context)
        if outcomes is None:
            continue
        verdict.judge = judge.name
        verdict.checks = outcomes
        _combine(verdict, outcomes)
        return verdict
    verdict.blocked_reason = "unclear-rule"
    verdict.notes.append(
        "no judge can decide these natural-language criteria from evidence; add `checks:`"
    )
    return verdict


def _combine(verdict: EntryVerdict, outcomes: list[CheckOutcome]) -> None:
    refs = [ref for o in outcomes for ref in o.evidence]
    verdict.evidence = list(dict.fromkeys(refs))
    verdict.notes = [f"{o.kind}: {o.detail}" for o in outcomes]
    if verdict.polarity == "required":
        # Every check must hold; one failure fails the entry, otherwise one gap blocks it.
        if any(o.status == "fail" for o in outcomes):
            verdict.status = "fail"
        elif any(o.status == "blocked" for o in outcomes):
            verdict.status = "blocked"
            verdict.blocked_reason = next(
                o.blocked_reason for o in outcomes if o.status == "blocked"
            )
        else:
            verdict.status = "pass"
        return
    # Forbidden: observing any one of its checks is observing the forbidden behaviour.
    if any(o.status == "pass" for o in outcomes):
        verdict.status = "fail"
        verdict.evidence = list(
            dict.fromkeys(r for o in outcomes if o.status == "pass" for r in o.evidence)
        )
    elif any(o.status == "blocked" for o in outcomes):
        verdict.status = "blocked"
        verdict.blocked_reason = next(o.blocked_reason for o in outcomes if o.status == "blocked")
    else:
        verdict.status = "pass"


def judge_case(case: Case, context: JudgeContext) -> CaseJudgement:
    entries = [_entry(e, "required", context) for e in case.assertions.required]
    entries += [_entry(e, "forbidden", context) for e in case.assertions.forbidden]
    failed = [e for e in entries if e.status == "fail"]
    blocked = [e for e in entries if e.status == "blocked"]
    if failed:
        notes = [f"{e.polarity} assertion failed: {e.summary}" for e in failed]
        return CaseJudgement("fail", None, entries, notes)
    if blocked:
        reason = blocked[0].blocked_reason or "insufficient-evidence"
        notes = [
            f"{e.polarity} assertion blocked ({e.blocked_reason}): {e.summary}" for e in blocked
        ]
        return CaseJudgement("blocked", reason, entries, notes)
    if not entries:
        return CaseJudgement("blocked", "unclear-rule", entries, ["the case has no assertions"])
    return CaseJudgement("pass", None, entries, [])
