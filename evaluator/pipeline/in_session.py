"""In-session attempts: an evaluator agent spawns each case's sub-agent in its own session.

`new_attempt` plans the run (first call) and builds one attempt workspace exactly as `run` does;
`collect_attempt` locates the accepted child session in the live session store and takes it
through the same stages as a CLI attempt (evidence, isolation, judge, attempt artifacts, case
result, reports). Between the two, the attempt is recorded in `pending.json` beside where its
`attempt.json` will be written. The only thing this mode does differently is who starts the agent.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from pydantic import BaseModel, Field

from evaluator.adapters import IN_SESSION_SUFFIX, agent_names, in_session_adapter
from evaluator.adapters.base import AgentAdapter
from evaluator.artifacts.models import AttemptFile, CaseResult, Manifest
from evaluator.artifacts.rundir import RunDir, RunLocked, write_json
from evaluator.defaults import DEFAULT_SCRATCH
from evaluator.errors import EnvironmentProblem, InputError
from evaluator.judge import ModelGrader
from evaluator.judge.skill_vocabulary import skill_vocabulary
from evaluator.pipeline.attempt import (
    WORKSPACE_SNAPSHOT,
    AttemptResult,
    judge_session,
    not_run,
    prompt_was_verbatim,
    read_session,
    save_attempt,
)
from evaluator.pipeline.case import final_slots, finalize_case
from evaluator.pipeline.commands import JailedCommands
from evaluator.pipeline.needs import check_needs
from evaluator.pipeline.rejudge import restore_attempt
from evaluator.pipeline.run import new_run_id, write_reports
from evaluator.pipeline.runplan import ManifestFacts, RunOptions, plan_manifest, resolve_run
from evaluator.pipeline.skill_watch import target_skill_triggers
from evaluator.plan import open_repo, select_cases
from evaluator.prompting import in_session_prompt
from evaluator.repo import EvalRepo, LoadedCase
from evaluator.safepath import id_problem
from evaluator.sandbox import LaunchPolicy
from evaluator.sessions import SessionRef
from evaluator.sessions.base import ChildQuery
from evaluator.workspace import AttemptWorkspace, build_workspace, fingerprint, save_snapshot
from evaluator.workspace.builder import attempt_dir
from evaluator.workspace.naming import WORKSPACES, run_scratch
from evaluator.workspace.provenance import skill_digest, source_commit
from evaluator.workspace.scratch import PRIVATE_UMASK, make_private_dir
from evaluator.workspace.snapshot import FileState

PENDING_FILE = "pending.json"


class PendingAttempt(BaseModel):
    """An attempt whose workspace exists and whose sub-agent has not been collected yet."""

    case_id: str
    attempt: int
    workspace: str
    prompt: str
    created_at: str
    retry_of: int | None = None
    mismatches: list[str] = Field(default_factory=list)
    # path -> (size, sha256) before the agent ran: what the workspace snapshot compares with
    baseline: dict[str, tuple[int, str]] = Field(default_factory=dict)


@dataclass
class NewAttempt:
    run_dir: RunDir
    pending: PendingAttempt
    created_run: bool
    # What the case `needs` and this machine lacks, and each part of its setup not reproduced
    # here (`setup: ...`): the attempt is recorded `blocked (environment)`, the eval's, and no
    # sub-agent is to be spawned for it.
    unmet_needs: list[str] | None = None
    case_status: str | None = None  # the case's status once the block finished it


@dataclass(frozen=True)
class PlanRequest:
    repo: Path
    source_workspace: Path | None
    runs_dir: Path
    run_id: str | None
    target: str | None = None
    suites: tuple[str, ...] = ()
    cases: tuple[str, ...] = ()
    case_workspace_root: Path | None = None
    agent: str | None = None  # the adapter of the evaluator agent (default: the one that can)


def _now() -> datetime:
    return datetime.now(timezone.utc)


@contextmanager
def _locked(run_dir: RunDir) -> Iterator[None]:
    """Writes into the run dir are private and exclusive, as in a CLI run."""
    try:
        lock = run_dir.lock()
    except RunLocked as exc:
        raise InputError(f"{exc}; wait for it to finish first") from None
    previous = os.umask(PRIVATE_UMASK)
    try:
        yield
    finally:
        os.umask(previous)
        lock.release()


def _run_dir(runs_dir: Path, run_id: str) -> RunDir:
    if id_problem(run_id):
        raise InputError(f"run {id_problem(run_id)}", field="--run-id")
    return RunDir(runs_dir / run_id)


def _repo_of(manifest: Manifest) -> EvalRepo:
    return open_repo(
        Path(manifest.repo or "agentic-evals"),
        Path(manifest.source_workspace) if manifest.source_workspace else None,
        target=manifest.target_id,
        lenient=manifest.lenient,
    )


def _plan(request: PlanRequest, run_dir: RunDir, case_id: str) -> Manifest:
    """The run's manifest, written before its first attempt: like `run`, it names every case.
    Nothing is created when the first attempt's case is not in the plan."""
    repo = open_repo(request.repo, request.source_workspace, target=request.target)
    selection = select_cases(repo, request.target, request.suites, request.cases)
    planned = [c.case_id for c in selection.cases]
    if case_id not in planned:
        raise _not_planned(case_id, run_dir.run_id, planned)
    root = request.case_workspace_root or run_scratch(DEFAULT_SCRATCH, run_dir.run_id) / WORKSPACES
    root = root.absolute()
    try:
        request.runs_dir.mkdir(parents=True, exist_ok=True)
        run_dir.path.mkdir(mode=0o700)
    except FileExistsError:
        raise InputError(f"run directory already exists: {run_dir.path}") from None
    make_private_dir(root)
    adapter = in_session_adapter(request.agent)
    options = RunOptions(
        repo=request.repo,
        source_workspace=request.source_workspace,
        target=request.target,
        suites=request.suites,
        cases=request.cases,
        agent=adapter.name + IN_SESSION_SUFFIX,
        run_id=run_dir.run_id,
        runs_dir=request.runs_dir,
    )
    plan = resolve_run(options, selection, run_dir.run_id, None, default_workers=1)
    facts = ManifestFacts(
        repo=repo.root,
        source_workspace=repo.source_workspace,
        target_skill_path=selection.target.target.entry_skill,
        case_workspace_root=root,
        evidence_mode=f"{adapter.name} session store (in-session child)",
        agent_version=None,  # the user's own CLI, known from the first collected session
        sandbox="none",
        trace="off",
        skill_hash=skill_digest(selection.target, repo.source_workspace),
        source_commit=source_commit(repo.source_workspace),
        notes=(
            "in-session: each attempt's sub-agent was spawned by the evaluator agent in its own"
            f" {adapter.label} session, under the user's own configuration (no fresh agent home,"
            " no jail, no access trace); isolation rests on the session evidence",
        ),
    )
    return plan_manifest(plan, facts, in_session=True)


