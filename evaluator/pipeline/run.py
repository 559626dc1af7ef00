"""`agentic-eval run`: plan, then K attempts per case on a bounded pool, then the artifacts."""

from __future__ import annotations

import gc
import hashlib
import json
import os
import secrets
import signal
import sys
import threading
from collections import deque
from collections.abc import Hashable, Iterator, Mapping
from concurrent.futures import FIRST_COMPLETED, Future, wait
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from itertools import zip_longest
from pathlib import Path
from typing import Any, TypeVar

from evaluator.adapters import adapter_for_runner, adapter_names, agent_names, get_runner
from evaluator.adapters.base import AgentAdapter
from evaluator.agents import AgentRunner, ModelEndpoint
from evaluator.agents.process import kill_processes_mentioning
from evaluator.artifacts.models import AttemptRecord, CaseResult, Manifest, RunState, ScratchPlace
from evaluator.artifacts.redact import Redactor
from evaluator.artifacts.report import render_report
from evaluator.artifacts.report_findings import case_findings
from evaluator.artifacts.rundir import (
    RunDir,
    RunLock,
    RunLocked,
    copy_atomic,
    lock_held,
    remove_temp_files,
    storage_error,
    unfinished_why,
    write_atomic,
    write_json,
)
from evaluator.artifacts.transcript import render_transcript
from evaluator.artifacts.trigger_files import TRIGGER_PLAN_FILE
from evaluator.artifacts.trigger_report import TRIGGERS_FILE, render_trigger_section
from evaluator.credentials import SecretSet
from evaluator.defaults import DEFAULT_SCRATCH as DEFAULT_SCRATCH  # re-exported: was defined here
from evaluator.defaults import DEFAULT_TIMEOUT_S as DEFAULT_TIMEOUT_S
from evaluator.errors import EnvironmentProblem, InputError, Terminated
from evaluator.execute import Executor, ExecutorSettings, executor_class
from evaluator.html.run_page import write_run_html
from evaluator.interop import write_run_outputs
from evaluator.modelserver import BehaviorLibrary, ScriptedModelServer, load_behaviors
from evaluator.modelserver.behaviors import (
    coverage_problems,
    unanswered_cases,
    unmatched_behaviors,
)
from evaluator.pipeline.attempt import (
    AttemptOutcome,
    AttemptResult,
    AttemptSettings,
    AttemptSpec,
    declared_secrets,
    perform_attempt,
    perform_failed,
    run_secrets,
)
from evaluator.pipeline.case import finalize_case
from evaluator.pipeline.progress import PlainProgress, Progress
from evaluator.pipeline.runplan import (
    DEFAULT_EXECUTOR,
    ManifestFacts,
    RunPlan,
    check_credentials,
    check_endpoint,
    plan_manifest,
    resolve_run,
)
from evaluator.pipeline.runplan import SCRIPTED_MODEL as SCRIPTED_MODEL
from evaluator.pipeline.runplan import RunOptions as RunOptions  # re-exported: was defined here
from evaluator.pipeline.turns import Turns
from evaluator.plan import (
    Selection,
    case_split,
    open_repo,
    other_targets_prompts,
    select_cases,
)
from evaluator.repo import EvalRepo, LoadedCase, LoadedTarget
from evaluator.repo.evals_json import evals_file
from evaluator.safepath import id_problem
from evaluator.sandbox import LaunchPolicy
from evaluator.sandbox.launch import choose_policy
from evaluator.vocabulary import TraceLayer
from evaluator.workspace.memory import (
    is_mounted,
    memory_unavailable,
    mount_scratch,
    unmount_scratch,
)
from evaluator.workspace.naming import (
    AGENTS,
    WORKSPACES,
    ScratchLayout,
    attempt_folder,
    attempt_folders,
    digest_name,
    recorded_layout,
)
from evaluator.workspace.provenance import skill_digest, source_commit
from evaluator.workspace.scratch import (
    PRIVATE_UMASK,
    check_scratch_root,
    claim_scratch,
    make_private_dir,
    remove_scratch,
    unheld_scratches,
)

POOL_POLL_S = 0.2  # how soon the pool notices a stop request
T = TypeVar("T")


class RunInterrupted(Exception):
    """SIGTERM (or SIGINT) arrived: stop starting attempts, kill running ones, keep results."""


class StopEvent(threading.Event):
    """A run's stop request, and the signal that asked it first (None: not a signal)."""

    def __init__(self) -> None:
        super().__init__()
        self.signum: int | None = None

    def stop_by(self, signum: int) -> None:
        if self.signum is None:
            self.signum = signum
        self.set()


@dataclass
class RunOutcome:
    run_dir: RunDir
    manifest: Manifest
    results: list[CaseResult] = field(default_factory=list)
    interrupted: bool = False
    # The signal that interrupted it (SIGINT, SIGTERM): the command exits 128 + its number.
    stopped_by_signal: int | None = None

    def counts(self) -> dict[str, int]:
        return {
            s: sum(1 for r in self.results if r.status == s) for s in ("pass", "fail", "blocked")
        }


def default_workers() -> int:
    # Agents mostly wait on the model; a few per core keeps the machine busy without thrashing.
    return max(2, min(8, (os.cpu_count() or 2) * 2))


def new_run_id() -> str:
    return datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ") + "-" + secrets.token_hex(3)


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


