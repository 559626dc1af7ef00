"""A run's plan: every setting resolved once, by one precedence rule, before anything runs.

`resolve_run` is pure: it reads the options, the selected cases, the target's defaults and the
manifest of a run being resumed, and returns a frozen `RunPlan`. The manifest is built from the
plan (`plan_manifest`), for `run` and for the in-session mode alike. What needs the machine (is
the agent's CLI there, are there credentials) is checked by `check_plan`, after the plan stands.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TypeVar

from evaluator import __version__
from evaluator.adapters import DEFAULT_RUNNER, adapter_for_runner
from evaluator.agents import AgentRunner, ModelEndpoint
from evaluator.artifacts.models import JudgeSettings, Manifest, VariantRole
from evaluator.credentials import without_userinfo
from evaluator.defaults import DEFAULT_SCRATCH, DEFAULT_TIMEOUT_S
from evaluator.errors import EnvironmentProblem, InputError
from evaluator.judge import ModelGrader
from evaluator.pipeline.attempt import AttemptInspector
from evaluator.pipeline.reachable import unreachable
from evaluator.plan import Selection
from evaluator.repo import LoadedCase
from evaluator.sandbox import DEFAULT_TRACER, TraceMode
from evaluator.vocabulary import ScratchMemory, TraceLayer
from evaluator.workspace.naming import run_scratch

SCRIPTED_MODEL = "mock-model"
DEFAULT_ATTEMPTS = 1
DEFAULT_EXECUTOR = "local"

T = TypeVar("T")


@dataclass
class RunOptions:
    """What the caller asked for (the command line, or a program driving runs)."""

    repo: Path
    source_workspace: Path | None = None
    target: str | None = None
    suites: tuple[str, ...] = ()
    cases: tuple[str, ...] = ()
    agent: str | None = None
    attempts: int | None = None
    workers: int | None = None
    timeout_s: float | None = None
    run_id: str | None = None
    resume: str | None = None
    model: str | None = None
    behaviors: Path | None = None
    runs_dir: Path = Path("runs")
    scratch_root: Path = DEFAULT_SCRATCH
    # Per adapter (by name), the options its alias flags set; under "", the `--agent-option`
    # pairs for the run's agent, whichever it is.
    agent_options: dict[str, dict[str, object]] = field(default_factory=dict)
    auth_from: Path | None = None
    # Any endpoint speaking the agent's provider API (a local vLLM or Ollama server, a LiteLLM
    # gateway), with the name of the variable that holds its key.
    base_url: str | None = None
    api_key_env: str | None = None
    lenient: bool = False
    scripted_latency_s: float = 0.0  # seconds the scripted model waits per reply (benchmarks)
    # Seeds the scripted model's `chance` draws besides the attempt: `evaluate` gives each variant
    # its own, so two lanes of one variant (A/A) vary as two real runs would, not in lockstep.
    scripted_draw_salt: str = ""
    skill_text: str | None = None  # candidate entry skill for every workspace (`score --skill`)
    grader: ModelGrader | None = None  # the model judge (`--judge-model`), owned by the caller
    # The judge options that built `grader`, recorded in the manifest (`--rerun-failed`).
    judge: JudgeSettings | None = None
    keep_scratch: bool = False  # keep workspaces and agent homes after the run (debugging)
    # The run's scratch on a tmpfs of the evaluator's own (evaluator/workspace/memory.py):
    # `auto` where the process entered its private mounts, `on` refuses to run on disk.
    scratch_memory: ScratchMemory = "auto"
    sandbox: str | None = None  # None: bwrap where it works, else none
    trace: TraceMode = "auto"
    # Which tracer traces (evaluator/sandbox/trace_registry.py): `auto`, eBPF where it loads.
    tracer: str = DEFAULT_TRACER
    executor: str = DEFAULT_EXECUTOR  # where attempts run: `local` or `ray` (evaluator/execute)
    ray_address: str | None = None  # the Ray cluster to join; None starts a local one
    no_skill: bool = False  # workspaces get no skill (the no-skill baseline of `evaluate`)
    attempt_inspector: AttemptInspector | None = None  # the run's own check of every attempt
    # More places the jail hides from the agents (an evaluation's other variants, its scratch).
    hidden_paths: tuple[Path, ...] = ()
    # The variant of an `evaluate` comparison this run is (the manifest's `variant`).
    variant: VariantRole | None = None


def setting(
    command_line: T | None = None,
    resumed: T | None = None,
    case: T | None = None,
    target: T | None = None,
    *,
    default: T,
) -> T:
    """The one precedence rule of every setting: the command line, then the run being resumed,
    then the case, then the target's defaults, then ours. A resumed run's fixed settings (agent,
    attempts, model, endpoint, behaviours) cannot differ on the command line: `refuse_changes`
    rejects that first, so command line before resumed run is right for them too."""
    for value in (command_line, resumed, case, target):
        if value is not None:
            return value
    return default


@dataclass(frozen=True)
class RunPlan:
    run_id: str
    resumed: bool
    target_id: str
    suite_ids: tuple[str, ...]
    explicit_case_ids: tuple[str, ...]
    case_ids: tuple[str, ...]
    agent: str
    attempts: int
    # case_id -> K where the case's own `attempts:` set it (kept in the manifest for a resume)
    case_attempts: Mapping[str, int]
    workers: int
    timeout_s: float
    # --timeout was given (now or when the run started): it beats a case's own timeout_s
    timeout_explicit: bool
    model: str | None  # None: the agent's own default model
    behaviors: Path | None  # the scripted model's behaviours; None: a real model
    base_url: str | None
    api_key_env: str | None
    scratch: Path
    executor: str
    ray_address: str | None
    lenient: bool
    judge: JudgeSettings | None = None  # the options the judge was built from

    def attempts_for(self, case_id: str) -> int:
        return self.case_attempts.get(case_id, self.attempts)

    def timeout_for(self, case: LoadedCase) -> float:
        explicit = self.timeout_s if self.timeout_explicit else None
        return setting(explicit, None, case.case.timeout_s, None, default=self.timeout_s)


def resolve_run(
    options: RunOptions,
    selection: Selection,
    run_id: str,
    previous: Manifest | None,
    *,
    default_workers: int,
) -> RunPlan:
    """Pure: the options over the resumed run's manifest over the cases over the target."""
    if previous is not None:
        refuse_changes(options, previous)
    defaults = selection.target.target.defaults
    kept = previous
    behaviors = setting(
        options.behaviors.resolve() if options.behaviors else None,
        Path(kept.behaviors_dir) if kept and kept.behaviors_dir else None,
        default=None,
    )
    attempts = setting(
        options.attempts,
        kept.attempts if kept else None,
        None,
        defaults.attempts if defaults else None,
        default=DEFAULT_ATTEMPTS,
    )
    case_attempts: dict[str, int] = (
        dict(kept.case_attempts)
        if kept
        else {
            c.case_id: c.case.attempts
            for c in selection.cases
            if options.attempts is None and c.case.attempts is not None
        }
    )
    return RunPlan(
        run_id=run_id,
        resumed=previous is not None,
        target_id=selection.target.target_id,
        suite_ids=tuple(selection.suite_ids),
        explicit_case_ids=tuple(selection.explicit_case_ids),
        case_ids=tuple(c.case_id for c in selection.cases),
        agent=setting(
            options.agent,
            kept.agent if kept else None,
            None,
            defaults.agent if defaults else None,
            default=DEFAULT_RUNNER,
        ),
        attempts=attempts,
        case_attempts=case_attempts,
        workers=setting(options.workers, kept.workers if kept else None, default=default_workers),
        timeout_s=setting(
            options.timeout_s,
            kept.timeout_s if kept else None,
            None,
            defaults.timeout_s if defaults else None,
            default=DEFAULT_TIMEOUT_S,
        ),
        timeout_explicit=options.timeout_s is not None or bool(kept and kept.timeout_explicit),
        model=setting(
            options.model,
            kept.model if kept else None,
            default=SCRIPTED_MODEL if behaviors and not kept else None,
        ),
        behaviors=behaviors,
        # A resume takes the URL as given again (the manifest keeps it without credentials).
        base_url=setting(options.base_url, kept.model_base_url if kept else None, default=None),
        api_key_env=setting(
            options.api_key_env, kept.model_key_env if kept else None, default=None
        ),
        scratch=run_scratch(options.scratch_root, run_id),
        executor=options.executor,
        ray_address=options.ray_address,
        lenient=options.lenient,
        judge=options.judge or (kept.judge if kept else None),
    )


