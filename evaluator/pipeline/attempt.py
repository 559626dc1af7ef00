"""One attempt: fresh workspace, fresh agent, located session, evidence, isolation, judgement."""

from __future__ import annotations

import json
import os
import shutil
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from evaluator.adapters import (
    adapter_for_runner,
    agent_names,
    all_adapters,
    get_adapter,
    get_store,
    normalize_session,
    tool_text_source,
)
from evaluator.adapters.base import AgentAdapter
from evaluator.agents import AgentHandle, AgentRequest, AgentRunner, ModelEndpoint, skill_folder
from evaluator.artifacts.attribution import entry_share
from evaluator.artifacts.models import AttemptFile, AttemptRecord, IsolationLayers, IsolationSummary
from evaluator.artifacts.redact import LiveRedactor, Redactor
from evaluator.artifacts.rundir import (
    RunDir,
    copy_atomic,
    copy_staged,
    json_text,
    storage_error,
    write_atomic,
    write_bytes_atomic,
    write_staged,
)
from evaluator.artifacts.trace_files import trace_file_name
from evaluator.contract.models import BlockedReason, Status
from evaluator.credentials import SecretSet, environment_secrets, looks_secret
from evaluator.defaults import DEFAULT_TIMEOUT_S
from evaluator.evidence import SessionEvidence
from evaluator.evidence.records import SESSION_TAMPERED
from evaluator.interop.runs import SUBAGENT_SESSIONS
from evaluator.isolation import IsolationReport, assess_attempt
from evaluator.isolation.allowlist import SYSTEM_ALLOWLIST, excluding
from evaluator.isolation.trace import STORE_CHANGED, TraceReport, assess_with_trace
from evaluator.judge import CaseJudgement, JudgeContext, ModelGrader, judge_case
from evaluator.judge.base import CommandRunner, SkillTriggers
from evaluator.judge.skill_vocabulary import SkillVocabulary, skill_vocabulary
from evaluator.pipeline.commands import JailedCommands
from evaluator.pipeline.needs import check_needs
from evaluator.pipeline.skill_watch import target_skill_triggers
from evaluator.prompting import agent_prompt
from evaluator.repo import LoadedCase, LoadedTarget
from evaluator.safepath import contained
from evaluator.sandbox import LaunchPolicy, ObservedTrace
from evaluator.sandbox.follow import TraceFollower
from evaluator.sandbox.strace_log import ToolCallRecognizer, read_trace
from evaluator.sandbox.tracer import save_compressed
from evaluator.sessions import SessionRef
from evaluator.sessions.base import ChildQuery, SessionStore
from evaluator.vocabulary import BlockedBy
from evaluator.workspace import AttemptWorkspace, build_workspace, fingerprint, save_snapshot
from evaluator.workspace.naming import attempt_folder
from evaluator.workspace.scratch import make_tree_private
from evaluator.workspace.snapshot import has_snapshot, record_placeholders

WORKSPACE_SNAPSHOT = "workspace"  # the attempt workspace's final state, beside attempt.json
ATTEMPT_FILE = "attempt.json"


@dataclass(frozen=True)
class AttemptSettings:
    run_dir: RunDir
    target: LoadedTarget
    source_workspace: Path
    case_workspace_root: Path
    agent_root: Path
    runner: AgentRunner
    endpoint: ModelEndpoint
    grader: ModelGrader | None = None  # the model judge; None judges by checks and rules only
    launch: LaunchPolicy = field(default_factory=LaunchPolicy)
    entry_skill_text: str | None = None  # a candidate skill written into every workspace
    with_skill: bool = True  # False: the workspace gets no skill (a no-skill baseline)
    inspector: AttemptInspector | None = None  # the run's extra check of every attempt


class AttemptInspector(ABC):
    """A run's own check of each attempt, made while its workspace and agent home still exist
    (after the judgement, before the attempt is saved): it may make the attempt invalid (the
    driver reruns it once) and stage files beside it. It travels with the attempt's settings, so
    an executor running attempts elsewhere must be able to pickle it."""

    @abstractmethod
    def before_agent(self, workspace: AttemptWorkspace) -> None:
        """Called once the workspace is built and fingerprinted, before the agent starts: what
        the check must know of the workspace as the eval made it (red team 10: the agent can
        write anything into it after) it keeps on `workspace`."""

    @abstractmethod
    def inspect(
        self, settings: AttemptSettings, result: AttemptResult, trace: ObservedTrace | None
    ) -> None: ...


