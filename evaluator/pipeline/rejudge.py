"""`agentic-eval judge RUN_DIR`: judge again from the saved evidence, without running agents."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from evaluator.artifacts.models import CaseResult
from evaluator.artifacts.rundir import RunDir, write_json
from evaluator.evidence import SessionEvidence
from evaluator.isolation import IsolationReport
from evaluator.judge import JudgeContext, judge_case
from evaluator.judge.grading import ModelGrader
from evaluator.pipeline.attempt import AttemptResult, apply_judgement
from evaluator.pipeline.case import finalize_case
from evaluator.pipeline.run import write_reports
from evaluator.plan import open_repo, select_cases
from evaluator.sessions import SessionRef
from evaluator.workspace import AttemptWorkspace


def _restore(run_dir: RunDir, case_id: str, data: dict[str, Any]) -> AttemptResult:
    number = int(data["attempt"])
    workspace = AttemptWorkspace(
        case_id,
        number,
        Path(data.get("workspace_root") or "."),
        mismatches=list(data.get("mismatches") or []),
    )
    result = AttemptResult(
        case_id,
        number,
        workspace,
        data.get("status") or "blocked",
        blocked_reason=data.get("blocked_reason"),
        reason=data.get("reason"),
        valid=bool(data.get("valid")),
        retry_of=data.get("retry_of"),
    )
    directory = run_dir.attempt_artifacts(case_id, number)
    session_json = directory / "accepted-session.json"
    if session_json.is_file():
        result.evidence = SessionEvidence.from_json(
            json.loads(session_json.read_text(encoding="utf-8"))
        )
        if data.get("session_path"):
            result.session = SessionRef(result.evidence.thread_id or "", Path(data["session_path"]))
    report = data.get("isolation_report")
    if isinstance(report, dict):
        result.isolation = IsolationReport(
            verdict=report["verdict"],
            workspace=report["workspace"],
            reason=report.get("reason", ""),
        )
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
        for attempt_file in sorted(
            (run_dir.case_artifacts(case.case_id) / "attempts").glob("attempt-*/attempt.json")
        ):
            data = json.loads(attempt_file.read_text(encoding="utf-8"))
            attempt = _restore(run_dir, case.case_id, data)
            if (
                "assertions" in data
                and attempt.evidence is not None
                and attempt.isolation is not None
            ):
                assert attempt.workspace is not None
                context = JudgeContext(
                    evidence=attempt.evidence,
                    workspace=attempt.workspace.path,
                    ref_prefix=run_dir.attempt_ref_prefix(case.case_id, attempt.number),
                    workspace_available=attempt.workspace.path.is_dir(),
                    grader=grader,
                )
                apply_judgement(attempt, judge_case(case.case, context))
                data["status"], data["blocked_reason"] = attempt.status, attempt.blocked_reason
                write_json(attempt_file, data)
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
