"""`agentic-eval triggers`: a target's trigger cases, K attempts each, through the run's executor.

A trigger run is a run (plan, one writer of the run directory, executors, reports) whose cases
are the trigger prompts. Each attempt gets a fresh workspace holding the target's skill beside
its distractor skills, a fresh agent home, and the prompt verbatim; what counts is not a
judgement but which skill fired, read from the session with the adapter's trigger signal, on a
skill registry proven clean. An attempt "passes" when the target fired exactly when the case
expects it; the case passes when the majority of its attempts fired as expected. The run-level
metrics (precision, recall, F1, the suspect flag) go to `triggers.json`.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any, cast

from pydantic import ValidationError

from evaluator.adapters import adapter_for_runner, get_adapter
from evaluator.artifacts.models import AttemptRecord, Manifest, ScratchPlace
from evaluator.artifacts.rundir import RunDir, storage_error, write_json
from evaluator.artifacts.trigger_files import (
    TRIGGER_PLAN_FILE,
    KeptTriggerPlan,
    TriggerAttemptFile,
    TriggerRunFile,
)
from evaluator.contract.models import Case
from evaluator.contract.skill_listing import unlisted_skill
from evaluator.contract.triggers import TriggerCase
from evaluator.errors import InputError
from evaluator.evidence.triggers import (
    SkillSource,
    TriggerUndecidable,
    declared_name_in,
    declared_skill_name,
    refused_load,
)
from evaluator.modelserver import BehaviorLibrary
from evaluator.modelserver.behaviors import overlapping_behaviors, unmatched_behaviors
from evaluator.pipeline.attempt import (
    AttemptOutcome,
    AttemptResult,
    AttemptSettings,
    AttemptSpec,
    _block,
    _locate,
    attempt_secrets,
    failed_attempt,
    install_skills,
    installed_links,
    read_session,
    run_agent,
    save_attempt,
    session_store_changed,
    take_bundle,
    with_trace,
)
from evaluator.pipeline.case import final_slots
from evaluator.pipeline.run import Run, RunOptions, RunOutcome
from evaluator.pipeline.runplan import RunPlan
from evaluator.pipeline.skill_watch import spawned_triggers
from evaluator.plan import Selection, resolve_target
from evaluator.prompting import agent_prompt
from evaluator.repo import EvalRepo, LoadedCase, LoadedTarget
from evaluator.repo.evals_json import TRIGGER_FILES
from evaluator.repo.triggers import TriggerFormat, TriggerSet, load_trigger_set
from evaluator.triggers.discovery import (
    DiscoveredSkill,
    check_registry,
    front_matter_fields,
    installed_sources,
    launched_skills,
)
from evaluator.triggers.metrics import (
    AttemptOutcome as TriggerOutcome,
)
from evaluator.triggers.metrics import (
    TriggerMetrics,
    trigger_metrics,
)
from evaluator.workspace import build_workspace, fingerprint, save_snapshot
from evaluator.workspace.naming import attempt_folder
from evaluator.workspace.scratch import make_tree_private
from evaluator.yamlsource import YamlDocument

if TYPE_CHECKING:
    from evaluator.adapters.base import AgentAdapter

TRIGGER_FILE = "trigger.json"  # each attempt's observation, beside its attempt.json
TRIGGERS_FILE = "triggers.json"  # the run's metrics
DEFAULT_TRIGGER_ATTEMPTS = 3


def prompt_note(expect: bool | None, right: int, valid: int) -> str:
    """A trigger prompt's case-result note: which way it went (a missed prompt and a misfire
    need different fixes to the description), with the count behind the majority rule."""
    if expect is None:
        return f"{right} of {valid} valid attempts fired as expected"
    fired = right if expect else valid - right
    wanted = "should fire" if expect else "should not fire"
    verdict = "" if 2 * right > valid else ("missed: " if expect else "misfired: ")
    return f"{verdict}{wanted}, fired in {fired} of {valid} valid attempts"


@dataclass(frozen=True)
class TriggerPlan:
    """What every trigger attempt of a run installs and looks for."""

    skill: str  # the target skill's name, as agents list it
    entry_skill: str  # its workspace path (folder or SKILL.md), as target.yaml gives it
    distractors: tuple[str, ...]  # workspace paths of the distractor skills
    # where each distractor is copied from (the source workspace, or another target's mount)
    distractor_sources: tuple[Path, ...] = ()
    # workspace paths of the target's companion skills, installed with it (never a distractor:
    # they are part of the skill as the user installs it, yet the agent lists them too)
    companions: tuple[str, ...] = ()
    prompts: dict[str, TriggerCase] = field(default_factory=dict)
    trigger_only: bool = True


@dataclass(frozen=True)
class TriggerSpec(AttemptSpec):
    plan: TriggerPlan | None = None


@dataclass
class TriggerOptions:
    """What `agentic-eval triggers` adds to a run's options."""

    trigger_file: Path | None = None  # a trigger set by path (default: the target's)
    other_targets: bool = False  # add the other targets' entry skills as distractors
    trigger_only: bool = True
    # Skill folders given on the command line (`--distractor`), installed beside the entry
    # skill's folder as the target's own distractors are: a skill-creator evals.json has no
    # target.yaml to name them in.
    distractor_folders: tuple[Path, ...] = ()