@dataclass
class AttemptResult:
    case_id: str
    number: int
    workspace: AttemptWorkspace | None
    status: Status
    blocked_reason: BlockedReason | None = None
    reason: str | None = None
    valid: bool = True
    blocked_by: BlockedBy | None = None
    handle: AgentHandle | None = None
    session: SessionRef | None = None
    evidence: SessionEvidence | None = None
    isolation: IsolationReport | None = None
    trace: TraceReport | None = None
    judgement: CaseJudgement | None = None
    retry_of: int | None = None
    notes: list[str] = field(default_factory=list)
    secrets: dict[str, str] = field(default_factory=dict)
    trace_copy: Path | None = None  # the redacted, compressed trace kept while the agent ran
    # Every session the accepted one spawned (at any depth): kept beside it for the exports.
    descendants: list[SessionRef] = field(default_factory=list)
    # The adapter of the agent that ran, which reads its sessions (set with the session).
    adapter: AgentAdapter | None = None
    # What the case needs and the agent's jail lacked: the agent was never started.
    unmet_needs: list[str] | None = None
    # A re-judged attempt's saved record: the facts of its agent's process (exit code, timeout,
    # kill, error), which no handle carries any more and which say whose a block is.
    saved: AttemptRecord | None = None

    @property
    def judged(self) -> bool:
        return self.judgement is not None and self.valid

    def record(self, run_dir: RunDir) -> AttemptRecord:
        handle = self.handle
        ran = self.saved if handle is None else None
        return AttemptRecord(
            attempt=self.number,
            workspace_root=str(self.workspace.path) if self.workspace else "",
            valid=self.valid,
            status=self.status,
            blocked_reason=self.blocked_reason,
            blocked_by=self.blocked_by if self.status == "blocked" else None,
            reason=self.reason,
            thread_id=self.evidence.thread_id
            if self.evidence
            else (handle.root_thread_id if handle else (ran.thread_id if ran else None)),
            session_path=str(self.session.path) if self.session else None,
            isolation=self.isolation.verdict if self.isolation else None,
            isolation_reason=self.isolation.reason if self.isolation else None,
            retry_of=self.retry_of,
            mismatches=self.workspace.mismatches if self.workspace else [],
            exit_code=handle.exit_code if handle else (ran.exit_code if ran else None),
            timed_out=handle.timed_out if handle else bool(ran and ran.timed_out),
            killed=handle.killed if handle else bool(ran and ran.killed),
            agent_error=handle.error if handle else (ran.agent_error if ran else None),
            model_unreachable=handle.stalled_on_model
            if handle
            else bool(ran and ran.model_unreachable),
            unmet_needs=self.unmet_needs,
            session_complete=self.evidence.complete if self.evidence else None,
            duration_s=round(handle.duration_s, 3) if handle else (ran.duration_s if ran else None),
            tokens=_tokens(self.evidence.token_usage) if self.evidence else None,
            artifacts_dir=str(
                run_dir.attempt_artifacts(self.case_id, self.number).relative_to(run_dir.path)
            ),
            shown=self.judgement.shown if self.judgement else None,
            entry_share=entry_share(self.judgement.entries)
            if self.judgement is not None and self.status in ("pass", "fail")
            else None,
        )


def _tokens(usage: dict[str, Any] | None) -> dict[str, int] | None:
    """The counts Codex recorded (`input_tokens`, ...) as `input`, ...; None when it recorded none."""
    if not usage:
        return None
    counts = {
        key.removesuffix("_tokens"): int(value)
        for key, value in usage.items()
        if isinstance(value, int) and not isinstance(value, bool)
    }
    return counts or None


def _locate(
    settings: AttemptSettings, handle: AgentHandle, store: SessionStore | None = None
) -> tuple[SessionRef | None, str]:
    if handle.root_thread_id is None:
        return None, "the agent reported no thread id (it did not start a session)"
    store = store or get_store(handle.adapter, handle.agent_home)
    if not handle.launched_child:
        result = store.locate_thread(handle.root_thread_id)
    else:
        agent_id = handle.spawned_thread_ids[0] if len(handle.spawned_thread_ids) == 1 else None
        result = store.locate_child(
            ChildQuery(
                handle.root_thread_id,
                agent_id=agent_id,
                since=datetime.fromtimestamp(handle.started_at, tz=timezone.utc),
                until=datetime.fromtimestamp(handle.ended_at, tz=timezone.utc),
            )
        )
    if result.status != "found":
        return None, f"accepted session {result.status}: {result.reason}"
    return result.sessions[0], ""


def offline_mismatches(case: LoadedCase, runner: AgentRunner) -> list[str]:
    """A case's facts that hold only when the agent's commands have no network."""
    if runner.commands_offline:
        return []
    setup = case.case.setup
    facts = [
        ("network_mode: offline", setup.network_mode == "offline"),
        ("force_fetch_failure: true", setup.force_fetch_failure is True),
        ("sample_repo_available: false", setup.sample_repo_available is False),
    ]
    return [
        f"{fact} cannot be honoured: {runner.name}'s commands can reach the network"
        for fact, stated in facts
        if stated
    ]