@contextmanager
def _stop_on_signals(stop: StopEvent) -> Iterator[None]:
    """SIGTERM and SIGINT while attempts run only set `stop`; the pool sees it at its next look
    (within `POOL_POLL_S`) and stops there. An exception raised wherever the signal lands could
    leave a lock of the pool held, or a result half-written, and the run hanging."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: Any) -> None:
        stop.stop_by(signum)

    previous = {sig: signal.signal(sig, handler) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield
    finally:
        for sig, action in previous.items():
            signal.signal(sig, action)


CANDIDATE_SKILL_FILE = "candidate-skill.md"


def _refuse_changed_skill(
    previous: Manifest, run_dir: RunDir, repo: EvalRepo, target: LoadedTarget
) -> None:
    """A resumed run scores the skill it started with: its cases run after an edit of the
    skill (or of its roots or companions) would score another version under the same run, one
    pass rate over two skills. The digest is the manifest's, of the kept candidate text where
    the run had one."""
    if previous.skill_hash is None:  # a no-skill variant, or a manifest from before the digest
        return
    kept = (
        (run_dir.path / previous.candidate_skill).read_bytes().decode("utf-8")
        if previous.candidate_skill
        else None
    )
    now = skill_digest(target, repo.source_workspace, kept)
    if now != previous.skill_hash:
        raise InputError(
            f"run {previous.run_id} scored the skill sha256 {previous.skill_hash[:12]}; its files"
            f" now hash {now[:12]} (SKILL.md, its roots or companions changed since): resume keeps"
            " the skill, so restore it or start a new run",
            field="--resume",
        )


def _candidate_skill(
    options: RunOptions, run_dir: RunDir, previous: Manifest | None, manifest: Manifest
) -> str | None:
    """The candidate skill text is kept in the run dir, so a resumed run scores the same text."""
    if previous is None:
        if options.skill_text is None:
            return None
        write_atomic(run_dir.path / CANDIDATE_SKILL_FILE, options.skill_text)
        manifest.candidate_skill = CANDIDATE_SKILL_FILE
        digest = hashlib.sha256(options.skill_text.encode("utf-8")).hexdigest()[:16]
        manifest.notes.append(f"candidate entry skill (sha256 {digest}) in every workspace")
        return options.skill_text
    kept = (
        (run_dir.path / previous.candidate_skill).read_bytes().decode("utf-8")
        if previous.candidate_skill
        else None
    )
    if options.skill_text is not None and options.skill_text != kept:
        raise InputError(
            f"run {previous.run_id} scores another skill text; resume keeps it", field="--skill"
        )
    return kept


class Run:
    # What an executor runs for each attempt (a trigger run observes triggers instead).
    perform = staticmethod(perform_attempt)

    def __init__(self, options: RunOptions, progress: Progress | None = None) -> None:
        self.options = options
        self.progress = progress or PlainProgress()
        self.stop = StopEvent()
        self.attempt_numbers: dict[str, int] = {}
        # Where the attempts started are noted while the scratch is in memory (RunDir.IN_FLIGHT_DIR).
        self.journal: RunDir | None = None
        self.run_lock: RunLock | None = None
        self.plan: RunPlan | None = None
        # Every attempt's secrets: a kept scratch is redacted with them when the run ends.
        self.secrets = SecretSet()

    # ---------------------------------------------------------------- planning
    def _plan(self) -> tuple[EvalRepo, Selection, RunDir, Manifest | None]:
        options = self.options
        if options.resume and not id_problem(options.resume) and not options.repo.exists():
            self._name_the_planned_repo(RunDir(options.runs_dir / options.resume))
        repo = open_repo(
            options.repo,
            options.source_workspace,
            target=None if options.resume else options.target,
            lenient=options.lenient,
            default_target_only=not options.resume,
        )
        if options.resume:
            if id_problem(options.resume):
                raise InputError(f"run {id_problem(options.resume)}", field="--resume")
            run_dir = RunDir(options.runs_dir / options.resume)
            run_dir.read_manifest()  # a clear error for a run that does not exist
            self._lock(run_dir)
            previous = run_dir.read_manifest()  # as the last holder of the lock left it
            return repo, self._resumed_selection(repo, run_dir, previous), run_dir, previous
        selection = self._select(repo)
        run_id = options.run_id or new_run_id()
        if id_problem(run_id):
            raise InputError(f"run {id_problem(run_id)}", field="--run-id")
        run_dir = RunDir(options.runs_dir / run_id)
        if run_dir.path.exists():
            raise InputError(self._exists_message(run_dir))
        return repo, selection, run_dir, None

    def _select(self, repo: EvalRepo) -> Selection:
        """The cases `--target`/`--suite`/`--case` name (a trigger run picks only the target)."""
        options = self.options
        return select_cases(repo, options.target, options.suites, options.cases)

    def _name_the_planned_repo(self, run_dir: RunDir) -> None:
        """A resume without the repo the run was planned from: say which one it was (the
        default `agentic-evals` is often not where an `--evals` run or another project lies)."""
        try:
            planned = run_dir.read_manifest()
        except InputError:
            return  # no such run: the usual error says so
        if not planned.repo:
            return
        evals = evals_file(Path(planned.repo))
        if evals is not None:  # an `--evals` run: its repo is the evals file's folder
            where = f"--evals {evals}"
            if planned.source_workspace:
                where += f" --skill {planned.source_workspace}"
        else:
            where = f"--repo {planned.repo}"
            if planned.source_workspace:
                where += f" --source-workspace {planned.source_workspace}"
        raise InputError(
            f"eval repo directory not found; run {run_dir.run_id} was planned from {where}:"
            " give them to resume it",
            path=self.options.repo,
        )

    def _resumed_selection(self, repo: EvalRepo, run_dir: RunDir, previous: Manifest) -> Selection:
        """The cases of the run being resumed, as its manifest planned them."""
        if (run_dir.path / TRIGGER_PLAN_FILE).is_file():
            raise InputError(
                f"run {run_dir.run_id} is a trigger run: resume it with"
                f" `agentic-eval triggers --resume {run_dir.run_id}`",
                field="--resume",
            )
        selection = select_cases(repo, previous.target_id, (), tuple(previous.resolved_case_ids))
        selection.suite_ids = list(previous.suite_ids)
        return selection

    @staticmethod
    def _exists_message(run_dir: RunDir) -> str:
        if lock_held(run_dir.path):
            # Two runs given one id at once: resuming it now would only be refused as well.
            try:
                owner = (run_dir.path / RunLock.name).read_text(encoding="utf-8").strip()
            except OSError:
                owner = ""
            return (
                f"run directory already exists: {run_dir.path}, and another agentic-eval"
                f" ({owner or 'pid unknown'}) is running it: pass another --run-id, or wait"
                f" for it to finish"
            )
        return f"run directory already exists: {run_dir.path} (use --resume {run_dir.run_id})"

    def _claim(self, run_dir: RunDir) -> None:
        """Creates and locks a new run's directory, once nothing else can stop the run."""
        try:
            self.options.runs_dir.mkdir(parents=True, exist_ok=True)
            # mkdir is the atomic claim: of two runs given the same id, exactly one creates it.
            run_dir.path.mkdir(mode=0o700)
        except FileExistsError:
            raise InputError(self._exists_message(run_dir)) from None
        except OSError as exc:
            raise EnvironmentProblem(
                f"cannot create the run directory {run_dir.path}: {exc.strerror or exc}"
            ) from None
        self._lock(run_dir)

    def _lock(self, run_dir: RunDir) -> None:
        try:
            self.run_lock = run_dir.lock()
        except RunLocked as exc:
            raise InputError(f"{exc}; wait for it to finish or stop it first") from None
        except OSError as exc:
            raise EnvironmentProblem(
                f"cannot lock the run directory {run_dir.path}: {exc.strerror or exc}"
            ) from None

    # ---------------------------------------------------------------- execution
    def execute(self) -> RunOutcome:
        """Runs the plan; releases the run directory's lock however it ends. Files created
        meanwhile are private to the user (umask 077): they hold what the agents saw."""
        previous_umask = os.umask(PRIVATE_UMASK)
        try:
            return self._execute()
        finally:
            os.umask(previous_umask)
            self.release()

    def _execute(self) -> RunOutcome:
        """Plan, claim, serve, execute, close."""
        lane = self.open_lane()
        try:
            with self.serve(lane):
                drive([lane])
        except BaseException as exc:
            self.abandon(lane, exc)
            raise
        return self.close_lane(lane)

    def open_lane(self) -> RunLane:
        """Plan, check and claim: the run, ready for its attempts (its manifest `running`)."""
        repo, selection, run_dir, previous = self._plan()
        plan = resolve_run(
            self.options, selection, run_dir.run_id, previous, default_workers=default_workers()
        )
        if previous is not None:
            _refuse_changed_skill(previous, run_dir, repo, selection.target)
        ready = self._check(plan, repo, selection)
        memory_refusal = self._memory_refusal(plan, previous)
        # ---- claim
        if previous is None:
            self._claim(run_dir)
        try:
            try:
                make_private_dir(plan.scratch)
                if not self.options.keep_scratch:  # a kept scratch is the user's to remove
                    claim_scratch(plan.scratch, run_dir.path)
            except OSError as exc:
                raise EnvironmentProblem(
                    f"cannot create scratch directory {plan.scratch}: {exc.strerror}"
                ) from None
            self._sweep_scratch(plan.scratch)
            place = self._place_scratch(plan, memory_refusal)
            opened = self._open(plan, ready, repo, selection, run_dir, previous, place)
        except BaseException:
            if previous is None:
                self._unclaim(run_dir, plan.scratch)
            elif is_mounted(plan.scratch):
                # A resume's scratch on disk may hold the stopped run's attempts; one mounted
                # now holds nothing of them.
                self._drop_scratch(plan.scratch)
            raise
        self.plan = plan
        return RunLane(
            self,
            repo,
            selection,
            run_dir,
            plan,
            ready,
            opened,
            RunOutcome(run_dir, opened.manifest),
        )

    @contextmanager
    def serve(self, lane: RunLane) -> Iterator[None]:
        """The model the lane's agents reach, for as long as its attempts run."""
        case_ids = [case.case_id for case in lane.selection.cases]
        with self._serve(lane.plan, lane.ready, case_ids) as endpoint:
            self.settings = AttemptSettings(
                # Attempts stage their artifacts in the scratch; the driver writes them.
                run_dir=RunDir(lane.plan.scratch / "staging" / lane.run_dir.run_id),
                target=lane.selection.target,
                source_workspace=lane.repo.source_workspace,
                case_workspace_root=lane.plan.scratch / WORKSPACES,
                agent_root=lane.plan.scratch / AGENTS,
                runner=lane.ready.runner,
                endpoint=endpoint,
                grader=self.options.grader,
                launch=lane.opened.launch,
                entry_skill_text=lane.opened.skill_text,
                with_skill=not self.options.no_skill,
                inspector=self.options.attempt_inspector,
            )
            yield

    def abandon(self, lane: RunLane, exc: BaseException) -> None:
        """The run stops on `exc` (raised again by the caller)."""
        self._stopped_by(exc, lane.run_dir, lane.outcome.manifest, lane.plan.scratch)

    def close_lane(self, lane: RunLane) -> RunOutcome:
        outcome, manifest = lane.outcome, lane.outcome.manifest
        # Every attempt is in: a stop asked now waits for the closing (well under a second),
        # which a signal landing in it would leave with a manifest and reports that disagree,
        # the scratch of the agents' homes behind and a finished run not recorded.
        with _stop_on_signals(self.stop):
            state: RunState = "interrupted" if outcome.interrupted else "completed"
            self._close(lane.run_dir, manifest, state)
            self._drop_scratch(lane.plan.scratch)
        outcome.results = lane.run_dir.read_case_results(manifest.resolved_case_ids)
        return outcome

    def _unclaim(self, run_dir: RunDir, scratch: Path) -> None:
        """A new run stopped between its claim and its first attempt (Ctrl-C, SIGTERM, a
        scratch it cannot make): its scratch goes; a run directory without a manifest yet goes
        too (nothing could read or resume it, and its id would stay taken); one with a manifest
        is closed `interrupted`, for `--resume`."""
        self._drop_scratch(scratch)
        with suppress(OSError):
            if run_dir.manifest_path.is_file():
                manifest = run_dir.read_manifest()
                manifest.run_state, manifest.finished_at = "interrupted", _now()
                manifest.runner_pid = None
                run_dir.write_manifest(manifest)
                return
            self.release()
            remove_temp_files(run_dir.path)
            (run_dir.path / RunLock.name).unlink(missing_ok=True)
            run_dir.path.rmdir()  # only when nothing else is in it

    def release(self) -> None:
        """Lets go of the run directory's lock (`execute` does it itself)."""
        if self.run_lock is not None:
            self.run_lock.release()
            self.run_lock = None

    def _check(self, plan: RunPlan, repo: EvalRepo, selection: Selection) -> _Ready:
        """Everything that can stop the run before it claims anything: the skill's files, the
        behaviours, the endpoint, the agent's CLI and options, credentials, the executor."""
        options = self.options
        target = selection.target
        for relative in target.target.copied_paths():
            if not target.source_path(repo.source_workspace, relative).exists():
                # Without --source-workspace both places the skill may be were looked at.
                also = (
                    "" if repo.source_workspace_explicit else f" nor in the eval repo {repo.root}"
                )
                raise InputError(
                    f"skill path {relative} not found in the source workspace"
                    f" {repo.source_workspace}{also} (pass --source-workspace)",
                    path=target.path,
                )
        library = load_behaviors(plan.behaviors, adapter_names()) if plan.behaviors else None
        if library is not None:
            # Checked before anything starts: a behaviour answering the wrong case is a wrong verdict.
            problems = self._behaviour_problems(library, selection)
            if problems:
                raise problems[0]
            self._warn_unanswered(library, selection)
        real_endpoint = check_endpoint(plan, options)
        # Fails early when the agent's CLI is missing.
        adapter = adapter_for_runner(plan.agent)
        # `--agent-option` pairs (under "") are the run's agent's, over its aliases' values.
        chosen = {
            **options.agent_options.get(adapter.name, {}),
            **options.agent_options.get("", {}),
        }
        runner = get_runner(plan.agent, chosen)
        adapter.check_scratch(plan.scratch)
        check_scratch_root(options.scratch_root)
        check_credentials(plan, options, runner, real_endpoint)
        executor_type = executor_class(plan.executor)  # an unknown one stops the run here
        executor_type.check_available()
        return _Ready(library, real_endpoint, adapter, runner, executor_type)

    def _behaviour_problems(
        self, library: BehaviorLibrary, selection: Selection
    ) -> list[InputError]:
        """What stops a scripted run before it starts: a behaviour for no case of the repo (a
        typo in its `match` would leave its case unanswered), two answering one prompt."""
        prompts = self._behaviour_prompts(selection)
        options = self.options
        others = (
            other_targets_prompts(
                options.repo, options.source_workspace, selection.target.target_id
            )
            if unmatched_behaviors(library, prompts)
            else {}
        )
        return coverage_problems(library, prompts, other_prompts=others)

    # How to leave out the cases no behaviour scripts, in the unanswered-cases warning.
    narrowing_hint = "select the scripted ones with --case"

    def _warn_unanswered(self, library: BehaviorLibrary, selection: Selection) -> None:
        """A folder scripting some of the selected cases runs; the others could only end
        blocked, so say so before they start rather than in seven blocked results."""
        selected = {c.case_id: c.case.input.user_prompt for c in selection.cases}
        missing = unanswered_cases(library, selected)
        if missing:
            shown = ", ".join(missing[:8]) + (", ..." if len(missing) > 8 else "")
            print(
                f"agentic-eval: warning: no scripted behaviour in {library.source} answers"
                f" {len(missing)} of the {len(selected)} selected case(s): {shown}; their"
                f" attempts will be blocked ({self.narrowing_hint})",
                file=sys.stderr,
            )

    def _behaviour_prompts(self, selection: Selection) -> dict[str, str]:
        """The prompts the scripted behaviours must cover: every case of the target."""
        return {c.case_id: c.case.input.user_prompt for c in selection.target.all_cases()}

    def _open(
        self,
        plan: RunPlan,
        ready: _Ready,
        repo: EvalRepo,
        selection: Selection,
        run_dir: RunDir,
        previous: Manifest | None,
        place: ScratchPlace,
    ) -> _Opened:
        """The manifest, from the plan (or the resumed run's, after settling what it left),
        written as `running` before the first attempt; the attempt numbers taken so far."""
        options, scratch, target = self.options, plan.scratch, selection.target
        launch = self._launch_policy(repo, scratch)
        finished = run_dir.finished_case_ids() if previous else set()
        todo = [c for c in selection.cases if c.case_id not in finished]
        # Known before any attempt: whatever stops the run, a kept scratch is redacted with them.
        credentials = run_secrets(ready.runner, ready.real_endpoint, options.grader)
        self.secrets.update(credentials)
        for case in selection.cases:
            self.secrets.update(declared_secrets(case))
        trace: TraceLayer = "off"
        if launch.trace:
            trace = "ebpf" if launch.tracer == "ebpf" else "strace"
        if previous is None:
            manifest = plan_manifest(
                plan,
                ManifestFacts(
                    repo=repo.root,
                    source_workspace=repo.source_workspace,
                    target_skill_path=target.target.entry_skill,
                    case_workspace_root=scratch / WORKSPACES,
                    evidence_mode=ready.runner.evidence_mode,
                    agent_version=ready.runner.version(),
                    sandbox=launch.jail,
                    trace=trace,
                    skill_hash=None,
                    source_commit=None,
                ),
            )
            manifest.case_splits = {
                c.case_id: case_split(c, repo.config.splits) for c in selection.cases
            }
        else:
            manifest = previous
            self._take_over(manifest, run_dir, scratch, todo, ready.adapter, credentials)
            # A resume given --timeout makes it the run's timeout for every case from now on.
            manifest.timeout_s, manifest.timeout_explicit = plan.timeout_s, plan.timeout_explicit
            manifest.sandbox, manifest.trace = launch.jail, trace
        manifest.notes += [note for note in launch.notes if note not in manifest.notes]
        if options.variant is not None:
            manifest.variant = options.variant
        skill_text = _candidate_skill(options, run_dir, previous, manifest)
        if options.no_skill and not previous:
            manifest.notes.append("no skill: the workspaces hold none and the agent is given none")
        elif manifest.skill_hash is None:  # a resume keeps what the run started with
            manifest.skill_hash = skill_digest(target, repo.source_workspace, skill_text)
            manifest.source_commit = source_commit(repo.source_workspace)
        if ready.library is not None and not previous:
            manifest.notes.append(
                "scripted model: the agent ran against agentic-eval's scripted"
                f" {ready.adapter.protocol_label} server"
            )
        if ready.executor_type.name != DEFAULT_EXECUTOR:
            manifest.notes.append(f"attempts ran on the {ready.executor_type.name} executor")
        if previous:
            manifest.notes.append(
                f"resumed at {_now()}: {len(finished)} finished case(s) kept, {len(todo)} to run"
            )
        manifest.scratch = place
        if place == "memory":
            self.journal = run_dir
        manifest.run_state = "running"
        manifest.runner_pid = os.getpid()
        manifest.finished_at = None
        with self._storage_faults(run_dir, scratch):
            run_dir.write_manifest(manifest)
        for case in selection.cases:
            # An attempt killed mid-run left a workspace but no artifacts: never reuse its number.
            started = [n for n, _ in attempt_folders(scratch / WORKSPACES, case.case_id)]
            self.attempt_numbers[case.case_id] = max([run_dir.max_attempt(case.case_id), *started])
        return _Opened(manifest, todo, launch, skill_text)

    @contextmanager
    def _serve(self, plan: RunPlan, ready: _Ready, case_ids: list[str]) -> Iterator[ModelEndpoint]:
        """The model the agents reach: the scripted server for the run's length, or the real
        endpoint with the plan's model. The server is told the run's case ids, so a `chance`
        draw is seeded by the case an attempt's workspace folder stands for."""
        if ready.library is None:
            yield replace(ready.real_endpoint, model=plan.model)
            return
        with ScriptedModelServer(
            ready.library,
            model=plan.model or SCRIPTED_MODEL,
            latency_s=self.options.scripted_latency_s,
            draw_salt=self.options.scripted_draw_salt,
            case_folders={digest_name(case_id): case_id for case_id in case_ids},
        ) as server:
            yield ModelEndpoint(model=plan.model, base_url=server.base_url, scripted=True)

    def _take_over(
        self,
        previous: Manifest,
        run_dir: RunDir,
        scratch: Path,
        todo: list[LoadedCase],
        adapter: AgentAdapter,
        credentials: dict[str, str],
    ) -> None:
        """A resumed run first settles what the stopped one left: its agents, its attempts."""
        current = ScratchLayout(scratch)
        # Where the stopped run's workspaces are: its manifest says, in the layout of the version
        # that made it (an older one named them otherwise: `workspace/naming.py`).
        recorded = Path(previous.case_workspace_root)
        layout = recorded_layout(recorded, self.options.scratch_root, run_dir.run_id)
        if layout is None:
            note = (
                f"the stopped run's workspaces ({recorded}) are not where this version puts them"
                f" under the scratch root {self.options.scratch_root}: attempts it left in flight"
                " there are not recorded; its unfinished cases run anew"
            )
            print(f"agentic-eval: warning: {note}", file=sys.stderr)
            previous.notes.append(note)
        if previous.run_state == "running":
            # The previous evaluator died without stopping its agents (SIGKILL): stop them now.
            reaped = sum(
                kill_processes_mentioning(folder)
                for folder in {scratch, *([layout.scratch] if layout else [])}
            )
            if reaped:
                previous.notes.append(
                    f"resume stopped {reaped} agent process(es) left by the killed run"
                )
        # A resumed case runs all its K attempts again: what it had is listed, not counted.
        with self._storage_faults(run_dir, scratch):
            for note in record_in_flight(
                run_dir, layout or current, todo, previous, adapter, credentials
            ):
                previous.notes.append(note)
        if layout is not None and layout != current:
            # What the stopped run would have removed at its end (its agents are gone).
            self._drop_scratch(layout.scratch)
        previous.case_workspace_root = str(current.workspaces)

    def _stopped_by(
        self, exc: BaseException, run_dir: RunDir, manifest: Manifest, scratch: Path
    ) -> None:
        """Whatever stopped the run, the manifest must not keep saying "running", no temp file
        stays behind and the scratch goes. A storage failure (disk full, read-only, refused)
        becomes one line and exit 3 instead of an internal error."""
        problem = storage_error(exc, (run_dir.path.absolute(), scratch.absolute()))
        # Asked before anything is freed: the full disk is the one the scratch is on, or not.
        where = _refused_place(problem, run_dir, scratch) if problem is not None else None
        try:
            self._close(run_dir, manifest, "interrupted")
        except OSError:
            if problem is None:
                raise
            with suppress(OSError):  # the reports may not fit; the small manifest still may
                run_dir.write_manifest(manifest)
        remove_temp_files(run_dir.path)
        self._drop_scratch(scratch)
        if problem is not None:
            raise _storage_problem(
                problem, where, run_dir, f"manifest {manifest.run_state}"
            ) from None

    @contextmanager
    def _storage_faults(self, run_dir: RunDir, scratch: Path) -> Iterator[None]:
        """Before the run starts: a storage failure is one line and exit 3, leaving no temp
        file and no scratch."""
        try:
            yield
        except OSError as exc:
            problem = storage_error(exc, (run_dir.path.absolute(), scratch.absolute()))
            if problem is None:
                raise
            where = _refused_place(problem, run_dir, scratch)
            remove_temp_files(run_dir.path)
            self._drop_scratch(scratch)
            raise _storage_problem(problem, where, run_dir, "before starting") from None

    def _memory_refusal(self, plan: RunPlan, previous: Manifest | None) -> str | None:
        """Why this run's scratch stays on disk (None: it goes in memory). A kept scratch must
        outlive the process, a resumed run reads what the stopped one left on disk, and Ray's
        workers may live outside this process's mounts. Under `--scratch-memory on` any reason
        refuses the run before it claims its directory."""
        wanted = self.options.scratch_memory
        if wanted == "off":
            return "--scratch-memory off"
        why_not = memory_unavailable()
        if self.options.keep_scratch:
            why_not = "--keep-scratch keeps the scratch after the run"
        elif previous is not None:
            why_not = "a resumed run reads the stopped run's scratch on disk"
        elif plan.executor != "local":
            why_not = f"the {plan.executor} executor's workers may not share its mounts"
        if why_not is not None and wanted == "on":
            raise EnvironmentProblem(
                f"--scratch-memory on: the scratch cannot be in memory: {why_not}"
            )
        return why_not

    def _place_scratch(self, plan: RunPlan, refusal: str | None) -> ScratchPlace:
        """Mounts the run's scratch in memory (evaluator/workspace/memory.py) unless `refusal`
        says why not; says where it is."""
        if refusal is not None:
            return "disk"
        try:
            mount_scratch(plan.scratch)
        except OSError as exc:
            if self.options.scratch_memory == "on":
                raise EnvironmentProblem(
                    f"--scratch-memory on: the scratch cannot be in memory: {exc}"
                ) from None
            return "disk"
        return "memory"

    def _sweep_scratch(self, own: Path) -> None:
        """Removes the scratch folders on disk that runs no evaluator holds left in the scratch
        root: a SIGKILLed run (or one whose machine went down) never removes its own. Their
        agents are stopped first, as a resume does. Never a folder a live run holds (its run
        directory's lock); a folder that cannot be removed is a warning, not this run's fault."""
        for folder, run_dir in unheld_scratches(self.options.scratch_root, own, lock_held):
            kill_processes_mentioning(folder)
            try:
                remove_scratch(folder)
            except OSError as exc:
                print(
                    f"agentic-eval: warning: could not remove the scratch {folder} left by run"
                    f" {run_dir}, which no evaluator holds: {exc}",
                    file=sys.stderr,
                )

    def _drop_scratch(self, scratch: Path) -> None:
        if is_mounted(scratch):
            try:
                unmount_scratch(scratch)
            except OSError as exc:
                print(
                    f"agentic-eval: warning: could not unmount the scratch directory {scratch}:"
                    f" {exc}",
                    file=sys.stderr,
                )
            return
        if self.options.keep_scratch:
            # Kept for a person to look at, after the agents are gone: no secret stays in it.
            if scratch.is_dir():
                try:
                    Redactor(self.secrets.values()).tree(scratch)
                except OSError as exc:
                    print(
                        f"agentic-eval: warning: the kept scratch {scratch} may still hold"
                        f" secrets: {exc.filename or scratch}: {exc.strerror}",
                        file=sys.stderr,
                    )
            return
        try:
            remove_scratch(scratch)
        except OSError as exc:
            print(
                f"agentic-eval: warning: could not remove the scratch directory {scratch}: {exc}",
                file=sys.stderr,
            )

    def _launch_policy(self, repo: EvalRepo, scratch: Path) -> LaunchPolicy:
        """The jail hides what an attempt must not see: the source workspace, the eval repo
        (outside the source workspace with `--source-workspace` or `--evals`), the user's home,
        every run directory and the scratch root of this run (other attempts)."""
        hidden = (
            repo.source_workspace.resolve(),
            repo.root.resolve(),
            Path.home().resolve(),
            self.options.runs_dir.resolve(),
            scratch.resolve(),
            *(path.resolve() for path in self.options.hidden_paths),
        )
        return choose_policy(self.options.sandbox, self.options.trace, hidden, self.options.tracer)

    def _close(self, run_dir: RunDir, manifest: Manifest, state: RunState) -> None:
        manifest.run_state = state
        manifest.finished_at = _now()
        manifest.runner_pid = None
        # The manifest first: it is small, and it is what resume and readers trust.
        run_dir.write_manifest(manifest)
        run_dir.forget_in_flight()  # every attempt it started is recorded by now
        write_reports(run_dir, manifest, self.secrets.values())

    def _next_number(self, case_id: str) -> int:
        self.attempt_numbers[case_id] += 1
        return self.attempt_numbers[case_id]

    def _spec(self, slot: _Slot) -> AttemptSpec:
        assert slot.number is not None and self.plan is not None
        timeout_s = self.plan.timeout_for(slot.case)
        return AttemptSpec(self.settings, slot.case, slot.number, slot.retry_of, timeout_s)

    def _record_spec(self, slot: _Slot) -> AttemptSpec:
        """The spec for recording an attempt that never came back, staged apart: its worker may
        still be writing (or be killed while writing) the attempt's own staging directory."""
        spec = self._spec(slot)
        apart = spec.settings.run_dir.path.with_name(
            f"{spec.settings.run_dir.path.name}.recorded-{secrets.token_hex(4)}"
        )
        return replace(spec, settings=replace(spec.settings, run_dir=RunDir(apart)))

    def _submit(self, executor: Executor[Any, Any], slot: _Slot) -> Future[AttemptOutcome]:
        number = self._next_number(slot.case.case_id)
        slot.number = number
        if self.journal is not None:
            self.journal.note_in_flight(slot.case.case_id, number)
        self.progress.attempt_started(slot.case.case_id, number)
        return executor.submit(self._spec(slot))

    def _landed(
        self,
        executor: Executor[Any, Any],
        run_dir: RunDir,
        future: Future[AttemptOutcome],
        slot: _Slot,
    ) -> bool:
        """Records the attempt that landed; False when its slot must run again."""
        assert slot.number is not None
        try:
            landed = future.result()
        except Exception as exc:
            roots = (run_dir.path.absolute(), self.settings.case_workspace_root.parent)
            if storage_error(exc, roots) is not None:
                raise  # a full or unwritable disk takes every attempt down
            if executor.lost(exc):
                landed = self._lost(slot, exc)
                if slot.lost < 2:
                    self._write(run_dir, landed)  # listed, not counted
                    return False
            else:  # one broken attempt must not take the run down
                self._stop_agent(slot)
                why = f"the evaluator could not run this attempt: {type(exc).__name__}: {exc}"
                spec = self._record_spec(slot)
                landed = perform_failed(spec, why)
        self._write(run_dir, landed)
        result = landed.result
        self.progress.attempt_finished(result)
        slot.results.append(result)
        if result.valid or slot.retry_of is not None:
            return True
        slot.retry_of = slot.number  # the contract's one rerun, in a new workspace
        return False

    def _lost(self, slot: _Slot, error: BaseException) -> AttemptOutcome:
        """An attempt whose worker went away: its agent is stopped, and it is listed (not
        counted) and run again under a new number; lost twice, the try is blocked."""
        assert slot.number is not None
        slot.lost += 1
        self._stop_agent(slot)
        why = f"lost with its worker ({type(error).__name__})"
        spec = self._record_spec(slot)
        landed = perform_failed(spec, why)
        if slot.lost < 2:
            landed.bundle.mark_interrupted(f"{why}; run again under a new number")
        return landed

    def _stop_agent(self, slot: _Slot) -> None:
        """Whatever agent an attempt that never came back left on this machine is stopped."""
        if slot.number is not None:
            root = self.settings.case_workspace_root
            kill_processes_mentioning(attempt_folder(root, slot.case.case_id, slot.number))

    def _write(self, run_dir: RunDir, landed: AttemptOutcome) -> None:
        """Writes the attempt; one that landed after the run began stopping is kept, marked
        interrupted, and never counted."""
        stopping = self.stop.is_set()
        if stopping:
            landed.bundle.mark_interrupted("the run was stopped during it")
        landed.bundle.write(run_dir)
        self.secrets.update(landed.result.secrets)
        if stopping:
            raise RunInterrupted("stopping")

    def _drain(self, run_dir: RunDir, in_flight: dict[Future[AttemptOutcome], _Slot]) -> None:
        """The run is stopping: the attempts that were running still land (their agents were
        stopped) or were cancelled with their worker; each is recorded, marked interrupted."""
        for future in in_flight:
            future.cancel()
        for future, slot in in_flight.items():
            try:
                landed = future.result()
            except BaseException:  # cancelled with its worker, lost, or broken
                self._stop_agent(slot)  # a worker killed with its task may leave one here
                self._record_cancelled(run_dir, slot)
                continue
            landed.bundle.mark_interrupted("the run was stopped during it")
            landed.bundle.write(run_dir)
            self.secrets.update(landed.result.secrets)

    def _record_cancelled(self, run_dir: RunDir, slot: _Slot) -> None:
        """An attempt stopped with its worker returns nothing: it is listed all the same."""
        if slot.number is None:
            return
        spec = self._record_spec(slot)
        # Already stopping on an error: a disk that refuses this record must not hide it.
        with suppress(OSError):
            landed = perform_failed(spec, "its worker was stopped with the run")
            landed.bundle.mark_interrupted("the run was stopped during it")
            landed.bundle.write(run_dir)

    def _finish_case(
        self,
        run_dir: RunDir,
        case: LoadedCase,
        slots: list[list[AttemptResult]],
        manifest: Manifest,
        outcome: RunOutcome,
    ) -> None:
        finals = [slot[-1] for slot in slots]
        every = sorted((a for slot in slots for a in slot), key=lambda a: a.number)
        numbers = {a.number for a in every}
        earlier = [r for r in run_dir.attempt_records(case.case_id) if r.attempt not in numbers]
        result = finalize_case(
            run_dir,
            case,
            finals,
            every,
            self.settings.target.target.allowed_statuses,
            earlier=[r.model_copy(update={"interrupted": True}) for r in earlier],
            source_workspace=self.settings.source_workspace,
            target=self.settings.target,
        )
        result = self._case_result(case, finals, result)
        if result.environment_mismatches:
            manifest.environment_mismatches[case.case_id] = result.environment_mismatches
            run_dir.write_manifest(manifest)
        run_dir.write_case_result(result)
        outcome.results.append(result)
        self.progress.case_finished(result)

    def _case_result(
        self, case: LoadedCase, finals: list[AttemptResult], result: CaseResult
    ) -> CaseResult:
        """The case's result as the run records it (a trigger run decides by majority)."""
        return result