def _skill_folder(relative: str) -> str:
    return relative.removesuffix("/SKILL.md") if relative.endswith("SKILL.md") else relative


def trigger_loaded_cases(target: LoadedTarget, triggers: TriggerSet) -> list[LoadedCase]:
    """Each trigger case as a case of the run: its prompt verbatim, nothing to assert (what
    counts is the trigger, observed by `run_trigger_attempt`)."""
    cases = []
    for trigger in triggers.cases:
        case = Case.model_validate(
            {
                "case_id": trigger.id,
                "title": f"{'should' if trigger.expect_trigger else 'should not'} trigger",
                "input": {"user_prompt": trigger.prompt},
                "assert": {},
            }
        )
        cases.append(
            LoadedCase(
                case=case,
                path=triggers.path,
                doc=YamlDocument(path=triggers.path, data=None),
                suite_id="triggers",
                target_id=target.target_id,
            )
        )
    return cases


def install_distractors(settings: AttemptSettings, workspace: Path, plan: TriggerPlan) -> None:
    """Copies each distractor skill folder to its workspace path, then lets the agent's runner
    place it where the agent discovers skills, as it does for the target's skill."""
    for relative, source in zip(plan.distractors, plan.distractor_sources, strict=True):
        folder = _skill_folder(relative)
        destination = workspace / folder
        if not destination.exists():
            shutil.copytree(source, destination, symlinks=False)
        settings.runner.prepare_workspace(workspace, Path(folder) / "SKILL.md")


def run_trigger_attempt(spec: TriggerSpec) -> AttemptResult:
    settings, case, number, plan = spec.settings, spec.case, spec.number, spec.plan
    assert plan is not None
    workspace = build_workspace(
        case_workspace_root=settings.case_workspace_root,
        case=case,
        target=settings.target,
        source_workspace=settings.source_workspace,
        attempt=number,
        entry_skill_text=settings.entry_skill_text,
    )
    install_skills(settings, workspace.path)
    install_distractors(settings, workspace.path, plan)
    workspace.skill_links = installed_links(settings, workspace.path)
    make_tree_private(workspace.path)
    baseline = fingerprint(workspace.path)
    prompt = agent_prompt(case.case.input.user_prompt)
    agent_dir = attempt_folder(settings.agent_root, case.case_id, number)
    secrets = attempt_secrets(settings, workspace)
    # The workspace's skills as launched: what the agent then does to their folders changes
    # neither what it discovered nor whether the attempt counts.
    launched = launched_skills(adapter_for_runner(settings.runner.name), workspace.path)
    sources = workspace_skills(settings, workspace.path, plan)
    stop_when = (
        adapter_for_runner(settings.runner.name).decision_watch(agent_dir, sources)
        if plan.trigger_only
        else None
    )
    result, trace = run_agent(
        settings,
        case,
        number,
        spec.retry_of,
        workspace,
        agent_dir,
        prompt,
        secrets,
        spec.timeout_s,
        stop_when,
    )
    artifacts = settings.run_dir.attempt_artifacts(case.case_id, number)
    save_snapshot(workspace.path, baseline, artifacts / "workspace", settings.source_workspace)
    observation = _observe(settings, spec, result, trace, launched, sources, agent_dir)
    save_attempt(settings.run_dir, result, staged=True)
    # Through its model: what is written is what `schemas/trigger-attempt.schema.json` says.
    write_json(artifacts / TRIGGER_FILE, TriggerAttemptFile.model_validate(observation), sync=False)
    return result


