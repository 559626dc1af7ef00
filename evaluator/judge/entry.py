"""An entry's status from its checks' verdicts: the one rule every judge of the chain applies."""

from __future__ import annotations

from evaluator.judge.base import PendingEntry
from evaluator.judge.checks.logic import combine_all, combine_any
from evaluator.judge.verdict import AssertionResult, CheckVerdict, Provenance
from evaluator.vocabulary import CheckStatus, DecidedBy, Status


def entry_result(
    pending: PendingEntry,
    decided_by: DecidedBy,
    verdicts: list[CheckVerdict],
    provenance: list[Provenance] | None = None,
) -> AssertionResult:
    """A required entry holds when every check passes; a forbidden entry is observed (and its
    status is `fail`) when any of its checks passes. A gap that could change this blocks."""
    if pending.polarity == "required":
        combined = combine_all("all_of", verdicts)
        status: Status = combined.status
    else:
        combined = combine_any("any_of", verdicts)
        observed: dict[CheckStatus, Status] = {"pass": "fail", "fail": "pass", "blocked": "blocked"}
        status = observed[combined.status]
    return AssertionResult(
        summary=pending.entry.description,
        status=status,
        evidence=combined.evidence,
        entry_id=pending.entry_id,
        polarity=pending.polarity,
        decided_by=decided_by,
        blocked_reason=combined.blocked_reason if status == "blocked" else None,
        notes=[f"{v.kind}: {v.detail}" for v in verdicts],
        checks=verdicts,
        provenance=provenance or [],
    )