def run_attempt(
    settings: AttemptSettings,
    case: LoadedCase,
    number: int,
    retry_of: int | None = None,
    *,
    timeout_s: float,
) -> AttemptResult:
    """`timeout_s`: this case's, as the run plan resolved it (`RunPlan.timeout_for`)."""
    workspace = build_workspace(
        case_workspace_root=settings.case_workspace_root,
        case=case,
        target=settings.target,
        source_workspace=settings.source_workspace,
        attempt=number,
        entry_skill_text=settings.entry_skill_text,
        with_skill=settings.with_skill,
    )
    install_skills(settings, workspace.path)
    workspace.skill_links = installed_links(settings, workspace.path)
    # The builder's mismatches say the workspace or the agent's variables are not what the
    # author set (a required variable missing here): known before the agent starts, so it is
    # not started (a real model's tokens for a case that can only end blocked, or fail for
    # the setup's reason). The network facts a runner cannot honour only widen what the agent
    # may reach: it still runs, and a failure of its own is judged (docs/file-reference.md).
    unreproduced = list(workspace.mismatches)
    workspace.mismatches += offline_mismatches(case, settings.runner)
    unmet = check_needs(case.needs, settings.launch, workspace.path, workspace.env)
    if unmet.missing or unreproduced:
        return not_run(
            settings.run_dir,
            case,
            number,
            retry_of,
            workspace,
            unmet.missing,
            unreproduced=unreproduced,
            staged=True,
        )
    baseline = fingerprint(workspace.path)
    workspace.baseline = {relative: state.sha256 for relative, state in baseline.items()}
    if settings.inspector is not None:
        settings.inspector.before_agent(workspace)
    prompt = agent_prompt(case.case.input.user_prompt)
    agent_dir = attempt_folder(settings.agent_root, case.case_id, number)
    secrets = attempt_secrets(settings, workspace)
    result, trace = run_agent(
        settings, case, number, retry_of, workspace, agent_dir, prompt, secrets, timeout_s
    )
    save_snapshot(
        workspace.path,
        baseline,
        settings.run_dir.attempt_artifacts(case.case_id, number) / WORKSPACE_SNAPSHOT,
        settings.source_workspace,
    )
    _evaluate(settings, case, result, prompt, trace)
    if settings.inspector is not None and result.evidence is not None:
        settings.inspector.inspect(settings, result, _read_trace(settings, result, trace))
    save_attempt(settings.run_dir, result, staged=True)
    return result


def install_skills(settings: AttemptSettings, workspace: Path) -> None:
    """The target's skill, then each companion skill, placed where the agent discovers skills
    (its runner's `prepare_workspace`); a skill the workspace lacks (a no-skill variant) is
    left out by the runner."""
    settings.runner.prepare_workspace(workspace, Path(settings.target.target.entry_skill))
    for folder in settings.target.target.companion_folders():
        settings.runner.prepare_workspace(workspace, Path(folder) / "SKILL.md")


def installed_links(settings: AttemptSettings, workspace: Path) -> dict[str, str]:
    """The links the install made in the workspace's skills folders (its adapter's workspace
    `discovery_dirs`), each with the folder it names: the workspace's own files are copies,
    never links (`build_workspace` refuses them), so every link there is the evaluator's."""
    adapter = adapter_for_runner(settings.runner.name)
    links: dict[str, str] = {}
    for folder in adapter.discovery_dirs:
        if folder.startswith(("$", "~")) or not (workspace / folder).is_dir():
            continue
        for entry in sorted((workspace / folder).iterdir()):
            if entry.is_symlink():
                links[str(entry)] = os.path.realpath(entry)
    return links


def companion_folders(settings: AttemptSettings, workspace: Path) -> tuple[Path, ...]:
    """The companion skills' folders the workspace holds (none without the skill)."""
    found = (skill_folder(workspace, Path(f)) for f in settings.target.target.companion_folders())
    return tuple(folder for folder in found if folder is not None)


def run_agent(
    settings: AttemptSettings,
    case: LoadedCase,
    number: int,
    retry_of: int | None,
    workspace: AttemptWorkspace,
    agent_dir: Path,
    prompt: str,
    secrets: SecretSet,
    timeout_s: float,
    stop_when: Callable[[], bool] | None = None,
) -> tuple[AttemptResult, ObservedTrace | None]:
    """The agent on `prompt` in `workspace`, its tool calls traced where the launch traces: the
    attempt's result, still `blocked` until judged, and the trace read while it ran. Both
    kinds of attempt (a case's, a trigger's) start their agent here."""
    adapter = adapter_for_runner(settings.runner.name)
    follower = settings.launch.follow_trace(
        workspace.path, agent_dir, trace_recognizer(settings.runner), LiveRedactor(secrets).text
    )
    try:
        handle = settings.runner.run(
            AgentRequest(
                workspace=workspace.path,
                agent_dir=agent_dir,
                prompt=prompt,
                endpoint=settings.endpoint,
                timeout_s=timeout_s,
                env=workspace.env,
                launch=settings.launch,
                secrets=secrets,
                stop_when=stop_when,
                # A process a tool call left running would hold the tracer, and so the attempt,
                # until the timeout: once the CLI itself has exited, what is left is stopped.
                stop_fd=follower.stop_fd if follower is not None else None,
                skill=skill_folder(workspace.path, Path(settings.target.target.entry_skill)),
                user_skill_dirs=adapter.user_skill_dirs,
                companion_skills=companion_folders(settings, workspace.path),
            )
        )
    finally:
        trace = follower.finish() if follower is not None else None
    settle_left_processes(handle, follower)
    # The agent may create files readable by all (codex writes some 0644 on purpose).
    for tree in (workspace.path, agent_dir):
        make_tree_private(tree)
    result = AttemptResult(
        case.case_id, number, workspace, "blocked", handle=handle, retry_of=retry_of
    )
    result.secrets = secrets.values()
    if follower is not None and follower.keep is not None and follower.keep.is_file():
        result.trace_copy = follower.keep
    return result, trace