# How the invalid reason of an attempt that left its workspace starts (`trigger.json`).
ISOLATION_VIOLATION = "isolation violation"


def installed_names(adapter: AgentAdapter, workspace: Path, plan: TriggerPlan) -> list[str]:
    """The names the agent gives the skills the attempt installed (target, companions and
    distractors)."""
    installed = (plan.entry_skill, *plan.companions, *plan.distractors)
    folders = [workspace / _skill_folder(p) for p in installed]
    return [adapter.skill_name(f.name, declared_skill_name(f)) for f in folders]


def workspace_skills(
    settings: AttemptSettings, workspace: Path, plan: TriggerPlan
) -> list[SkillSource]:
    """The skills the agent will discover in `workspace`, as its trigger signal reads them
    (before it runs: its homes hold nothing yet)."""
    nowhere = workspace / ".agentic-eval-none"
    adapter = adapter_for_runner(settings.runner.name)
    registry = check_registry(
        adapter,
        workspace=workspace,
        agent_home=nowhere,
        home=nowhere,
        installed=installed_names(adapter, workspace, plan),
    )
    return installed_sources(registry, workspace)


def _observe(
    settings: AttemptSettings,
    spec: TriggerSpec,
    result: AttemptResult,
    trace: Any,
    launched: list[DiscoveredSkill],
    sources: list[SkillSource],
    agent_dir: Path,
) -> dict[str, Any]:
    """Which skill fired in the attempt, on a registry proven clean; the attempt's status from
    it. Returns the attempt's `trigger.json`. `launched` and `sources`: the workspace's skills
    as launched; `agent_dir`: the attempt's own directory, which the eval made empty."""
    plan = spec.plan
    handle, workspace = result.handle, result.workspace
    assert plan is not None and handle is not None and workspace is not None
    expect = plan.prompts[spec.case.case_id].expect_trigger
    adapter = adapter_for_runner(settings.runner.name)
    installed = installed_names(adapter, workspace.path, plan)
    started = handle.started_at
    fresh = os.path.realpath(agent_dir)

    def made_in_run(folder: Path) -> bool:
        # In a home the eval made empty for the attempt, made after the agent started.
        real = os.path.realpath(folder)
        if not (real == fresh or real.startswith(fresh + "/")):
            return False
        try:
            return (folder / "SKILL.md").stat().st_ctime >= started
        except OSError:
            return False

    registry = check_registry(
        adapter,
        workspace=workspace.path,
        agent_home=handle.agent_home,
        home=handle.home or handle.agent_home,
        installed=installed,
        reported=handle.reported_skills,
        launched=launched,
        made_in_run=made_in_run,
    )
    observation: dict[str, Any] = {
        "prompt_id": spec.case.case_id,
        "expect_trigger": expect,
        "skill": plan.skill,
        "installed": sorted(installed),
        "registry": {
            "skills": [
                {"name": s.name, "scope": s.scope, "folder": _shown(s.folder, workspace.path)}
                for s in registry.skills
            ],
            "reported": registry.reported,
            "problems": registry.problems,
        },
        "fired": None,
        "triggers": [],
        "tool_calls": None,
        "timed_out": handle.timed_out,
        "invalid": None,
        "trigger_only": plan.trigger_only,
        "stopped_at_decision": handle.stopped_early,
        "duration_s": round(handle.duration_s, 3),
    }
    session, why = _locate(settings, handle)
    if session is None and session_store_changed(settings, result, trace, why):
        # The agent's doing (red team 10), counted as the outcome not expected, as a violation is.
        observation["invalid"] = result.reason
        return observation
    if session is None:
        _block(
            result, "insufficient-evidence", f"{handle.fault + '; ' if handle.fault else ''}{why}"
        )
        observation["invalid"] = result.reason
        return observation
    home = str(handle.home) if handle.home else None
    adapter = get_adapter(handle.adapter)
    store = adapter.session_store(handle.agent_home)
    if not read_session(
        result, session, adapter, store, home, traced=handle.trace_path is not None
    ):
        observation["invalid"] = result.reason
        return observation
    assert result.evidence is not None and result.isolation is not None
    if handle.trace_path is not None:
        # The case attempt's own join: the same home, agent folders and hidden places.
        result.isolation, result.trace = with_trace(
            settings, handle, result.isolation, result.evidence, workspace.path, trace
        )
    calls = sum(1 for r in result.evidence.iter_records() if r.get("kind") == "tool_call")
    observation["tool_calls"] = calls
    invalid = registry.invalid_reason
    left = invalid is None and result.isolation.verdict == "violation"
    if left:
        invalid = f"{ISOLATION_VIOLATION}: {result.isolation.reason}"
    if invalid is not None:
        _block(
            result, "insufficient-evidence", invalid, valid=False, by="agent" if left else "eval"
        )
        observation["invalid"] = invalid
        return observation
    prefix = settings.run_dir.attempt_ref_prefix(spec.case.case_id, spec.number)
    try:
        triggers = spawned_triggers(
            adapter,
            adapter.skill_triggers(result.evidence, session.path, sources),
            [child.path for child in result.descendants],
            sources,
        )
    except TriggerUndecidable as exc:
        _block(result, "insufficient-evidence", f"the session cannot tell a trigger: {exc}")
        observation["invalid"] = result.reason
        return observation
    observation["triggers"] = [{**t.to_json(), "ref": t.ref(prefix)} for t in triggers]
    fired = any(t.skill == plan.skill for t in triggers)
    observation["fired"] = fired
    if not fired:
        observation["refused"] = refused_load(result.evidence, plan.skill)
    if not triggers and handle.fault:
        # No skill fired, and the agent did not finish: it may have been about to load one.
        why = "no decision: " + handle.fault
        _block(result, "insufficient-evidence", why)
        observation["invalid"] = why
        return observation
    result.status = "pass" if fired == expect else "fail"
    result.blocked_reason = None
    result.reason = (
        f"{plan.skill} {'fired' if fired else 'did not fire'}"
        f" ({'expected' if fired == expect else 'expected the opposite'})"
        + (
            f"; other skills fired: {', '.join(t.skill for t in triggers if t.skill != plan.skill)}"
            if any(t.skill != plan.skill for t in triggers)
            else ""
        )
    )
    return observation