def refuse_changes(options: RunOptions, previous: Manifest) -> None:
    """A resumed run keeps the agent, attempts, model and behaviours it started with."""
    given = {
        "--agent": (options.agent, previous.agent),
        "--attempts": (options.attempts, previous.attempts),
        "--model": (options.model, previous.model),
        "--base-url": (
            without_userinfo(options.base_url) if options.base_url else None,
            previous.model_base_url,
        ),
        "--api-key-env": (options.api_key_env, previous.model_key_env),
        "--behaviors": (
            str(options.behaviors.resolve()) if options.behaviors else None,
            previous.behaviors_dir,
        ),
    }
    for flag, (value, kept) in given.items():
        if value is not None and value != kept:
            raise InputError(
                f"run {previous.run_id} was started with {kept!r}; resume keeps it", field=flag
            )


def check_endpoint_options(
    *, behaviors: bool, base_url: str | None, api_key_env: str | None, model: str | None
) -> None:
    """The endpoint options that cannot go together, as a run reads them and as `export
    codexopt-tasks` writes them into every task (where each task would fail alike)."""
    if behaviors and (base_url or api_key_env):
        raise InputError(
            "--behaviors runs the scripted model; it takes no --base-url or --api-key-env",
            field="--base-url" if base_url else "--api-key-env",
        )
    if base_url and not model:
        raise InputError("--base-url needs --model: the model that endpoint serves")


