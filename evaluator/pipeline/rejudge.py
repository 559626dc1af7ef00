"""`agentic-eval judge RUN_DIR`: judge again from the saved evidence, without running agents."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from evaluator.artifacts.models import AttemptRecord, CaseResult, Manifest
from evaluator.artifacts.rundir import RunDir, RunLocked, write_json
from evaluator.errors import InputError
from evaluator.evidence import SessionEvidence
from evaluator.isolation import IsolationReport
from evaluator.judge import JudgeContext, judge_case
from evaluator.judge.grading import ModelGrader
from evaluator.pipeline.attempt import WORKSPACE_SNAPSHOT, AttemptResult, apply_judgement
from evaluator.pipeline.case import finalize_case
from evaluator.pipeline.run import write_reports
from evaluator.plan import open_repo, select_cases
from evaluator.sessions import SessionRef
from evaluator.workspace import AttemptWorkspace
from evaluator.workspace.snapshot import RestoredWorkspace, has_snapshot, restore_snapshot


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


def _record_fields(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k in AttemptRecord.model_fields}


@contextmanager
def _workspace_files(
    run_dir: RunDir, attempt: AttemptResult, source_workspace: Path
) -> Iterator[RestoredWorkspace | None]:
    """The attempt workspace's files: on disk while the scratch space lasts, else restored from
    the snapshot saved in the run directory, else None (workspace checks are then blocked)."""
    assert attempt.workspace is not None
    if attempt.workspace.path.is_dir():
        yield RestoredWorkspace(attempt.workspace.path, set())
        return
    snapshot = run_dir.attempt_artifacts(attempt.case_id, attempt.number) / WORKSPACE_SNAPSHOT
    if not has_snapshot(snapshot):
        yield None
        return
    with tempfile.TemporaryDirectory(prefix="agentic-eval-rejudge-") as temp:
        yield restore_snapshot(snapshot, source_workspace, Path(temp))


def rejudge_run(run_path: Path, grader: ModelGrader | None = None) -> list[CaseResult]:
    run_dir = RunDir(run_path)
    manifest = run_dir.read_manifest()
    try:
        lock = run_dir.lock()  # never rewrite results under a run that is still writing them
    except RunLocked as exc:
        raise InputError(f"{exc}; judge it when the run has ended") from None
    try:
        return _rejudge(run_dir, manifest, grader)
    finally:
        lock.release()


def _rejudge(run_dir: RunDir, manifest: Manifest, grader: ModelGrader | None) -> list[CaseResult]:
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
        earlier: list[AttemptRecord] = []
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
                with _workspace_files(run_dir, attempt, repo.source_workspace) as files:
                    context = JudgeContext(
                        evidence=attempt.evidence,
                        workspace=attempt.workspace.path,
                        ref_prefix=run_dir.attempt_ref_prefix(case.case_id, attempt.number),
                        workspace_available=files is not None,
                        files_root=files.root if files else None,
                        without_content=frozenset(files.without_content if files else ()),
                        grader=grader,
                    )
                    apply_judgement(attempt, judge_case(case.case, context))
                data["status"], data["blocked_reason"] = attempt.status, attempt.blocked_reason
                write_json(attempt_file, data)
            if data.get("interrupted"):
                earlier.append(AttemptRecord.model_validate(_record_fields(data)))
                continue
            attempts.append(attempt)
        slots: dict[int, AttemptResult] = {}
        for attempt in attempts:
            slots[attempt.retry_of or attempt.number] = attempt  # a retry replaces its first try
        finals = [slots[k] for k in sorted(slots)]
        result = finalize_case(
            run_dir,
            case,
            finals,
            attempts,
            selection.target.target.allowed_statuses,
            earlier,
            repo.source_workspace,
        )
        run_dir.write_case_result(result)
        results.append(result)
    write_reports(run_dir, manifest)
    return results