def _shown(folder: Path, workspace: Path) -> str:
    return (
        folder.relative_to(workspace).as_posix()
        if folder.is_relative_to(workspace)
        else str(folder)
    )


def perform_trigger_attempt(spec: AttemptSpec) -> AttemptOutcome:
    """What an executor runs for a trigger attempt (`perform_attempt`'s counterpart)."""
    assert isinstance(spec, TriggerSpec)
    settings = spec.settings
    try:
        result = run_trigger_attempt(spec)
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


def metrics_json(metrics: TriggerMetrics, texts: dict[str, str]) -> dict[str, Any]:
    def score(value: Any) -> dict[str, Any]:
        counts = value.counts
        return {
            "counts": {"tp": counts.tp, "fp": counts.fp, "fn": counts.fn, "tn": counts.tn},
            "precision": value.precision,
            "recall": value.recall,
            "f1": value.f1,
            "intervals": {k: [i.low, i.high] for k, i in value.intervals.items()},
        }

    return {
        "over_prompts": score(metrics.over_prompts),
        "over_attempts": score(metrics.over_attempts),
        "suspect": {"kind": metrics.suspect.kind, "causes": metrics.suspect.causes}
        if metrics.suspect
        else None,
        "invalid_attempts": metrics.invalid_attempts,
        "undecided_prompts": metrics.undecided_prompts,
        "prompts": [
            {
                "id": rate.prompt,
                "prompt": texts.get(rate.prompt, ""),
                "expect": rate.expect,
                "attempts": rate.attempts,
                "fired": rate.fired,
                "rate": rate.rate,
                "triggered": rate.triggered,
                "misfires": rate.misfires,
                "invalid": rate.invalid,
                "others": rate.others,
            }
            for rate in metrics.prompts
        ],
    }