@dataclass
class RunLane:
    """One run, opened: what its attempts need and what they produce. `drive` runs the attempts
    of one lane, or of several (the variants of an evaluation) through one executor."""

    run: Run
    repo: EvalRepo
    selection: Selection
    run_dir: RunDir
    plan: RunPlan
    ready: _Ready
    opened: _Opened
    outcome: RunOutcome

    def slots(self) -> list[_Slot]:
        return [
            _Slot(case)
            for case in self.opened.todo
            for _ in range(self.plan.attempts_for(case.case_id))
        ]


_heap_frozen = False


def freeze_heap_once() -> None:
    """Takes what this process holds before its first attempts (the imported modules, the loaded
    repo, the plan) out of the garbage collector's full collections (`gc.freeze`). Each full
    collection walks every tracked object; with the evaluator's imports that took 40-45 ms in the
    middle of an attempt, about once in 20 attempts (2 ms per attempt on average). Once per
    process: frozen objects are never collected, so cyclic garbage left at that moment (little,
    before a first run) is kept."""
    global _heap_frozen
    if not _heap_frozen:
        _heap_frozen = True
        gc.freeze()


def drive(lanes: list[RunLane]) -> None:
    """Runs every lane's attempts through one executor (the first lane's: its kind, workers and
    cluster), their tries interleaved (lane A's first, lane B's first, ...) so that drift in
    time or in the model hits each lane alike. Every lane's Run must share one `stop` event."""
    first = lanes[0]
    executor = first.ready.executor_type(
        first.run.perform,
        ExecutorSettings(workers=first.plan.workers, address=first.plan.ray_address),
    )
    for lane in lanes:
        lane.run.progress.start(
            lane.run_dir.run_id, [c.case_id for c in lane.opened.todo], lane.plan.attempts
        )
    stop = first.run.stop
    # What the attempts import on first use, imported now: not inside the first attempt, and
    # frozen with the rest of the heap. Every adapter's names (the skill's vocabulary) and the
    # modules that read the lanes' sessions.
    agent_names()
    for lane in lanes:
        lane.ready.adapter.preload()
    freeze_heap_once()
    try:
        with _stop_on_signals(stop):
            _pool(executor, lanes, stop)
    except (KeyboardInterrupt, RunInterrupted) as exc:
        if isinstance(exc, KeyboardInterrupt):  # a signal that landed outside the handler
            stop.stop_by(signal.SIGTERM if isinstance(exc, Terminated) else signal.SIGINT)
        stop.set()
        executor.stop()
        for lane in lanes:
            lane.outcome.interrupted = True
            lane.outcome.stopped_by_signal = stop.signum
    finally:
        executor.close()
        for lane in lanes:
            lane.run.progress.stop()


