"""The assertion-level diff: which assertion entries of a case changed verdict between the runs.

An entry's verdict on one side aggregates the case's tries like the case status does: `fail` if
any try failed it, `pass` if some try passed it and none failed it, else `blocked`. The tries'
verdicts come from each attempt's `attempt.json`; a run without them (another evaluator's) gives
the case-level verdicts, one per entry. Evidence refs are the case-level ones (relative to the
run directory, they point into `case-artifacts/<case>/accepted-session.json`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from evaluator.artifacts.attribution import final_attempts
from evaluator.artifacts.models import AssertionResult, AttemptFile, CaseResult
from evaluator.compare.model import AssertionFlip, FlipDirection
from evaluator.vocabulary import Polarity, Status


@dataclass
class EntryVerdicts:
    summary: str
    polarity: Polarity
    statuses: list[Status] = field(default_factory=list)
    evidence: list[str] = field(default_factory=list)

    @property
    def status(self) -> Status:
        if "fail" in self.statuses:
            return "fail"
        return "pass" if "pass" in self.statuses else "blocked"

    @property
    def passed(self) -> int:
        return self.statuses.count("pass")

    @property
    def judged(self) -> int:
        return sum(1 for s in self.statuses if s != "blocked")


def _key(entry: AssertionResult) -> str:
    return entry.entry_id or entry.summary


def _attempt_assertions(run_dir: Path, result: CaseResult) -> list[list[AssertionResult]] | None:
    """Each judged try's verdicts, or None when any judged try has no readable attempt.json."""
    judged = []
    for record in final_attempts(result):
        if record.status not in ("pass", "fail"):
            continue
        path = (
            run_dir
            / "case-artifacts"
            / result.case_id
            / "attempts"
            / f"attempt-{record.attempt:02d}"
            / "attempt.json"
        )
        try:
            attempt = AttemptFile.model_validate(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError, ValidationError):
            return None
        if attempt.assertions is None:
            return None
        judged.append(attempt.assertions)
    return judged


def entry_verdicts(run_dir: Path, result: CaseResult) -> dict[str, EntryVerdicts]:
    entries = {
        _key(a): EntryVerdicts(a.summary, a.polarity, evidence=list(a.evidence))
        for a in result.assertions
    }
    tries = _attempt_assertions(run_dir, result)
    if not tries:
        for a in result.assertions:
            entries[_key(a)].statuses.append(a.status)
        return entries
    for assertions in tries:
        for a in assertions:
            entry = entries.setdefault(_key(a), EntryVerdicts(a.summary, a.polarity))
            entry.statuses.append(a.status)
    return entries


def _direction(base: Status | None, candidate: Status | None) -> FlipDirection:
    if base == "pass":
        return "broke"
    if candidate == "pass":
        return "fixed"
    return "changed"


def assertion_flips(
    base: dict[str, EntryVerdicts], candidate: dict[str, EntryVerdicts]
) -> list[AssertionFlip]:
    flips = []
    for key in dict.fromkeys([*base, *candidate]):
        was, now = base.get(key), candidate.get(key)
        was_status = was.status if was else None
        now_status = now.status if now else None
        if was_status == now_status:
            continue
        known = now or was
        assert known is not None
        flips.append(
            AssertionFlip(
                entry_id=key,
                summary=known.summary,
                polarity=known.polarity,
                base_status=was_status,
                candidate_status=now_status,
                base_passed=was.passed if was else 0,
                base_judged=was.judged if was else 0,
                candidate_passed=now.passed if now else 0,
                candidate_judged=now.judged if now else 0,
                direction=_direction(was_status, now_status),
                base_evidence=was.evidence if was else [],
                candidate_evidence=now.evidence if now else [],
            )
        )
    return flips