def counted_observations(run_dir: RunDir, case_id: str) -> list[dict[str, Any]]:
    """The `trigger.json` of each counted attempt of `case_id` (the final attempt of each try,
    never an interrupted one); an attempt blocked before its agent ran has none and is given
    as `{"invalid": its reason}`."""
    records = [r for r in run_dir.attempt_records(case_id) if not r.interrupted]
    finals: dict[int, AttemptRecord] = {}
    for record in sorted(records, key=lambda r: r.attempt):
        finals[record.retry_of or record.attempt] = record
    observations = []
    for record in (finals[k] for k in sorted(finals)):
        path = run_dir.attempt_artifacts(case_id, record.attempt) / TRIGGER_FILE
        if path.is_file():
            observations.append(json.loads(path.read_text(encoding="utf-8")))
        else:
            observations.append({"invalid": record.reason or "blocked before the agent ran"})
    return observations


def observed_outcomes(
    run_dir: RunDir, expects: dict[str, bool], skill: str
) -> list[TriggerOutcome]:
    """One outcome per counted attempt of each prompt (`expects`: prompt id -> expected)."""
    outcomes: list[TriggerOutcome] = []
    for case_id, expect in expects.items():
        for seen in counted_observations(run_dir, case_id):
            triggers = seen.get("triggers") or []
            fired = next((t for t in triggers if t["skill"] == skill), None)
            reported = (seen.get("registry") or {}).get("reported")
            invalid = seen.get("invalid")
            # An isolation violation is the agent's doing (as in `run`, where it counts as not
            # passed): counted as the outcome not expected, never left out (red team 8).
            wrong = isinstance(invalid, str) and invalid.startswith(ISOLATION_VIOLATION)
            outcomes.append(
                TriggerOutcome(
                    prompt=case_id,
                    expect=expect,
                    fired=(not expect) if wrong else bool(seen.get("fired")),
                    others=tuple(t["skill"] for t in triggers if t["skill"] != skill),
                    invalid=None if wrong else invalid,
                    timed_out=bool(seen.get("timed_out")),
                    tool_calls=seen.get("tool_calls"),
                    listed=None if reported is None else skill in reported,
                    first_call=None if fired is None else bool(fired.get("first")),
                    refused=seen.get("refused"),
                )
            )
    return outcomes


def agent_seconds(run_dir: RunDir, case_ids: list[str]) -> dict[str, Any]:
    """Agent time of the counted attempts: per prompt (mean) and in all, and how many attempts
    were stopped at their decision (what trigger-only mode saves)."""
    per_prompt: dict[str, float] = {}
    total, stopped, attempts = 0.0, 0, 0
    for case_id in case_ids:
        times = [
            float(seen["duration_s"])
            for seen in counted_observations(run_dir, case_id)
            if seen.get("duration_s") is not None
        ]
        stopped += sum(
            bool(seen.get("stopped_at_decision")) for seen in counted_observations(run_dir, case_id)
        )
        attempts += len(times)
        total += sum(times)
        if times:
            per_prompt[case_id] = round(sum(times) / len(times), 3)
    return {
        "total_s": round(total, 3),
        "attempts": attempts,
        "stopped_at_decision": stopped,
        "mean_per_prompt_s": per_prompt,
    }