def interleave(queues: list[list[T]]) -> list[T]:
    """The first item of each queue, then the second of each, ...: queues may differ in length."""
    return [item for round_ in zip_longest(*queues) for item in round_ if item is not None]


def skill_kind(lane: RunLane) -> Hashable:
    """What skill a lane's attempts are given: none, or the variant's source workspace and
    skill text. Two lanes of one skill (an A/A pair) are one kind; two versions are two, even
    when their files happen to be alike (kept apart in time, which is safe)."""
    options = lane.run.options
    if options.no_skill:
        return None
    return (str(options.source_workspace), options.skill_text)


def _pool(executor: Executor[Any, Any], lanes: list[RunLane], stop: StopEvent) -> None:
    """The driver: it submits at most `workers` attempts at a time, takes each outcome as it
    lands, writes it (the only writer of each run directory), reruns an invalid attempt once
    and an attempt lost with its worker once, and finishes a case when its K tries are in."""
    workers = lanes[0].plan.workers
    waiting = deque(interleave([[(lane, slot) for slot in lane.slots()] for lane in lanes]))
    in_flight: dict[Future[AttemptOutcome], tuple[RunLane, _Slot]] = {}
    # Attempts given different skills (none, or two versions) never run together (`turns.py`).
    turns: Turns[tuple[RunLane, _Slot]] = Turns(workers, lambda item: skill_kind(item[0]))
    done_slots: dict[tuple[int, str], list[list[AttemptResult]]] = {}
    try:
        while waiting or in_flight:
            if stop.is_set():
                raise RunInterrupted("stopping")
            while (taken := turns.take(waiting, len(in_flight))) is not None:
                lane, slot = taken
                in_flight[lane.run._submit(executor, slot)] = (lane, slot)
            finished, _ = wait(list(in_flight), timeout=POOL_POLL_S, return_when=FIRST_COMPLETED)
            for future in finished:
                lane, slot = in_flight.pop(future)
                run = lane.run
                if not run._landed(executor, lane.run_dir, future, slot):
                    waiting.appendleft((lane, slot))  # its rerun goes first: the case waits on it
                    continue
                case_id = slot.case.case_id
                done = done_slots.setdefault((id(lane), case_id), [])
                done.append(slot.results)
                if len(done) == lane.plan.attempts_for(case_id):
                    run._finish_case(
                        lane.run_dir, slot.case, done, lane.outcome.manifest, lane.outcome
                    )
    except BaseException:
        stop.set()
        executor.stop()
        for lane in lanes:
            mine = {f: slot for f, (owner, slot) in in_flight.items() if owner is lane}
            lane.run._drain(lane.run_dir, mine)
        raise