def not_run(
    run_dir: RunDir,
    case: LoadedCase,
    number: int,
    retry_of: int | None,
    workspace: AttemptWorkspace,
    missing: list[str],
    *,
    unreproduced: list[str] | None = None,
    staged: bool = False,
) -> AttemptResult:
    """An attempt whose case needs what the agent's jail lacks, or whose setup could not be
    reproduced here: no agent is started (it could only fail for the machine's reason, or pass
    by luck), and the block is the eval's."""
    result = AttemptResult(case.case_id, number, workspace, "blocked", retry_of=retry_of)
    reasons = ["the case needs what the agent would lack: " + "; ".join(missing)] if missing else []
    if unreproduced:
        reasons.append(
            "the agent was not started, its setup is not reproduced here: "
            + "; ".join(unreproduced)
        )
    _block(result, "environment", "; ".join(reasons))
    result.unmet_needs = [*missing, *(f"setup: {m}" for m in unreproduced or [])]
    save_attempt(run_dir, result, staged=staged)
    return result


def _read_trace(
    settings: AttemptSettings, result: AttemptResult, trace: ObservedTrace | None
) -> ObservedTrace | None:
    """The access trace as read while the agent ran, else from its file, else None."""
    handle = result.handle
    recognizer = trace_recognizer(settings.runner)
    if trace is not None or handle is None or handle.trace_path is None or recognizer is None:
        return trace
    if not handle.trace_path.is_file() or result.workspace is None:
        return None
    agent_dirs = (str(handle.own_dirs[0]),) if handle.own_dirs else ()
    return read_trace(
        handle.trace_path, recognizer, start_cwd=str(result.workspace.path), agent_dirs=agent_dirs
    )


def settle_left_processes(handle: AgentHandle, follower: TraceFollower | None) -> None:
    """When the attempt stopped processes the agent's tool calls left running (the trace
    follower's `stop_fd`), the agent had ended on its own: its exit is the log's, not that of
    the stopped tracer. An exit the log shows only after the stop began is the stop's own (a CLI
    that handles SIGTERM exits with a code): the attempt stays stopped."""
    if follower is None or not handle.stopped_early:
        return
    if not follower.agent_ended_before(handle.stopped_at):
        return
    handle.exit_code = follower.root_exit_code
    handle.killed = follower.root_exit_code is None  # ended by a signal, not an exit
    handle.stopped_early = False


def trace_recognizer(runner: AgentRunner) -> ToolCallRecognizer | None:
    """How the access trace tells `runner`'s tool calls apart: its adapter's knowledge."""
    return adapter_for_runner(runner.name).trace_recognizer()


@dataclass(frozen=True)
class AttemptSpec:
    """One attempt to make, as the driver hands it to an executor: everything it needs travels
    with it (an executor may run it in another process or on another machine). `settings.run_dir`
    is the attempt's staging directory, never the run directory: only the driver writes that."""

    settings: AttemptSettings
    case: LoadedCase
    number: int
    retry_of: int | None = None
    timeout_s: float = DEFAULT_TIMEOUT_S  # the case's, as the run plan resolved it


@dataclass
class ArtifactBundle:
    """The files an attempt would have written into the run directory, as data: path relative to
    the run directory -> content. The driver writes them (`write`), `attempt.json` last, once."""

    case_id: str
    number: int
    files: dict[str, bytes] = field(default_factory=dict)

    @property
    def attempt_path(self) -> str:
        return f"case-artifacts/{self.case_id}/attempts/attempt-{self.number:02d}/{ATTEMPT_FILE}"

    @property
    def size(self) -> int:
        return sum(len(content) for content in self.files.values())

    def mark_interrupted(self, why: str) -> None:
        """The run stopped while this attempt ran: its evidence stays, it is not counted."""
        raw = self.files.get(self.attempt_path)
        if raw is None:
            return
        payload = json.loads(raw)
        payload["interrupted"] = True
        payload["reason"] = f"{why}; {payload['reason']}" if payload.get("reason") else why
        text = json.dumps(payload, indent=2, ensure_ascii=False) + "\n"
        self.files[self.attempt_path] = text.encode("utf-8")

    def write(self, run_dir: RunDir) -> None:
        last = self.files.get(self.attempt_path)
        for relative, content in self.files.items():
            if relative != self.attempt_path:
                # Only attempt.json, written last, marks the attempt recorded: it alone is synced.
                write_bytes_atomic(contained(run_dir.path, relative), content, sync=False)
        run_dir.attempt_artifacts(self.case_id, self.number).mkdir(parents=True, exist_ok=True)
        if last is not None:
            write_bytes_atomic(contained(run_dir.path, self.attempt_path), last)


@dataclass
class AttemptOutcome:
    result: AttemptResult
    bundle: ArtifactBundle