def check_endpoint(plan: RunPlan, options: RunOptions) -> ModelEndpoint:
    """The real model's endpoint, checked before the agent's CLI is looked up (it is the user's
    input); the model is filled in when the run serves."""
    # A scripted run refuses the endpoint options given; the endpoint planned (a resumed run
    # keeps its own) needs its model.
    check_endpoint_options(
        behaviors=plan.behaviors is not None,
        base_url=options.base_url,
        api_key_env=options.api_key_env,
        model=plan.model,
    )
    check_endpoint_options(
        behaviors=False, base_url=plan.base_url, api_key_env=plan.api_key_env, model=plan.model
    )
    if plan.api_key_env and not os.environ.get(plan.api_key_env):
        raise EnvironmentProblem(f"--api-key-env {plan.api_key_env}: that variable is not set")
    if plan.base_url and (why := unreachable(plan.base_url)):
        raise EnvironmentProblem(
            f"--base-url {why}: every attempt would wait for it until its timeout;"
            " start the server or correct the URL"
        )
    return ModelEndpoint(
        model=None,
        base_url=plan.base_url,
        auth_from=options.auth_from,
        api_key_env=plan.api_key_env,
    )


def check_credentials(
    plan: RunPlan, options: RunOptions, runner: AgentRunner, endpoint: ModelEndpoint
) -> None:
    if options.auth_from is not None and not runner.uses_auth_from:
        label = adapter_for_runner(plan.agent).label
        raise InputError(
            f"--auth-from copies a login the {label} agent ({plan.agent}) does not use"
        )
    # A fresh agent home has no login: without credentials every attempt would block.
    if plan.behaviors is None and not plan.resumed and not runner.has_credentials(endpoint):
        raise EnvironmentProblem(
            f"a real model needs credentials: {runner.credentials_hint};"
            " --behaviors DIR uses the scripted model"
        )
    # The user's own variable pointing the agent at a gateway is checked as --base-url is.
    passed = runner.base_url_env and not (endpoint.base_url or endpoint.api_key_env)
    own_url = os.environ.get(runner.base_url_env or "") if passed else None
    if plan.behaviors is None and own_url and (why := unreachable(own_url)):
        raise EnvironmentProblem(
            f"{runner.base_url_env} {why}: every attempt would wait for it until its timeout;"
            " start the server or correct the variable"
        )
    # With no endpoint given, the one the agent reaches by default for its login (its
    # adapter's data): on a machine without a network each attempt would wait it out too.
    default = runner.default_endpoint(endpoint) if plan.behaviors is None else None
    if default and (why := unreachable(default)):
        elsewhere = f" (or set {runner.base_url_env})" if runner.base_url_env else ""
        raise EnvironmentProblem(
            f"the {plan.agent} agent's default model endpoint {why}: every attempt would wait"
            f" for it until its timeout; point the agent elsewhere with --base-url URL --model"
            f" NAME{elsewhere}, or script the model with --behaviors DIR"
        )


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


@dataclass(frozen=True)
class ManifestFacts:
    """What the plan cannot know without the machine: the agent's version, where things are."""

    repo: Path
    source_workspace: Path
    target_skill_path: str
    case_workspace_root: Path
    evidence_mode: str
    agent_version: str | None
    sandbox: str
    trace: TraceLayer
    skill_hash: str | None
    source_commit: str | None
    notes: tuple[str, ...] = ()


def plan_manifest(plan: RunPlan, facts: ManifestFacts, *, in_session: bool = False) -> Manifest:
    """A new run's manifest, from its plan: the one place a manifest is first written.
    In-session attempts have no pool and no timeout of ours: those fields stay unset."""
    return Manifest(
        run_id=plan.run_id,
        target_id=plan.target_id,
        suite_ids=list(plan.suite_ids),
        target_skill_path=facts.target_skill_path,
        started_at=now(),
        model=plan.model,
        case_workspace_root=str(facts.case_workspace_root),
        evidence_mode=facts.evidence_mode,
        notes=list(facts.notes),
        selected_case_ids=list(plan.explicit_case_ids),
        resolved_case_ids=list(plan.case_ids),
        source_workspace=str(facts.source_workspace),
        repo=str(facts.repo),
        run_state="running" if in_session else "planned",
        agent=plan.agent,
        agent_version=facts.agent_version,
        attempts=plan.attempts,
        case_attempts=dict(plan.case_attempts),
        workers=1 if in_session else plan.workers,
        timeout_s=None if in_session else plan.timeout_s,
        timeout_explicit=plan.timeout_explicit,
        lenient=plan.lenient,
        behaviors_dir=str(plan.behaviors) if plan.behaviors else None,
        model_base_url=without_userinfo(plan.base_url) if plan.base_url else None,
        model_key_env=plan.api_key_env,
        judge=(
            plan.judge.model_copy(update={"base_url": without_userinfo(plan.judge.base_url)})
            if plan.judge and plan.judge.base_url
            else plan.judge
        ),
        evaluator_version=__version__,
        sandbox=facts.sandbox,
        trace=facts.trace,
        skill_hash=facts.skill_hash,
        source_commit=facts.source_commit,
    )
