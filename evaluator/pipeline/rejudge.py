"""`agentic-eval judge RUN_DIR`: judge again from the saved evidence, without running agents."""

from __future__ import annotations

import json
from pathlib import Path

from evaluator.artifacts.models import AttemptFile, CaseResult, IsolationSummary
from evaluator.artifacts.rundir import RunDir, write_json
from evaluator.evidence import SessionEvidence
from evaluator.isolation import IsolationReport
from evaluator.isolation.assess import Violation
from evaluator.judge import JudgeContext, ModelGrader, judge_case
from evaluator.pipeline.attempt import AttemptResult, apply_judgement, attempt_file
from evaluator.pipeline.case import finalize_case
from evaluator.pipeline.run import write_reports
from evaluator.plan import open_repo, select_cases
from evaluator.sessions import SessionRef
from evaluator.workspace import AttemptWorkspace


def _isolation(summary: IsolationSummary) -> IsolationReport:
    return IsolationReport(
        verdict=summary.verdict,
        workspace=summary.workspace,
        violations=[Violation(v.ref, v.kind, v.path, v.detail) for v in summary.violations],
        reliable_signals=summary.reliable_signals,
        checked=summary.checked,
        allowed_outside=list(summary.allowed_outside),
        opaque=[(o.get("ref", ""), o.get("reason", "")) for o in summary.opaque],
        reason=summary.reason,
    )


def _restore(run_dir: RunDir, case_id: str, saved: AttemptFile) -> AttemptResult:
    workspace = AttemptWorkspace(
        case_id, saved.attempt, Path(saved.workspace_root or "."), mismatches=saved.mismatches
    )
    result = AttemptResult(
        case_id,
        saved.attempt,
        workspace,
        saved.status or "blocked",
        blocked_reason=saved.blocked_reason,
        reason=saved.reason,
        valid=saved.valid,
        retry_of=saved.retry_of,
    )
    directory = run_dir.attempt_artifacts(case_id, saved.attempt)
    session_json = directory / "accepted-session.json"
    if session_json.is_file():
        result.evidence = SessionEvidence.from_json(
            json.loads(session_json.read_text(encoding="utf-8"))
        )
        if saved.session_path:
            result.session = SessionRef(result.evidence.thread_id or "", Path(saved.session_path))
    if saved.isolation_report is not None:
        result.isolation = _isolation(saved.isolation_report)
    return result


def rejudge_run(run_path: Path, grader: ModelGrader | None = None) -> list[CaseResult]:
    run_dir = RunDir(run_path)
    manifest = run_dir.read_manifest()
    repo = open_repo(
        Path(manifest.repo or "agentic-evals"),
        Path(manifest.source_workspace) if manifest.source_workspace else None,
    )
    selection = select_cases(repo, manifest.target_id, (), tuple(manifest.resolved_case_ids))
    results = []
    for case in selection.cases:
        if not run_dir.case_result_path(case.case_id).is_file():
            continue
        attempts = []
        for path in sorted(
            (run_dir.case_artifacts(case.case_id) / "attempts").glob("attempt-*/attempt.json")
        ):
            saved = AttemptFile.model_validate_json(path.read_text(encoding="utf-8"))
            attempt = _restore(run_dir, case.case_id, saved)
            if (
                saved.assertions is not None
                and attempt.evidence is not None
                and attempt.isolation is not None
            ):
                assert attempt.workspace is not None
                context = JudgeContext(
                    evidence=attempt.evidence,
                    workspace=attempt.workspace.path,
                    ref_prefix=run_dir.attempt_ref_prefix(case.case_id, attempt.number),
                    workspace_available=attempt.workspace.path.is_dir(),
                    record_dir=path.parent / "judge",
                    grader=grader,
                )
                apply_judgement(attempt, judge_case(case.case, context))
                # Everything else the attempt recorded (times, exit code) stays as it was.
                rejudged = attempt_file(run_dir, attempt)
                updated = saved.model_copy(
                    update={
                        "status": rejudged.status,
                        "blocked_reason": rejudged.blocked_reason,
                        "reason": rejudged.reason,
                        "assertions": rejudged.assertions,
                    }
                )
                write_json(path, updated.model_dump(mode="json"))
            attempts.append(attempt)
        slots: dict[int, AttemptResult] = {}
        for attempt in attempts:
            slots[attempt.retry_of or attempt.number] = attempt  # a retry replaces its first try
        finals = [slots[k] for k in sorted(slots)]
        result = finalize_case(
            run_dir, case, finals, attempts, selection.target.target.allowed_statuses
        )
        run_dir.write_case_result(result)
        results.append(result)
    write_reports(run_dir, manifest)
    return results