@dataclass(frozen=True)
class _Ready:
    """What the checks before the claim found: the run can start with these."""

    library: BehaviorLibrary | None
    real_endpoint: ModelEndpoint
    adapter: AgentAdapter
    runner: AgentRunner
    executor_type: type[Executor[Any, Any]]


@dataclass(frozen=True)
class _Opened:
    manifest: Manifest
    todo: list[LoadedCase]
    launch: LaunchPolicy
    skill_text: str | None


@dataclass
class _Slot:
    """One of a case's K tries: an attempt, its one rerun if invalid, reruns of lost ones."""

    case: LoadedCase
    number: int | None = None  # the attempt in flight
    retry_of: int | None = None
    lost: int = 0
    results: list[AttemptResult] = field(default_factory=list)


def _storage_problem(
    problem: OSError, where: str | Path | None, run_dir: RunDir, state: str
) -> EnvironmentProblem:
    # Without a manifest there is nothing to resume: the run's directory is removed (_unclaim).
    then = f"--resume {run_dir.run_id}" if run_dir.manifest_path.is_file() else "run it again"
    return EnvironmentProblem(
        f"cannot write {where}: {problem.strerror}; run"
        f" {run_dir.run_id} stopped, {state}"
        f" (free space or fix permissions, then {then})"
    )