def perform_attempt(spec: AttemptSpec) -> AttemptOutcome:
    """What an executor runs, wherever it runs: the attempt, staged, then taken as a bundle. An
    attempt the evaluator could not carry out is blocked, not raised: one broken attempt must
    not take the run down (a full or unwritable disk does, raised)."""
    settings = spec.settings
    try:
        result = run_attempt(
            settings, spec.case, spec.number, spec.retry_of, timeout_s=spec.timeout_s
        )
    except Exception as exc:
        roots = (settings.run_dir.path.absolute(), settings.case_workspace_root.parent)
        if storage_error(exc, roots) is not None:
            raise
        result = failed_attempt(settings, spec.case, spec.number, spec.retry_of, exc)
    if result.evidence is not None:
        # The judging that needed the records is done and the bundle holds them: what goes back
        # to the driver (through Ray's object store, or held till the case ends) is the header.
        result.evidence = result.evidence.header_only()
    return AttemptOutcome(result, take_bundle(settings.run_dir, spec.case.case_id, spec.number))


def perform_failed(spec: AttemptSpec, why: str) -> AttemptOutcome:
    """An attempt that never came back (its worker went away), blocked, as a bundle."""
    settings = spec.settings
    result = blocked_attempt(settings, spec.case, spec.number, spec.retry_of, why)
    return AttemptOutcome(result, take_bundle(settings.run_dir, spec.case.case_id, spec.number))


def take_bundle(staging: RunDir, case_id: str, number: int) -> ArtifactBundle:
    """The staged attempt directory as data, then gone from the staging area."""
    directory = staging.attempt_artifacts(case_id, number)
    bundle = ArtifactBundle(case_id, number)
    for path in sorted(directory.rglob("*")):
        if path.is_file() and not path.is_symlink():
            bundle.files[path.relative_to(staging.path).as_posix()] = path.read_bytes()
    shutil.rmtree(directory, ignore_errors=True)
    return bundle


def run_secrets(
    runner: AgentRunner, endpoint: ModelEndpoint, grader: ModelGrader | None
) -> dict[str, str]:
    """The credentials every attempt of a run holds: the agent's and the model judge's."""
    found = runner.credentials(endpoint)
    if grader is not None:
        for name, value in grader.credentials().items():
            found.setdefault(f"judge:{name}", value)
    return found


def attempt_secrets(settings: AttemptSettings, workspace: AttemptWorkspace) -> SecretSet:
    """What this attempt's artifacts must never hold, before its agent starts (the launcher adds
    its environment's secrets): the case's declared secrets, and the run's credentials."""
    return SecretSet(
        {
            **run_secrets(settings.runner, settings.endpoint, settings.grader),
            **workspace.secret_values(),
        }
    )


def case_environment(case: LoadedCase) -> dict[str, str]:
    """The case's variables as an attempt started now would get them: its required variables
    from this environment (those set), and its setup's `env`."""
    setup = case.case.setup
    env = {n: os.environ[n] for n in setup.env_vars_required or [] if os.environ.get(n)}
    env.update(setup.env or {})
    return env


def declared_secrets(case: LoadedCase) -> dict[str, str]:
    """The secrets an attempt of `case` is given, known without building its workspace: what the
    case declares secret, required variables named like secrets, credentials inside URLs, and
    every variable of its setup whose name says secret."""
    setup = case.case.setup
    env = case_environment(case)
    workspace = AttemptWorkspace(case.case_id, 0, Path("."), env=env)
    workspace.secret_env.update(n for n in setup.secret_env_vars or [] if n in env)
    workspace.secret_env.update(n for n in setup.env_vars_required or [] if looks_secret(n))
    return {**environment_secrets(env), **workspace.secret_values()}


def failed_attempt(
    settings: AttemptSettings, case: LoadedCase, number: int, retry_of: int | None, error: Exception
) -> AttemptResult:
    """An attempt the evaluator itself could not carry out: blocked, with the error kept. What it
    left in the run directory (a workspace snapshot, an error naming a file) is redacted too."""
    why = f"the evaluator could not run this attempt: {type(error).__name__}: {error}"
    return blocked_attempt(settings, case, number, retry_of, why)


def blocked_attempt(
    settings: AttemptSettings, case: LoadedCase, number: int, retry_of: int | None, why: str
) -> AttemptResult:
    result = AttemptResult(case.case_id, number, None, "blocked", "environment", retry_of=retry_of)
    result.reason = why
    result.secrets = {
        **run_secrets(settings.runner, settings.endpoint, settings.grader),
        **declared_secrets(case),
    }
    save_attempt(settings.run_dir, result, staged=True)
    return result


def _block(
    result: AttemptResult,
    reason: BlockedReason,
    why: str,
    *,
    valid: bool = True,
    by: BlockedBy = "eval",
) -> None:
    """`by`: the agent only where its own acts block the attempt (it left its workspace); what
    else blocks here (the environment, the evaluator, evidence our tools could not read) is
    the eval's. The score decides from the attempt's facts either way (attribution.py)."""
    result.status = "blocked"
    result.blocked_reason = reason
    result.blocked_by = by
    result.reason = why
    result.valid = valid


