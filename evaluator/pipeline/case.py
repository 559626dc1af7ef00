"""A case's result from its attempts: status, stats, the accepted attempt's assertions."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from evaluator.artifacts.attribution import score_case
from evaluator.artifacts.models import AttemptRecord, CaseResult
from evaluator.artifacts.redact import Redactor
from evaluator.artifacts.rundir import RunDir
from evaluator.contract.digest import case_digest, judged_digest
from evaluator.contract.models import BlockedReason, Status
from evaluator.judge.chain import NO_ASSERTIONS, pending_entries
from evaluator.judge.verdict import AssertionResult
from evaluator.pipeline.attempt import AttemptResult, promote
from evaluator.pipeline.stats import case_stats
from evaluator.repo import LoadedCase, LoadedTarget
from evaluator.workspace.provenance import fixture_digests


def _accepted(slots: list[AttemptResult]) -> AttemptResult:
    for wanted in ("fail", "pass"):
        for result in slots:
            if result.status == wanted and result.judged:
                return result
    return slots[-1]


def final_slots(attempts: list[AttemptResult]) -> list[AttemptResult]:
    """The final attempt of each try, in order: a retry replaces the invalid attempt it reran."""
    slots: dict[int, AttemptResult] = {}
    for attempt in attempts:
        slots[attempt.retry_of or attempt.number] = attempt
    return [slots[k] for k in sorted(slots)]


def _allowed(
    status: Status, reason: BlockedReason | None, allowed: Sequence[str]
) -> tuple[Status, BlockedReason | None, str | None]:
    if status in allowed:
        return status, reason, None
    fallback: Status = "blocked" if "blocked" in allowed else "fail"
    note = f"status {status!r} is not in the target's allowed_statuses; written as {fallback!r}"
    return fallback, (reason or "unclear-rule") if fallback == "blocked" else None, note


def _case_file(case: LoadedCase, source_workspace: Path | None) -> str:
    path = case.path.resolve()
    if source_workspace is not None and path.is_relative_to(source_workspace.resolve()):
        return path.relative_to(source_workspace.resolve()).as_posix()
    return str(path)


def finalize_case(
    run_dir: RunDir,
    case: LoadedCase,
    slots: list[AttemptResult],
    all_attempts: list[AttemptResult],
    allowed_statuses: Sequence[str],
    earlier: Sequence[AttemptRecord] = (),
    source_workspace: Path | None = None,
    target: LoadedTarget | None = None,
) -> CaseResult:
    """`slots` are the final attempt of each of the K tries; `all_attempts` include retried ones;
    `earlier` are attempts of a run that stopped before the case finished (listed, not counted)."""
    stats = case_stats([s.status for s in slots])
    failed = [s for s in slots if s.status == "fail"]
    passed = [s for s in slots if s.status == "pass"]
    blocked = [s for s in slots if s.status == "blocked"]
    status: Status
    reason: BlockedReason | None = None
    if failed:
        status = "fail"
    elif passed:
        status = "pass"
    else:
        status = "blocked"
        reason = blocked[0].blocked_reason or "insufficient-evidence"
    accepted = _accepted(slots)
    promote(run_dir, accepted)
    notes = []
    if status == "blocked" and not pending_entries(case.case):
        # Said first: it is the cause whatever the attempts did (skill-creator evals often
        # carry only `expected_output`, which no judge grades).
        notes.append(NO_ASSERTIONS)
    for attempt in all_attempts:
        if not attempt.valid:
            notes.append(f"attempt {attempt.number:02d} invalid: {attempt.reason}")
        elif attempt.status == "blocked" and attempt.reason:
            notes.append(
                f"attempt {attempt.number:02d} blocked ({attempt.blocked_reason}): {attempt.reason}"
            )
    for record in earlier:
        notes.append(
            f"attempt {record.attempt:02d} interrupted, not counted:"
            f" {record.status or 'unfinished'}" + (f" ({record.reason})" if record.reason else "")
        )
    if stats.flaky:
        failing = ", ".join(f"{s.number:02d}" for s in failed)
        notes.append(
            f"flaky: {stats.passed} of {stats.judged} judged attempts passed;"
            f" failing attempt(s): {failing}"
        )
    status, reason, downgrade = _allowed(status, reason, allowed_statuses)
    if downgrade:
        notes.append(downgrade)
    attempt_prefix = run_dir.attempt_ref_prefix(case.case_id, accepted.number)
    case_prefix = run_dir.case_ref_prefix(case.case_id)
    if accepted.judgement is not None:
        assertions = [
            e.with_ref_prefix(attempt_prefix, case_prefix) for e in accepted.judgement.entries
        ]
    else:
        assertions = [
            AssertionResult(
                summary=p.entry.description,
                status="blocked",
                entry_id=p.entry_id,
                polarity=p.polarity,
                blocked_reason=reason or "insufficient-evidence",
                notes=["not judged: no valid attempt"],
            )
            for p in pending_entries(case.case)
        ]
    mismatches = accepted.workspace.mismatches if accepted.workspace else []
    result = CaseResult(
        case_id=case.case_id,
        workspace_root=str(accepted.workspace.path) if accepted.workspace else None,
        thread_id=accepted.evidence.thread_id if accepted.evidence else None,
        session_path=str(accepted.session.path) if accepted.session else None,
        status=status,
        blocked_reason=reason if status == "blocked" else None,
        assertions=assertions,
        notes=notes,
        suggested_fix_files=list(case.case.notes.likely_fix_files) if status != "pass" else [],
        suite_id=case.suite_id,
        title=case.case.title,
        case_file=_case_file(case, source_workspace),
        case_digest=case_digest(case.case),
        definition_digest=case_digest(case.case, with_id=False),
        judged_digest=(
            judged_digest(case.case, fixture_digests(target, case)) if target is not None else None
        ),
        attempts=sorted(
            [*earlier, *(a.record(run_dir) for a in all_attempts)], key=lambda r: r.attempt
        ),
        stats=stats,
        environment_mismatches=mismatches,
    )
    # Said at the case level too, so a reader without our attempt rules counts it as we do.
    blame = score_case(result).blame
    if blame is not None:
        result.blocked_by, result.blocked_cause = blame.side, blame.cause
    redactor = Redactor({name: value for a in all_attempts for name, value in a.secrets.items()})
    if not redactor:
        return result
    return CaseResult.model_validate_json(redactor.text(result.model_dump_json()))