def _not_planned(case_id: str, run_id: str, planned: list[str]) -> InputError:
    return InputError(
        f"case {case_id!r} is not in run {run_id}'s plan ({', '.join(planned)})", field="CASE_ID"
    )


def _case(repo: EvalRepo, manifest: Manifest, case_id: str) -> LoadedCase:
    if case_id not in manifest.resolved_case_ids:
        raise _not_planned(case_id, manifest.run_id, manifest.resolved_case_ids)
    return select_cases(repo, manifest.target_id, (), (case_id,)).cases[0]


def _pending(run_dir: RunDir, case_id: str) -> list[PendingAttempt]:
    """Attempts of a case made by `attempt new` and not collected yet, oldest first."""
    found = []
    for path in sorted(
        (run_dir.case_artifacts(case_id) / "attempts").glob(f"attempt-*/{PENDING_FILE}")
    ):
        if not (path.parent / "attempt.json").is_file():
            found.append(PendingAttempt.model_validate_json(path.read_text(encoding="utf-8")))
    return found


def new_attempt(request: PlanRequest, case_id: str) -> NewAttempt:
    """One fresh attempt workspace for `case_id`, registered in the run (planned if new)."""
    run_dir = _run_dir(request.runs_dir, request.run_id or new_run_id())
    created = not run_dir.manifest_path.is_file()
    if created:
        manifest = _plan(request, run_dir, case_id)
    else:
        manifest = run_dir.read_manifest()
        if request.target and request.target != manifest.target_id:
            raise InputError(
                f"run {run_dir.run_id} evaluates target {manifest.target_id!r}", field="--target"
            )
    with _locked(run_dir):
        if created:
            run_dir.write_manifest(manifest)
        repo = _repo_of(manifest)
        case = _case(repo, manifest, case_id)
        if _pending(run_dir, case_id):
            raise InputError(
                f"case {case_id} has an attempt not collected yet; run `agentic-eval attempt"
                f" collect {case_id}` first (attempts never share a workspace)"
            )
        root = Path(manifest.case_workspace_root)
        number = run_dir.max_attempt(case_id) + 1
        while attempt_dir(root, case_id, number).exists():
            number += 1  # a workspace left by anything else is never reused
        workspace = build_workspace(
            case_workspace_root=root,
            case=case,
            target=repo.targets[manifest.target_id],
            source_workspace=repo.source_workspace,
            attempt=number,
        )
        # The sub-agent runs where this command does, with no jail of ours: its needs are
        # looked up here, as `run` looks them up in the attempt's jail.
        unmet = check_needs(case.needs, LaunchPolicy(), workspace.path, {})
        setup = case.case.setup
        if setup.env or setup.env_vars_required:
            # spawn_agent passes no environment: the case's variables cannot reach the child.
            workspace.mismatches.append(
                "setup env: a sub-agent spawned in session cannot be given environment variables"
            )
        pending = PendingAttempt(
            case_id=case_id,
            attempt=number,
            workspace=str(workspace.path),
            prompt=in_session_prompt(case.case.input.user_prompt, str(workspace.path)),
            created_at=_now().isoformat(),
            retry_of=_retry_of(run_dir, case_id),
            mismatches=workspace.mismatches,
            baseline={k: (v.size, v.sha256) for k, v in fingerprint(workspace.path).items()},
        )
        # As `run` does: a setup not reproduced here could only end the attempt blocked (a pass
        # is the setup's luck) or failed for the setup's reason, so no sub-agent is spawned.
        unreproduced = list(workspace.mismatches)
        if unmet.missing or unreproduced:
            result = not_run(
                run_dir,
                case,
                number,
                pending.retry_of,
                workspace,
                unmet.missing,
                unreproduced=unreproduced,
            )
            status = _finish_case(run_dir, manifest, repo, case, result).status
            return NewAttempt(run_dir, pending, created, result.unmet_needs, status)
        write_json(run_dir.attempt_artifacts(case_id, number) / PENDING_FILE, pending)
    return NewAttempt(run_dir, pending, created)