def _refused_place(problem: OSError, run_dir: RunDir, scratch: Path) -> str | Path:
    """The file the write failed on or, for an error that names none (a write() cut short),
    whichever of the scratch and the run directory is on a full or read-only file system: they
    are often on different disks, and the line must send the user to the one to free."""
    if problem.filename is not None:
        return os.fsdecode(problem.filename)
    for place in (scratch, run_dir.path):
        try:
            stats = os.statvfs(place)
        except OSError:
            continue
        if stats.f_flag & os.ST_RDONLY or stats.f_bavail == 0:
            return place
    return run_dir.path


def write_reports(
    run_dir: RunDir, manifest: Manifest, secrets: Mapping[str, str] | None = None
) -> None:
    results = run_dir.read_case_results(manifest.resolved_case_ids)
    findings = case_findings(run_dir, results)
    path = run_dir.path / TRIGGERS_FILE
    triggers = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None
    # A run no evaluator holds any more is reported interrupted, however its manifest ended.
    state = unfinished_why(run_dir.path, manifest.run_id, manifest.run_state)
    report = render_report(manifest, results, findings, triggers, run_state=state)
    if triggers is not None:  # a trigger run: its confusion table and misfiring prompts
        report += "\n" + render_trigger_section(triggers)
    # The case results are redacted already; the reports are too, should a text reach them some
    # other way (a manifest, a finding).
    redact = Redactor(secrets or {})
    write_atomic(run_dir.path / "report.md", redact.text(report))
    write_atomic(run_dir.path / "transcript.md", redact.text(render_transcript(manifest, run_dir)))
    write_run_html(run_dir, manifest, results)
    write_run_outputs(run_dir, manifest, secrets)  # skill-creator gradings, ATIF trajectories