def _evaluate(
    settings: AttemptSettings,
    case: LoadedCase,
    result: AttemptResult,
    prompt: str,
    trace: ObservedTrace | None = None,
) -> None:
    """`trace`: the access trace as read while the agent ran (None: read it from the file)."""
    handle = result.handle
    assert handle is not None and result.workspace is not None
    adapter = get_adapter(handle.adapter)
    # One store, its index opened once, for the session and then its descendants.
    with adapter.session_store(handle.agent_home).held() as store:
        session, why = _locate(settings, handle, store)
        if session is None and session_store_changed(settings, result, trace, why):
            return
        if session is None:
            reason: BlockedReason = (
                "environment"
                if handle.fault and (not handle.timed_out or handle.stalled_on_model)
                else "insufficient-evidence"
            )
            _block(result, reason, f"{handle.fault + '; ' if handle.fault else ''}{why}")
            return
        home = str(handle.home) if handle.home else None
        # With a trace, the session's lexical guesses wait for it (it may contradict them).
        if not read_session(
            result, session, adapter, store, home, traced=handle.trace_path is not None
        ):
            return
    assert result.evidence is not None and result.isolation is not None
    if handle.trace_path is not None:
        result.isolation, result.trace = with_trace(
            settings, handle, result.isolation, result.evidence, result.workspace.path, trace
        )
    if handle.launched_child and not prompt_was_verbatim(result, prompt):
        return
    if handle.timed_out and handle.stalled_on_model:
        _block(result, "environment", f"the model endpoint never answered: {handle.fault}")
        return
    if handle.timed_out:
        _block(result, "insufficient-evidence", f"session incomplete: {handle.fault}")
        return
    if handle.fault:
        _block(result, "environment", handle.fault)
        return
    judge_session(
        settings.run_dir,
        case,
        result,
        settings.grader,
        JailedCommands(settings.launch),
        skill_vocabulary(
            settings.target.entry_skill_path(settings.source_workspace), agent_names()
        ),
        target_skill_triggers(
            adapter,
            settings.target,
            settings.source_workspace,
            result.evidence,
            session.path,
            spawned=[child.path for child in result.descendants],
        ),
    )


def with_trace(
    settings: AttemptSettings,
    handle: AgentHandle,
    isolation: IsolationReport,
    evidence: SessionEvidence,
    workspace: Path,
    trace: ObservedTrace | None,
) -> tuple[IsolationReport, TraceReport]:
    """The session layer's verdict joined with the attempt's access trace (`handle.trace_path`)."""
    assert handle.trace_path is not None
    return assess_with_trace(
        isolation,
        handle.trace_path,
        evidence,
        workspace,
        handle.own_dirs,
        handle.private_dirs,
        trace,
        recognizer=trace_recognizer(settings.runner),
        session_dirs=handle.session_dirs,
        own_pid_namespace=handle.own_pid_namespace,
        skill_links=tuple(handle.skill_links),
        home=handle.home,
        agent_folders=_agent_folders(handle),
        transcripts=_transcripts(handle),
        hidden=handle.hidden_dirs,
    )


def _transcripts(handle: AgentHandle) -> tuple[Path, ...]:
    """Every registered agent's transcripts in the attempt's home (`transcript_dirs`): a skill
    made for one agent looks where that agent keeps them, whichever agent runs it."""
    if handle.home is None:
        return ()
    places = (place for adapter in all_adapters() for place in adapter.transcript_dirs)
    return tuple(handle.home / place.removeprefix("~/") for place in places)


def _agent_folders(handle: AgentHandle) -> tuple[Path, ...]:
    """The agents' own folders in the attempt's home: this agent's home and session store, and
    every registered agent's user-level folder (its configuration, logins, sessions and
    skills: `~/.codex`, `~/.claude`, `~/.gemini`, `~/.agents`). A tool call there is judged by
    the session layer alone, whatever the trace saw (`trace._arbitrate_home`)."""
    if handle.home is None:
        return ()
    named: set[str] = set()
    for adapter in all_adapters():
        for place in (adapter.default_home, *adapter.user_skill_dirs, *adapter.discovery_dirs):
            parts = (place or "").split("/")
            if parts[0] == "~" and len(parts) > 1 and parts[1]:
                named.add(parts[1])
    home = handle.home
    # Gemini CLI's own home is the HOME itself: its folder there is its session store.
    same = os.path.realpath(handle.agent_home) == os.path.realpath(home)
    own = () if same else (handle.agent_home,)
    return (*own, *handle.session_dirs, *(home / name for name in sorted(named)))


def session_store_changed(
    settings: AttemptSettings, result: AttemptResult, trace: ObservedTrace | None, why: str
) -> bool:
    """A session the store cannot name (two files claim it, or none does) after a tool call
    changed the store is the agent's doing, an isolation violation, as the same change is when
    the session is found (red team 10: a copy of its own session file in another project folder
    left the attempt blocked by the eval, its trace never read, so a failing case left the
    score). The trace is read with no session to match (every call unmatched, so without the
    session's references); only a change of the store decides whose the block is."""
    handle = result.handle
    if handle is None or handle.trace_path is None or result.workspace is None:
        return False
    none = SessionEvidence(session_path="")
    workspace = result.workspace.path
    untraced = assess_attempt(none, workspace, [], record_guesses=False)
    isolation, report = with_trace(settings, handle, untraced, none, workspace, trace)
    changes = [v for v in report.violations if v.detail.startswith(STORE_CHANGED)]
    if not changes:
        return False
    result.isolation, result.trace = isolation, report
    _block(
        result,
        "insufficient-evidence",
        f"isolation violation: {why}, after a tool call changed the agent's session store"
        f" ({changes[0].path})",
        valid=False,
        by="agent",
    )
    return True