def _retry_of(run_dir: RunDir, case_id: str) -> int | None:
    """The contract's one rerun: a new attempt after an invalid one replaces it."""
    records = [r for r in run_dir.attempt_records(case_id) if not r.interrupted]
    if not records:
        return None
    last = max(records, key=lambda r: r.attempt)
    if last.valid or last.retry_of is not None:
        return None
    return last.attempt


@dataclass(frozen=True)
class CollectRequest:
    runs_dir: Path
    run_id: str
    case_id: str
    agent_home: Path  # the evaluator agent's live home, holding its session store
    parent_thread_id: str
    nickname: str | None = None
    agent_id: str | None = None
    grader: ModelGrader | None = None


@dataclass
class Collected:
    run_dir: RunDir
    attempt: AttemptResult
    nickname: str | None
    case_status: str
    run_state: str
    case_result: CaseResult  # the case over its attempts, as `score` and `run` read it


def _adapter(manifest: Manifest) -> AgentAdapter:
    """The in-session run's adapter, from the agent its manifest names."""
    return in_session_adapter((manifest.agent or "").removesuffix(IN_SESSION_SUFFIX) or None)


def collect_attempt(request: CollectRequest) -> Collected:
    run_dir = _run_dir(request.runs_dir, request.run_id)
    manifest = run_dir.read_manifest()
    with _locked(run_dir):
        repo = _repo_of(manifest)
        case = _case(repo, manifest, request.case_id)
        pending_list = _pending(run_dir, request.case_id)
        if not pending_list:
            raise InputError(
                f"case {request.case_id} has no attempt waiting to be collected in run"
                f" {run_dir.run_id}; make one with `agentic-eval attempt new`"
            )
        pending = pending_list[-1]
        if not request.agent_home.is_dir():
            raise EnvironmentProblem(
                f"no {_adapter(manifest).label} session store at {request.agent_home}"
                " (pass --agent-home)"
            )
        result = _judge(request, _adapter(manifest), run_dir, repo, case, pending)
        save_attempt(run_dir, result)
        case_result = _finish_case(run_dir, manifest, repo, case, result)
    nickname = result.evidence.agent_nickname if result.evidence else None
    return Collected(run_dir, result, nickname, case_result.status, manifest.run_state, case_result)