def record_in_flight(
    run_dir: RunDir,
    layout: ScratchLayout,
    cases: list[LoadedCase],
    previous: Manifest,
    adapter: AgentAdapter,
    credentials: dict[str, str] | None = None,
) -> list[str]:
    """The attempts a stopped run left for cases it did not finish are marked interrupted (the
    resume runs those cases again). An attempt it never recorded (its workspace exists, its
    attempt.json does not) is recorded now: what is known of it, its agent's output and any
    session it left, marked interrupted too: listed, never counted. One whose scratch was in
    memory left only its note in the run directory (`RunDir.note_in_flight`): it is listed so."""
    notes = []
    stopped = (
        f"in flight when the evaluator (pid {previous.runner_pid or 'unknown'}) stopped"
        " without recording it"
    )
    for case in cases:
        for record in run_dir.attempt_records(case.case_id):
            if not record.interrupted:
                path = run_dir.attempt_artifacts(case.case_id, record.attempt) / "attempt.json"
                payload = json.loads(path.read_text(encoding="utf-8"))
                payload["interrupted"] = True
                write_json(path, payload)
        left: dict[int, tuple[Path, Path | None, str]] = {
            number: (
                attempt_folder(layout.workspaces, case.case_id, number),
                None,
                f"{stopped}; its scratch was in memory and ended with it: nothing of its session"
                " is kept",
            )
            for number in run_dir.noted_in_flight(case.case_id)
        }
        for number, workspace, folder in layout.attempts(case.case_id):
            left[number] = (workspace, folder, f"{stopped}; its agent was stopped at resume")
        for number, (workspace, agent_dir, why) in sorted(left.items()):
            directory = run_dir.attempt_artifacts(case.case_id, number)
            if (directory / "attempt.json").is_file():
                continue
            directory.mkdir(parents=True, exist_ok=True)
            if agent_dir is not None:
                for source, name in (
                    (agent_dir / "stdout.jsonl", "agent-stdout.jsonl"),
                    (agent_dir / "stderr.txt", "agent-stderr.txt"),
                    *(
                        (session, "interrupted-session.jsonl")
                        for session in adapter.in_flight_sessions(agent_dir)[:1]
                    ),
                ):
                    if source.is_file():
                        copy_atomic(source, directory / name)
            record = AttemptRecord(
                attempt=number,
                workspace_root=str(workspace.resolve()),
                valid=False,
                status="blocked",
                blocked_reason="environment",
                reason=why,
                artifacts_dir=str(directory.relative_to(run_dir.path)),
                interrupted=True,
            )
            write_json(directory / "attempt.json", record)
            Redactor({**(credentials or {}), **declared_secrets(case)}).tree(directory)
            notes.append(f"{case.case_id} attempt {number:02d}: {why}")
    run_dir.forget_in_flight()
    return notes