def read_session(
    result: AttemptResult,
    session: SessionRef,
    adapter: AgentAdapter,
    store: SessionStore,
    home: str | None,
    traced: bool = False,
) -> bool:
    """The accepted session's evidence and the isolation verdict over it and every session it
    spawned, read by the adapter of the agent that ran (never guessed from the file); False (the
    attempt blocked) when the session cannot be read."""
    assert result.workspace is not None
    result.session = session
    result.adapter = adapter
    links = result.handle.skill_links if result.handle is not None else {}
    # The skill's links in the home and in the workspace's skills folders: a path through
    # either is also recorded at the skill's folder.
    paths = {
        **result.workspace.skill_links,
        **(result.handle.skill_link_paths if result.handle is not None else {}),
    }
    try:
        evidence = normalize_session(session.path, home=home, adapter=adapter, skill_links=paths)
    except OSError as exc:
        _block(result, "insufficient-evidence", f"session unreadable: {exc}")
        return False
    result.evidence = evidence
    result.descendants = store.descendants(session.thread_id)
    descendants = [
        normalize_session(ref.path, home=home, adapter=adapter, skill_links=paths)
        for ref in result.descendants
    ]
    hidden = result.handle.hidden_dirs if result.handle is not None else ()
    result.isolation = assess_attempt(
        evidence,
        result.workspace.path,
        descendants,
        rules=excluding(SYSTEM_ALLOWLIST, hidden),
        record_guesses=not traced,
        skill_links=tuple(links),
        pending_home=home if traced else None,
    )
    return True


def prompt_was_verbatim(result: AttemptResult, prompt: str) -> bool:
    """A spawned child must have received the attempt's prompt byte for byte, else it is not an
    attempt at this case (and it never counts)."""
    assert result.evidence is not None
    if result.evidence.first_user_message == prompt:
        return True
    _block(
        result,
        "insufficient-evidence",
        "the child's first user message differs from the case prompt",
        valid=False,
    )
    return False


def judge_session(
    run_dir: RunDir,
    case: LoadedCase,
    result: AttemptResult,
    grader: ModelGrader | None,
    commands: CommandRunner | None = None,
    vocabulary: SkillVocabulary | None = None,
    skill_triggers: SkillTriggers | None = None,
) -> None:
    """The contract's last steps on a read session: complete, contained, then judged
    (`vocabulary`: the target skill's commands, for prose naming them by bare word;
    `skill_triggers`: the target skill's firing, for `skill_invoked`)."""
    evidence, isolation, workspace = result.evidence, result.isolation, result.workspace
    assert evidence is not None and isolation is not None and workspace is not None
    if not evidence.complete:
        _block(result, "insufficient-evidence", "session incomplete: no task_complete was recorded")
        return
    if isolation.verdict == "violation":
        _block(
            result,
            "insufficient-evidence",
            f"isolation violation: {isolation.reason}",
            valid=False,
            by="agent",
        )
        return
    context = JudgeContext(
        evidence=evidence,
        workspace=workspace.path,
        ref_prefix=run_dir.attempt_ref_prefix(case.case_id, result.number),
        record_dir=run_dir.attempt_artifacts(case.case_id, result.number) / "judge",
        grader=grader,
        session_texts=tool_text_source(
            result.session.path if result.session else None, result.adapter
        ),
        commands=commands,
        skill_vocabulary=vocabulary,
        traced_calls=result.trace.calls if result.trace is not None else None,
        baseline=workspace.baseline,
        variables=dict(workspace.env),
        skill_triggers=skill_triggers,
    )
    home = str(result.handle.home) if result.handle and result.handle.home else None
    context.spawned = tuple(
        context.helper(
            normalize_session(
                child.path,
                home=home,
                adapter=result.adapter,
                skill_links=result.handle.skill_link_paths if result.handle else None,
            ),
            spawned_ref_prefix(context.ref_prefix, child.path.name),
            tool_text_source(child.path, result.adapter),
        )
        for child in result.descendants
    )
    apply_judgement(result, judge_case(case.case, context))


def spawned_ref_prefix(ref_prefix: str, name: str) -> str:
    """Where a spawned session's records are cited: its file kept beside the attempt's own."""
    return f"{ref_prefix.rsplit('/', 1)[0]}/{SUBAGENT_SESSIONS}/{name}"


