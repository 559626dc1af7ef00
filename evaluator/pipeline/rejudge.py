"""`agentic-eval judge RUN_DIR`: judge again from the saved evidence, without running agents."""

from __future__ import annotations

import gzip
import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from evaluator.adapters import adapter_for_agent, agent_names, normalize_session, tool_text_source
from evaluator.artifacts.models import (
    AttemptFile,
    AttemptRecord,
    CaseResult,
    IsolationSummary,
    Manifest,
)
from evaluator.artifacts.redact import Redactor
from evaluator.artifacts.rundir import RunDir, RunLocked, write_json
from evaluator.artifacts.trace_files import saved_trace
from evaluator.credentials import environment_secrets
from evaluator.errors import InputError
from evaluator.evidence import SessionEvidence
from evaluator.evidence.traced import TracedCall
from evaluator.interop.runs import SUBAGENT_SESSIONS
from evaluator.isolation import IsolationReport
from evaluator.isolation.assess import Violation
from evaluator.isolation.trace import traced_calls
from evaluator.judge import JudgeContext, ModelGrader, judge_case
from evaluator.judge.skill_vocabulary import skill_vocabulary
from evaluator.pipeline.attempt import (
    WORKSPACE_SNAPSHOT,
    AttemptResult,
    apply_judgement,
    attempt_file,
    case_environment,
    declared_secrets,
    spawned_ref_prefix,
)
from evaluator.pipeline.case import final_slots, finalize_case
from evaluator.pipeline.commands import rejudge_commands
from evaluator.pipeline.run import write_reports
from evaluator.pipeline.skill_watch import target_skill_triggers
from evaluator.plan import open_repo, select_cases
from evaluator.sandbox.strace_log import ToolCallRecognizer, parse_trace
from evaluator.sessions import SessionRef
from evaluator.workspace import AttemptWorkspace
from evaluator.workspace.snapshot import (
    RestoredWorkspace,
    has_snapshot,
    restore_snapshot,
    unchanged_digests,
)


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


def restore_attempt(run_dir: RunDir, case_id: str, saved: AttemptFile) -> AttemptResult:
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
        blocked_by=saved.blocked_by,
        retry_of=saved.retry_of,
    )
    result.unmet_needs = saved.unmet_needs  # no agent ran: the block stays the eval's
    result.saved = saved  # its agent's exit code, timeout and errors: whose a block is
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
        target=manifest.target_id,
        lenient=manifest.lenient,
    )
    selection = select_cases(repo, manifest.target_id, (), tuple(manifest.resolved_case_ids))
    hidden = (
        repo.source_workspace.resolve(),
        repo.root.resolve(),
        Path.home().resolve(),
        run_dir.path.resolve(),
    )
    commands = rejudge_commands(manifest.sandbox, hidden)
    vocabulary = skill_vocabulary(
        selection.target.entry_skill_path(repo.source_workspace), agent_names()
    )
    adapter = adapter_for_agent(manifest.agent)  # the agent that ran reads its saved sessions
    # What a run redacts, as far as it is known again: the judge's credentials, the secret-named
    # variables of this environment (the agent's key, when it is set) and each case's declared
    # secrets. A judge may repeat anything it was shown or holds, and its reply is written anew.
    judge_secrets = {f"judge:{n}": v for n, v in (grader.credentials() if grader else {}).items()}
    run_secrets = {**environment_secrets(os.environ), **judge_secrets}
    results = []
    for case in selection.cases:
        if not run_dir.case_result_path(case.case_id).is_file():
            continue
        case_secrets = {**run_secrets, **declared_secrets(case)}
        run_secrets.update(case_secrets)
        redactor = Redactor(case_secrets)
        attempts = []
        earlier: list[AttemptRecord] = []
        for path in sorted(
            (run_dir.case_artifacts(case.case_id) / "attempts").glob("attempt-*/attempt.json")
        ):
            saved = AttemptFile.model_validate_json(path.read_text(encoding="utf-8"))
            attempt = restore_attempt(run_dir, case.case_id, saved)
            if (
                saved.assertions is not None
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
                        placeholders=files.placeholders if files else None,
                        record_dir=path.parent / "judge",
                        grader=grader,
                        session_texts=tool_text_source(
                            path.parent / "accepted-session.jsonl", adapter
                        ),
                        commands=commands,
                        skill_vocabulary=vocabulary,
                        baseline=(
                            unchanged_digests(
                                run_dir.attempt_artifacts(case.case_id, attempt.number)
                                / WORKSPACE_SNAPSHOT,
                                files.root,
                            )
                            if files
                            else None
                        ),
                        traced_calls=_saved_trace_calls(
                            saved_trace(path.parent),
                            attempt,
                            adapter.trace_recognizer() if adapter is not None else None,
                        ),
                        # As far as this environment knows them again; the snapshot's
                        # placeholders stand for the secrets among them.
                        variables=case_environment(case),
                        skill_triggers=target_skill_triggers(
                            adapter,
                            selection.target,
                            repo.source_workspace,
                            attempt.evidence,
                            path.parent / "accepted-session.jsonl",
                            restored=True,
                            spawned=sorted((path.parent / SUBAGENT_SESSIONS).glob("*")),
                        ),
                    )
                    # The helpers' sessions as kept beside the attempt (redacted, as the run
                    # judged them but for the secrets).
                    context.spawned = tuple(
                        context.helper(
                            normalize_session(child, adapter=adapter),
                            spawned_ref_prefix(context.ref_prefix, child.name),
                            tool_text_source(child, adapter),
                        )
                        for child in sorted((path.parent / SUBAGENT_SESSIONS).glob("*"))
                        if child.is_file()
                    )
                    apply_judgement(attempt, judge_case(case.case, context))
                attempt.secrets = {**attempt.secrets, **case_secrets}
                if (path.parent / "judge").is_dir():
                    redactor.tree(path.parent / "judge")
                # Everything else the attempt recorded (times, exit code) stays as it was.
                rejudged = attempt_file(run_dir, attempt)
                saved = saved.model_copy(
                    update={
                        "status": rejudged.status,
                        "blocked_reason": rejudged.blocked_reason,
                        "blocked_by": rejudged.blocked_by,
                        "reason": rejudged.reason,
                        "assertions": rejudged.assertions,
                    }
                )
                write_json(path, saved.model_dump(mode="json"))
                redactor.file(path)
            if saved.interrupted:
                earlier.append(
                    AttemptRecord.model_validate(
                        saved.model_dump(include=set(AttemptRecord.model_fields))
                    )
                )
                continue
            attempts.append(attempt)
        result = finalize_case(
            run_dir,
            case,
            final_slots(attempts),
            attempts,
            selection.target.target.allowed_statuses,
            earlier,
            repo.source_workspace,
            selection.target,
        )
        run_dir.write_case_result(result)
        results.append(result)
    write_reports(run_dir, manifest, run_secrets)
    return results


def _saved_trace_calls(
    trace_file: Path, attempt: AttemptResult, recognizer: ToolCallRecognizer | None
) -> dict[str, TracedCall] | None:
    """What the attempt's saved trace shows each tool call ran, as when it was judged first;
    None without a trace (evidence only) or a way to read it."""
    if recognizer is None or not trace_file.is_file():
        return None
    assert attempt.evidence is not None and attempt.workspace is not None
    with gzip.open(trace_file, "rt", encoding="utf-8", errors="surrogateescape") as log:
        trace = parse_trace(log, recognizer, start_cwd=str(attempt.workspace.path))
    return traced_calls(trace, attempt.evidence)