class TriggerRun(Run):
    """A run of trigger cases (see the module's docstring)."""

    perform = staticmethod(perform_trigger_attempt)

    def __init__(self, options: RunOptions, trigger: TriggerOptions, progress: Any = None) -> None:
        super().__init__(options, progress)
        self.trigger = trigger
        self.trigger_plan: TriggerPlan | None = None
        self.trigger_set: TriggerSet | None = None
        self.unused_behaviours: str | None = None  # the note on behaviours no prompt uses
        self.kept_plan: KeptTriggerPlan | None = None  # the resumed run's `trigger-plan.json`
        self.entry_declared: str | None = None  # the skill under test's front matter `name`

    def _plan(self) -> tuple[EvalRepo, Selection, RunDir, Manifest | None]:
        options = self.options
        if options.resume and (
            self.trigger.trigger_file is not None
            or self.trigger.other_targets
            or not self.trigger.trigger_only
        ):
            raise InputError(
                "takes the plan of the trigger run it resumes;"
                " drop --triggers/--other-targets/--full-attempts",
                field="--resume",
            )
        repo, selection, run_dir, previous = super()._plan()
        target = selection.target
        if self.kept_plan is not None:  # a resume: the prompts and skills the run started with
            triggers = _kept_trigger_set(self.kept_plan)
            self.trigger.other_targets = self.kept_plan.other_targets
            self.trigger.trigger_only = self.kept_plan.trigger_only
        else:
            triggers = self._trigger_set(target)
        distractors, sources = self._distractors(repo, target)
        if self.kept_plan is not None and distractors != self.kept_plan.distractors:
            raise InputError(
                f"run {run_dir.run_id} was measured beside the distractor skills"
                f" {self.kept_plan.distractors}, the target and --distractor now name"
                f" {distractors}; resume keeps them: restore them (give the same --distractor"
                " folders) or start a new run",
                field="--resume",
            )
        entry = target.target.entry_skill
        mount = target.skill_mount
        folder = mount.origin if mount else repo.source_workspace / _skill_folder(entry)
        if options.skill_text is not None:
            declared = declared_name_in(options.skill_text)
            _check_candidate(options.skill_text, declared_skill_name(folder) or folder.name)
        else:
            declared = declared_skill_name(folder)
            # A skill no agent lists can only miss: every should-fire prompt would be a miss the
            # description is not to blame for, so the run would measure nothing.
            unlisted = unlisted_skill(folder / "SKILL.md")
            if unlisted is not None:
                raise unlisted
        # Named as the agent of the run lists it (`_open`, once the agent is settled): the name
        # the trigger signal reports, whatever the trigger file calls the skill.
        self.entry_declared = declared
        self.trigger_set = triggers
        self.trigger_plan = TriggerPlan(
            skill=triggers.skill or Path(_skill_folder(entry)).name,
            entry_skill=entry,
            distractors=tuple(distractors),
            distractor_sources=tuple(sources),
            companions=tuple(target.target.companion_folders()),
            prompts={c.id: c for c in triggers.cases},
            trigger_only=self.trigger.trigger_only,
        )
        if options.attempts is None and previous is None:  # a resume keeps the run's K
            options.attempts = triggers.attempts or DEFAULT_TRIGGER_ATTEMPTS
        cases = trigger_loaded_cases(target, triggers)
        trigger_selection = Selection(
            target=target, suite_ids=["triggers"], cases=cases, explicit_case_ids=[]
        )
        return repo, trigger_selection, run_dir, previous

    def _select(self, repo: EvalRepo) -> Selection:
        # Only the target: its prompts are the cases (`_plan`), and a skill measured only by its
        # trigger set has no eval case at all.
        target = resolve_target(repo, self.options.target)
        return Selection(target=target, suite_ids=[], cases=[], explicit_case_ids=[])

    def _resumed_selection(self, repo: EvalRepo, run_dir: RunDir, previous: Manifest) -> Selection:
        """The prompts the resumed trigger run planned, from its kept `trigger-plan.json`."""
        path = run_dir.path / TRIGGER_PLAN_FILE
        try:
            self.kept_plan = KeptTriggerPlan.model_validate_json(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise InputError(
                f"run {run_dir.run_id} kept no {TRIGGER_PLAN_FILE}: it is not a trigger run, or"
                " one started before trigger runs could resume; start it again",
                field="--resume",
            ) from None
        except ValidationError as exc:
            raise InputError(f"unreadable: {exc.errors()[0]['msg']}", path=path) from None
        target = repo.targets.get(previous.target_id)
        if target is None:
            raise InputError(
                f"run {run_dir.run_id} measured target {previous.target_id!r}, which this repo"
                " no longer has",
                field="--resume",
            )
        cases = trigger_loaded_cases(target, _kept_trigger_set(self.kept_plan))
        return Selection(target=target, suite_ids=["triggers"], cases=cases, explicit_case_ids=[])

    def _open(
        self,
        plan: RunPlan,
        ready: Any,
        repo: EvalRepo,
        selection: Selection,
        run_dir: RunDir,
        previous: Manifest | None,
        place: ScratchPlace,
    ) -> Any:
        opened = super()._open(plan, ready, repo, selection, run_dir, previous, place)
        if self.trigger_plan is not None:
            entry_folder = Path(_skill_folder(self.trigger_plan.entry_skill)).name
            self.trigger_plan = replace(
                self.trigger_plan,
                skill=adapter_for_runner(plan.agent).skill_name(entry_folder, self.entry_declared),
            )
        triggers, trigger_plan = self.trigger_set, self.trigger_plan
        if previous is None and triggers is not None and trigger_plan is not None:
            # What `--resume` needs to run the same measurement (the file may change meanwhile).
            kept = KeptTriggerPlan(
                trigger_file=str(triggers.path),
                format=triggers.format,
                skill=triggers.skill,
                attempts=triggers.attempts,
                cases=list(triggers.cases),
                other_targets=self.trigger.other_targets,
                trigger_only=trigger_plan.trigger_only,
                distractors=list(trigger_plan.distractors),
            )
            write_json(run_dir.path / TRIGGER_PLAN_FILE, kept)
        return opened

    def _trigger_set(self, target: LoadedTarget) -> TriggerSet:
        if self.trigger.trigger_file is not None:
            return load_trigger_set(self.trigger.trigger_file)
        if target.triggers is None and target.skill_mount is not None:
            raise InputError(
                f"no trigger set beside the evals file ({' or '.join(TRIGGER_FILES)});"
                " give one with --triggers",
                path=target.path,
            )
        if target.triggers is None:
            raise InputError(
                f"target {target.target_id} has no trigger_suite; give a trigger file by path",
                path=target.path,
                field="trigger_suite",
            )
        return target.triggers

    def _distractors(self, repo: EvalRepo, target: LoadedTarget) -> tuple[list[str], list[Path]]:
        """The target's distractor skills, then (with `other_targets`) each other target's entry
        skill, by workspace path, each once; a second skill at the same path is refused. Then
        the `--distractor` folders, beside the entry skill's folder (a name taken is refused)."""
        paths: list[str] = []
        sources: list[Path] = []
        taken = {_skill_folder(target.target.entry_skill)}
        wanted = [(target, d) for d in target.target.distractor_skills]
        if self.trigger.other_targets:
            wanted += [
                (other, other.target.entry_skill)
                for other in repo.targets.values()
                if other.target_id != target.target_id
            ]
        for owner, relative in wanted:
            folder = _skill_folder(relative)
            if folder in taken:
                continue
            source = owner.source_path(repo.source_workspace, folder)
            if not (source / "SKILL.md").is_file():
                raise InputError(
                    f"distractor skill {relative}: no SKILL.md at {source}",
                    path=owner.path,
                    field="distractor_skills",
                )
            taken.add(folder)
            paths.append(relative)
            sources.append(source)
        entry = _skill_folder(target.target.entry_skill)
        # The names agents list the installed skills (the entry, its companions, the
        # distractors) by: their folders' and their front matters' (`name:`), either of which
        # a `--distractor` of the same name would shadow.
        installed = [entry, *target.target.companion_folders()]
        names = {
            name
            for source in (
                *(target.source_path(repo.source_workspace, f) for f in installed),
                *sources,
            )
            for name in (source.name, declared_skill_name(source))
            if name
        }
        for given in self.trigger.distractor_folders:
            folder = str(PurePosixPath(entry).parent / given.name)
            if not (given / "SKILL.md").is_file():
                raise InputError(f"--distractor {given}: no SKILL.md in that folder")
            clash = {given.name, declared_skill_name(given)} & names
            if folder in taken or clash:
                raise InputError(
                    f"--distractor {given}: a skill named {sorted(n for n in clash if n)[0]!r}"
                    " is installed already (one copy would shadow the other)"
                    if clash
                    else f"--distractor {given}: {folder} is installed already"
                )
            taken.add(folder)
            names |= {n for n in (given.name, declared_skill_name(given)) if n}
            paths.append(folder)
            sources.append(given)
        return paths, sources

    narrowing_hint = "give --triggers a file holding only the scripted prompts"

    def _behaviour_prompts(self, selection: Selection) -> dict[str, str]:
        return {c.case_id: c.case.input.user_prompt for c in selection.cases}

    def _behaviour_problems(
        self, library: BehaviorLibrary, selection: Selection
    ) -> list[InputError]:
        """A behaviour folder written for a larger trigger set serves a smaller one: behaviours
        for prompts this set does not hold answer nothing and are only reported (a warning and
        a manifest note). Two behaviours answering one prompt still stop the run."""
        prompts = self._behaviour_prompts(selection)
        unused = unmatched_behaviors(library, prompts)
        if unused:
            names = ", ".join(unused)
            self.unused_behaviours = (
                f"scripted behaviour(s) matching no prompt of the trigger set, unused: {names}"
            )
            print(f"agentic-eval: warning: {self.unused_behaviours}", file=sys.stderr)
        return overlapping_behaviors(library, prompts)

    def _spec(self, slot: Any) -> AttemptSpec:
        spec = super()._spec(slot)
        return TriggerSpec(
            spec.settings, spec.case, spec.number, spec.retry_of, spec.timeout_s, self.trigger_plan
        )

    def _case_result(self, case: LoadedCase, finals: list[AttemptResult], result: Any) -> Any:
        """The case passes when most of its valid attempts fired as expected (the trigger
        metrics' majority rule); fails when most did not; blocked without a valid attempt."""
        valid = [a for a in final_slots(finals) if a.status in ("pass", "fail")]
        if not valid:
            return result
        right = sum(a.status == "pass" for a in valid)
        status = "pass" if 2 * right > len(valid) else "fail"
        expects = (
            {c.id: c.expect_trigger for c in self.trigger_set.cases} if self.trigger_set else {}
        )
        note = prompt_note(expects.get(case.case_id), right, len(valid))
        return result.model_copy(
            update={"status": status, "blocked_reason": None, "notes": [note, *result.notes]}
        )

    def _close(self, run_dir: RunDir, manifest: Manifest, state: Any) -> None:
        plan, triggers = self.trigger_plan, self.trigger_set
        if plan is not None and triggers is not None:
            expects = {c.id: c.expect_trigger for c in triggers.cases}
            outcomes = observed_outcomes(run_dir, expects, plan.skill)
            texts = {c.id: c.prompt for c in triggers.cases}
            metrics = trigger_metrics(outcomes, skill=plan.skill, prompt_texts=texts)
            summary = TriggerRunFile.model_validate(
                {
                    "skill": plan.skill,
                    "trigger_file": str(triggers.path),
                    "format": triggers.format,
                    "attempts": manifest.attempts,
                    "agent": manifest.agent,
                    "distractors": [Path(_skill_folder(d)).name for d in plan.distractors],
                    "trigger_only": plan.trigger_only,
                    **metrics_json(metrics, texts),
                    "agent_time": agent_seconds(run_dir, list(expects)),
                }
            )
            write_json(run_dir.path / TRIGGERS_FILE, summary)
            note = (
                f"trigger run: {plan.skill} among {len(plan.distractors)} distractor skill(s);"
                f" metrics in {TRIGGERS_FILE}"
            )
            if note not in manifest.notes:  # a resumed run has it already
                manifest.notes.append(note)
            if self.unused_behaviours and self.unused_behaviours not in manifest.notes:
                manifest.notes.append(self.unused_behaviours)
        super()._close(run_dir, manifest, state)


def _kept_trigger_set(kept: KeptTriggerPlan) -> TriggerSet:
    return TriggerSet(
        path=Path(kept.trigger_file),
        format=cast(TriggerFormat, kept.format),
        cases=list(kept.cases),
        skill=kept.skill,
        attempts=kept.attempts,
    )


def _check_candidate(text: str, skill: str) -> None:
    """A candidate SKILL.md (`--skill`) must present itself as the skill under test (`skill`: its
    current front matter `name`, else its folder's): Codex CLI and Gemini CLI list a skill by that
    `name`, and every agent chooses it by its `description`."""
    meta = front_matter_fields(text)
    for key in ("name", "description"):
        if not meta.get(key):
            raise InputError(
                f"the candidate SKILL.md has no `{key}` in its front matter", field="--skill"
            )
    if meta["name"] != skill:
        raise InputError(
            f"the candidate SKILL.md is named {meta['name']!r}, the skill under test {skill!r}:"
            " agents would list it as another skill",
            field="--skill",
        )


def execute_triggers(
    options: RunOptions, trigger: TriggerOptions, progress: Any = None
) -> RunOutcome:
    return TriggerRun(options, trigger, progress).execute()