def apply_judgement(result: AttemptResult, judgement: CaseJudgement) -> None:
    """The attempt's status from its judgement, then the contract's downgrades."""
    assert result.isolation is not None and result.workspace is not None
    result.judgement = judgement
    result.status = judgement.status
    result.blocked_reason = judgement.blocked_reason
    result.blocked_by = judgement.blocked_by
    result.notes = list(judgement.notes)
    if result.isolation.verdict == "unverifiable" and judgement.status == "pass":
        _block(
            result,
            "insufficient-evidence",
            f"isolation unverifiable ({result.isolation.reason}); a pass needs contained evidence",
            by="agent" if _agents_blind_spots(result) else "eval",
        )
    if result.status == "blocked" and any(
        why.endswith(SESSION_TAMPERED) for _, why in result.isolation.opaque
    ):
        # The agent's own commands rewrote its session (red team, round 6: a transcript
        # deleted after a forbidden run, which the CLI then wrote anew without it): whatever
        # the rewrite hid may be a failure, so the block is the agent's, never a dropped case.
        result.blocked_by = "agent"
    if result.workspace.mismatches and result.status != "fail":
        _block(
            result, "environment", "environment mismatch: " + "; ".join(result.workspace.mismatches)
        )


def _agents_blind_spots(result: AttemptResult) -> bool:
    """Whether the agent's own tool calls hid what they reached: a construct of theirs the
    session analysis cannot see into, or an access the trace saw its processes make through a
    channel it cannot resolve (an io_uring ring, an untraced process, a datagram socket). Such
    an unverifiable pass is the agent's block, counted as not passed: left out of the score as
    the eval's, an attempt that would fail could drop its case so (red team 20; the rule of
    round 5). Unverifiable with neither (nothing reliable observed) stays the eval's."""
    assert result.isolation is not None
    calls = {
        str(record["id"])
        for record in (result.evidence.iter_records() if result.evidence else ())
        if record.get("kind") in ("tool_call", "tool_result")
    }
    if any(ref in calls for ref, _ in result.isolation.opaque):
        return True
    if result.trace is not None:
        return bool(result.trace.unresolved)
    # A re-judge has no trace any more: its findings as the attempt recorded them.
    saved = result.saved.trace_report if isinstance(result.saved, AttemptFile) else None
    return bool(saved and saved.get("unresolved"))


def save_attempt(run_dir: RunDir, result: AttemptResult, *, staged: bool = False) -> None:
    """`staged`: `run_dir` is the attempt's staging area, which the driver copies into the run
    directory and syncs there (`ArtifactBundle.write`): nothing here is synced to disk, and the
    files are written in place (`write_staged`)."""
    directory = run_dir.attempt_artifacts(result.case_id, result.number)
    directory.mkdir(parents=True, exist_ok=True)
    copy = copy_staged if staged else copy_atomic
    handle = result.handle
    if handle is not None:
        for source, name in (
            (handle.stdout_path, "agent-stdout.jsonl"),
            (handle.stderr_path, "agent-stderr.txt"),
        ):
            if source.is_file():
                copy(source, directory / name)
    if result.session is not None:
        copy(result.session.path, directory / "accepted-session.jsonl")
    for ref in result.descendants:
        if ref.path.is_file():
            copy_atomic(ref.path, directory / SUBAGENT_SESSIONS / ref.path.name)
    if result.evidence is not None:
        result.evidence.write_json(directory / "accepted-session.json")
        answer = (result.evidence.final_answer or "") + "\n"
        _write_text(directory / "final-answer.txt", answer, staged)
    record = attempt_file(run_dir, result).model_dump(mode="json")
    _write_text(directory / ATTEMPT_FILE, json_text(record), staged)
    redactor = Redactor(result.secrets)
    snapshot = directory / WORKSPACE_SNAPSHOT
    if has_snapshot(snapshot):  # which placeholders are the run's, before it writes them
        record_placeholders(snapshot, redactor)
    redactor.tree(directory)
    # After the text redaction pass, which must not rewrite a gzip file. Named for the tracer
    # that wrote it (both write strace's line format).
    trace_file = directory / trace_file_name(handle.tracer if handle is not None else "strace")
    if result.trace_copy is not None:
        copy(result.trace_copy, trace_file)  # redacted as it was read
    elif handle is not None and handle.trace_path is not None and handle.trace_path.is_file():
        save_compressed(handle.trace_path, trace_file, Redactor(result.secrets).text)


def _write_text(path: Path, text: str, staged: bool) -> None:
    if staged:
        write_staged(path, text.encode("utf-8"))
    else:
        write_atomic(path, text)


def attempt_file(run_dir: RunDir, result: AttemptResult) -> AttemptFile:
    return AttemptFile(
        **result.record(run_dir).model_dump(),
        isolation_report=IsolationSummary.model_validate(result.isolation.to_json())
        if result.isolation is not None
        else None,
        assertions=result.judgement.entries if result.judgement is not None else None,
        isolation_layers=IsolationLayers(
            sandbox=result.handle.jail,
            trace=("ebpf" if result.handle.tracer == "ebpf" else "strace")
            if result.handle.trace_path is not None
            else "off",
        )
        if result.handle is not None
        else None,
        trace_report=result.trace.to_json() if result.trace is not None else None,
    )


def promote(run_dir: RunDir, result: AttemptResult) -> None:
    """Copy the accepted attempt's evidence to the case level the contract names."""
    source = run_dir.attempt_artifacts(result.case_id, result.number)
    target = run_dir.case_artifacts(result.case_id)
    for name in ("accepted-session.json", "accepted-session.jsonl", "final-answer.txt"):
        if (source / name).is_file():
            copy_atomic(source / name, target / name)
        elif (target / name).exists():
            (target / name).unlink()