def _finish_case(
    run_dir: RunDir, manifest: Manifest, repo: EvalRepo, case: LoadedCase, result: AttemptResult
) -> CaseResult:
    """The case's result over its attempts with `result` the latest, the manifest (completed
    once every case is) and the reports; returns the case's result."""
    attempts = _attempts(run_dir, case.case_id, result)
    result_file = finalize_case(
        run_dir,
        case,
        final_slots(attempts),
        attempts,
        repo.targets[manifest.target_id].target.allowed_statuses,
        source_workspace=repo.source_workspace,
        target=repo.targets[manifest.target_id],
    )
    if manifest.agent_version is None and result.evidence is not None:
        manifest.agent_version = result.evidence.cli_version  # the user's own CLI
    if result_file.environment_mismatches:
        manifest.environment_mismatches[case.case_id] = result_file.environment_mismatches
    run_dir.write_case_result(result_file)
    if run_dir.finished_case_ids() >= set(manifest.resolved_case_ids):
        manifest.run_state = "completed"
        manifest.finished_at = _now().isoformat(timespec="seconds")
    run_dir.write_manifest(manifest)
    write_reports(run_dir, manifest)
    return result_file


def _judge(
    request: CollectRequest,
    adapter: AgentAdapter,
    run_dir: RunDir,
    repo: EvalRepo,
    case: LoadedCase,
    pending: PendingAttempt,
) -> AttemptResult:
    workspace = AttemptWorkspace(
        case.case_id,
        pending.attempt,
        Path(pending.workspace),
        mismatches=pending.mismatches,
        baseline={relative: sha256 for relative, (_, sha256) in pending.baseline.items()},
    )
    result = AttemptResult(
        case.case_id, pending.attempt, workspace, "blocked", retry_of=pending.retry_of
    )
    baseline = {k: FileState(size, sha) for k, (size, sha) in pending.baseline.items()}
    if workspace.path.is_dir():
        save_snapshot(
            workspace.path,
            baseline,
            run_dir.attempt_artifacts(case.case_id, pending.attempt) / WORKSPACE_SNAPSHOT,
            repo.source_workspace,
        )
    store = adapter.session_store(request.agent_home)
    located = store.locate_child(
        ChildQuery(
            request.parent_thread_id,
            agent_id=request.agent_id,
            nickname=request.nickname,
            since=datetime.fromisoformat(pending.created_at),
            until=_now(),
            exclude=_accepted_threads(run_dir),
        )
    )
    session: SessionRef | None = located.accepted
    if session is None:
        result.blocked_reason = "insufficient-evidence"
        result.reason = f"accepted session {located.status}: {located.reason}"
        return result
    if not read_session(result, session, adapter, store, str(Path.home())):
        return result
    if prompt_was_verbatim(result, pending.prompt):
        # In-session attempts have no jail of ours: the check runs as their agent did.
        target = repo.targets.get(case.target_id)
        skill = target.entry_skill_path(repo.source_workspace) if target else None
        vocabulary = skill_vocabulary(skill, agent_names())
        assert result.evidence is not None
        watched = target_skill_triggers(
            adapter, target, repo.source_workspace, result.evidence, session.path
        )
        judge_session(
            run_dir,
            case,
            result,
            request.grader,
            JailedCommands(LaunchPolicy()),
            vocabulary,
            watched,
        )
    return result


def _accepted_threads(run_dir: RunDir) -> frozenset[str]:
    """Every sub-agent thread an attempt of this run has already been given."""
    manifest = run_dir.read_manifest()
    return frozenset(
        record.thread_id
        for case_id in manifest.resolved_case_ids
        for record in run_dir.attempt_records(case_id)
        if record.thread_id
    )


def _attempts(run_dir: RunDir, case_id: str, latest: AttemptResult) -> list[AttemptResult]:
    """Every counted attempt of the case, the one just collected as it is."""
    attempts = []
    for path in sorted(
        (run_dir.case_artifacts(case_id) / "attempts").glob("attempt-*/attempt.json")
    ):
        saved = AttemptFile.model_validate_json(path.read_text(encoding="utf-8"))
        if saved.interrupted:
            continue
        attempts.append(
            latest if saved.attempt == latest.number else restore_attempt(run_dir, case_id, saved)
        )
    return attempts
