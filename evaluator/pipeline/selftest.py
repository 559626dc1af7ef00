"""`agentic-eval selftest`: do a case's assertions tell its golden behaviours apart?

Each golden behaviour is played by the scripted model to the real agent in a normal run. The
goldens are grouped into behaviour sets (at most one golden per case, and no behaviour in a set
answering another case's prompt), one run per set. Then two questions per case: did every golden
get the status it expects, and did some golden fail (or, for a forbidden entry, show) every
assertion entry? An entry that no golden fails tests nothing.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, Field, computed_field

from evaluator.adapters import adapter_names
from evaluator.artifacts.attribution import score_case
from evaluator.contract.models import GoldenBehavior
from evaluator.defaults import DEFAULT_SCRATCH
from evaluator.errors import EnvironmentProblem, InputError
from evaluator.modelserver.behaviors import Behavior, BehaviorLibrary, load_behavior_file
from evaluator.plan import open_repo, select_cases
from evaluator.prompting import agent_prompt
from evaluator.repo import LoadedCase, LoadedTarget
from evaluator.repo.loader import safe_relative
from evaluator.vocabulary import BlockedReason, ScratchMemory, Status

if TYPE_CHECKING:  # the runner is imported when a self-test runs (see run_selftest)
    from evaluator.artifacts.models import CaseResult
    from evaluator.artifacts.rundir import RunDir
    from evaluator.pipeline.progress import Progress
    from evaluator.pipeline.run import RunOutcome

BEHAVIOR_SETS_DIR = "behaviors"


# --------------------------------------------------------------------------- golden files


@dataclass(frozen=True)
class Golden:
    """One golden of one case, with its behaviour file loaded."""

    case: LoadedCase
    index: int
    spec: GoldenBehavior
    path: Path
    behavior: Behavior

    @property
    def case_id(self) -> str:
        return self.case.case_id


def _golden_path(target: LoadedTarget, case: LoadedCase, index: int) -> tuple[Path | None, str]:
    """The behaviour file of `golden[index]`, or None and why it is unusable."""
    relative = case.case.golden[index].behavior
    why = safe_relative(relative)
    if why:
        return None, f"{relative!r} {why}"
    path = target.directory / relative
    try:
        path.resolve().relative_to(target.directory.resolve())
    except ValueError:
        return None, f"{relative!r} leaves the target directory"
    if not path.is_file():
        return None, f"behaviour file not found: {path}"
    return path, ""


def load_goldens(target: LoadedTarget, case: LoadedCase) -> tuple[list[Golden], list[InputError]]:
    """The case's goldens, and one located error per golden that is missing, invalid or unmatched.

    A golden must also answer its own case's prompt, or its run would only show the scripted
    model refusing to play it.
    """
    goldens: list[Golden] = []
    problems: list[InputError] = []
    prompt = agent_prompt(case.case.input.user_prompt)
    seen: set[Path] = set()
    for index, spec in enumerate(case.case.golden):
        key = ("golden", index, "behavior")
        path, why = _golden_path(target, case, index)
        if path is None:
            problems.append(case.doc.error(key, why))
            continue
        if path.resolve() in seen:
            problems.append(case.doc.error(key, f"{spec.behavior!r} is listed twice"))
            continue
        seen.add(path.resolve())
        try:
            behavior = load_behavior_file(path, adapter_names())
        except InputError as exc:
            problems.append(exc)
            continue
        if not any(behavior.match.accepts(prompt, is_child) for is_child in (False, True)):
            problems.append(
                case.doc.error(
                    key, f"behaviour {behavior.name!r} does not match this case's prompt"
                )
            )
            continue
        goldens.append(Golden(case, index, spec, path, behavior))
    return goldens, problems


def golden_problems(target: LoadedTarget) -> list[InputError]:
    """Every unusable golden of the target (for `validate`)."""
    return [problem for case in target.all_cases() for problem in load_goldens(target, case)[1]]


def plan_behavior_sets(goldens: list[Golden]) -> list[list[Golden]]:
    """Groups goldens into runs: one golden per case, each case's prompt matched by its own only.

    First fit, in case order, so the first golden of every case lands in the first set.
    """
    sets: list[list[Golden]] = []
    for golden in goldens:
        for members in sets:
            if _fits(members, golden):
                members.append(golden)
                break
        else:
            sets.append([golden])
    return sets


def _fits(members: list[Golden], golden: Golden) -> bool:
    if any(m.case_id == golden.case_id or m.behavior.name == golden.behavior.name for m in members):
        return False
    together = [*members, golden]
    library = BehaviorLibrary([m.behavior for m in together])
    for member in together:
        prompt = agent_prompt(member.case.case.input.user_prompt)
        # The prompt reaches a child thread too when the runner launches a sub-agent.
        for is_child in (False, True):
            chosen = library.select(prompt, is_child).behavior
            if member.behavior.match.accepts(prompt, is_child) and chosen is not member.behavior:
                return False
    return True


# --------------------------------------------------------------------------- the report


class GoldenOutcome(BaseModel):
    case_id: str
    behavior: str = Field(description="The behaviour file, relative to the target directory.")
    expect: Status
    status: Status | None = Field(description="None when the run stopped before the case.")
    blocked_reason: BlockedReason | None = None
    run_id: str
    failed_steps: list[str] = Field(
        default_factory=list,
        description="Tool calls of the judged attempt that did not take effect: a scripted step"
        " that failed (a command that exited non-zero, a patch that did not apply).",
    )
    outage: bool = Field(
        default=False,
        description="An outage of the agent's model or tooling blocked the case: no verdict, so"
        " it says nothing of the assertions (selftest exits 3, as `run`).",
    )

    @computed_field  # type: ignore[prop-decorator]
    @property
    def matches(self) -> bool:
        return self.status == self.expect

    @computed_field  # type: ignore[prop-decorator]
    @property
    def misscripted(self) -> bool:
        """A golden meant to pass that failed while one of its own steps failed: the behaviour
        did not do what it scripts, which says nothing about the assertions."""
        return not self.matches and self.expect == "pass" and bool(self.failed_steps)


class EntryCoverage(BaseModel):
    """One assertion entry's status under each golden of its case."""

    case_id: str
    polarity: Literal["required", "forbidden"]
    index: int = Field(description="Position within the case's required or forbidden list.")
    description: str
    statuses: dict[str, Status | None] = Field(description="behaviour -> the entry's status")
    not_started: bool = Field(
        default=False,
        description="Every golden of its case was blocked before its agent started (a setup or"
        " need this machine lacks): the entry could not be checked here, which is not vacuous.",
    )

    @computed_field  # type: ignore[prop-decorator]
    @property
    def vacuous(self) -> bool:
        # For a forbidden entry `fail` means observed: either way some golden was caught by it.
        return not self.not_started and not any(s == "fail" for s in self.statuses.values())


class SelftestReport(BaseModel):
    selftest_id: str
    directory: str
    target_id: str
    runs: dict[str, str] = Field(default_factory=dict, description="run id -> run directory")
    goldens: list[GoldenOutcome] = Field(default_factory=list)
    entries: list[EntryCoverage] = Field(default_factory=list)
    cases_without_golden: list[str] = Field(default_factory=list)
    interrupted: bool = False

    def mismatches(self) -> list[GoldenOutcome]:
        return [g for g in self.goldens if not g.matches]

    def vacuous(self) -> list[EntryCoverage]:
        return [e for e in self.entries if e.vacuous]

    def misscripted(self) -> list[GoldenOutcome]:
        return [g for g in self.goldens if g.misscripted]

    def outages(self) -> list[GoldenOutcome]:
        return [g for g in self.goldens if g.outage]

    def non_separating_cases(self) -> list[str]:
        """Cases where some golden that ran as scripted did not get its expected status."""
        return list(dict.fromkeys(g.case_id for g in self.mismatches() if not g.misscripted))

    @property
    def ok(self) -> bool:
        return not self.interrupted and not self.mismatches() and not self.vacuous()

    def as_json(self) -> dict[str, object]:
        payload = self.model_dump(mode="json")
        payload["ok"] = self.ok
        payload["mismatched_goldens"] = len(self.mismatches())
        payload["vacuous_entries"] = len(self.vacuous())
        payload["non_separating_cases"] = self.non_separating_cases()
        payload["misscripted_goldens"] = len(self.misscripted())
        return payload


# --------------------------------------------------------------------------- running


@dataclass
class SelftestOptions:
    repo: Path
    source_workspace: Path | None = None
    target: str | None = None
    suites: tuple[str, ...] = ()
    cases: tuple[str, ...] = ()
    workers: int | None = None
    timeout_s: float | None = None
    runs_dir: Path = Path("runs")
    scratch_root: Path = DEFAULT_SCRATCH
    scratch_memory: ScratchMemory = "auto"
    # Per adapter, the agent options (`--agent-option` under "", short flags under theirs).
    agent_options: dict[str, dict[str, object]] = field(default_factory=dict)
    agent: str | None = None  # the runner the goldens are played to (default: the default agent)


def run_selftest(
    options: SelftestOptions, new_progress: Callable[[], Progress] | None = None
) -> SelftestReport:
    """Runs every behaviour set; `new_progress` gives each run its own progress display."""
    # Imported here: `validate` checks goldens (golden_problems) and needs none of the runner.
    from evaluator.artifacts.rundir import SELFTEST_FILE, write_atomic
    from evaluator.pipeline.run import new_run_id

    repo = open_repo(
        options.repo, options.source_workspace, target=options.target, default_target_only=True
    )
    selection = select_cases(repo, options.target, options.suites, options.cases)
    target = selection.target
    goldens: list[Golden] = []
    problems: list[InputError] = []
    for case in selection.cases:
        found, wrong = load_goldens(target, case)
        goldens += found
        problems += wrong
    if problems:
        raise problems[0]
    if not goldens:
        raise InputError(
            "no selected case lists golden behaviours (`golden:` in the case file)", field="--case"
        )
    selftest_id = f"selftest-{new_run_id()}"
    directory = options.runs_dir / selftest_id
    report = SelftestReport(
        selftest_id=selftest_id,
        directory=str(directory),
        target_id=target.target_id,
        cases_without_golden=[c.case_id for c in selection.cases if not c.case.golden],
    )
    results: dict[tuple[str, int], CaseResult] = {}
    try:
        for number, members in enumerate(plan_behavior_sets(goldens), start=1):
            outcome = _run_set(options, target, f"set-{number}", members, directory, new_progress)
            report.runs[outcome.run_dir.run_id] = str(outcome.run_dir.path)
            by_case = {r.case_id: r for r in outcome.results}
            for member in members:
                result = by_case.get(member.case_id)
                if result is not None:
                    results[(member.case_id, member.index)] = result
                report.goldens.append(
                    GoldenOutcome(
                        case_id=member.case_id,
                        behavior=member.spec.behavior,
                        expect=member.spec.expect,
                        status=result.status if result else None,
                        blocked_reason=result.blocked_reason if result else None,
                        run_id=outcome.run_dir.run_id,
                        failed_steps=_failed_steps(outcome.run_dir, result) if result else [],
                        outage=result is not None
                        and result.status == "blocked"
                        and score_case(result).outage,
                    )
                )
            if outcome.interrupted:
                report.interrupted = True
                break
    except BaseException:
        # Refused before any run started (no agent, bad scratch root): leave no stray directory.
        if directory.is_dir() and all(p.name == BEHAVIOR_SETS_DIR for p in directory.iterdir()):
            shutil.rmtree(directory, ignore_errors=True)
        raise
    # Report in file order: the cases as selected, each case's goldens as listed.
    order = {(g.case_id, g.spec.behavior): n for n, g in enumerate(goldens)}
    report.goldens.sort(key=lambda g: order[(g.case_id, g.behavior)])
    if not report.interrupted:
        report.entries = _coverage(selection.cases, goldens, results)
    text = json.dumps(report.as_json(), indent=2, ensure_ascii=False)
    write_atomic(directory / SELFTEST_FILE, text + "\n")
    return report


def _failed_steps(run_dir: RunDir, result: CaseResult) -> list[str]:
    """The judged attempt's tool calls that did not take effect, from its saved session."""
    from evaluator.artifacts.record_text import failed_tool_calls
    from evaluator.artifacts.report_findings import read_json_object

    session = read_json_object(run_dir.case_artifacts(result.case_id) / "accepted-session.json")
    records = session.get("records") if session else None
    if not isinstance(records, list):
        return []
    workspace = result.workspace_root or ""
    return failed_tool_calls([r for r in records if isinstance(r, dict)], workspace)


def _run_set(
    options: SelftestOptions,
    target: LoadedTarget,
    run_id: str,
    members: list[Golden],
    directory: Path,
    new_progress: Callable[[], Progress] | None,
) -> RunOutcome:
    """A normal run of the set's cases with the set's behaviours, inside the selftest directory."""
    from evaluator.artifacts.models import JudgeSettings
    from evaluator.pipeline.run import Run, RunOptions

    behaviors = _stage(directory / BEHAVIOR_SETS_DIR / run_id, members)
    options_for_run = RunOptions(
        repo=options.repo,
        source_workspace=options.source_workspace,
        target=target.target_id,
        cases=tuple(m.case_id for m in members),
        workers=options.workers,
        timeout_s=options.timeout_s,
        run_id=run_id,
        behaviors=behaviors,
        runs_dir=directory,
        scratch_root=options.scratch_root,
        scratch_memory=options.scratch_memory,
        agent_options=options.agent_options,
        agent=options.agent,
        # A golden's expected status is the rules' verdict: no model judge is ever asked, and
        # `run --rerun-failed` of this run judges the same way, whatever judge the user's
        # variables name.
        judge=JudgeSettings(mode="rules"),
    )
    return Run(options_for_run, new_progress() if new_progress else None).execute()


def _stage(directory: Path, members: list[Golden]) -> Path:
    """Copies a set's behaviour files into one directory: what `run --behaviors` plays."""
    try:
        directory.mkdir(parents=True)
        for number, member in enumerate(members, start=1):
            shutil.copyfile(member.path, directory / f"{number:02d}-{member.case_id}.yaml")
    except OSError as exc:
        raise EnvironmentProblem(
            f"cannot stage behaviours in {directory}: {exc.strerror}"
        ) from None
    return directory


def _coverage(
    cases: list[LoadedCase], goldens: list[Golden], results: dict[tuple[str, int], CaseResult]
) -> list[EntryCoverage]:
    coverage: list[EntryCoverage] = []
    for case in cases:
        mine = [g for g in goldens if g.case_id == case.case_id]
        if not mine:
            continue
        assertions = case.case.assertions
        listed: list[tuple[Literal["required", "forbidden"], int, str]] = [
            ("required", i, e.description) for i, e in enumerate(assertions.required)
        ]
        listed += [("forbidden", i, e.description) for i, e in enumerate(assertions.forbidden)]
        for position, (polarity, index, description) in enumerate(listed):
            statuses: dict[str, Status | None] = {}
            for golden in mine:
                result = results.get((golden.case_id, golden.index))
                # Case results list required entries, then forbidden ones, in file order.
                judged = result.assertions if result else []
                statuses[golden.spec.behavior] = (
                    judged[position].status if position < len(judged) else None
                )
            coverage.append(
                EntryCoverage(
                    case_id=case.case_id,
                    polarity=polarity,
                    index=index,
                    description=description,
                    statuses=statuses,
                    not_started=all(_not_started(results.get((g.case_id, g.index))) for g in mine),
                )
            )
    return coverage


def _not_started(result: CaseResult | None) -> bool:
    """No attempt of the case started its agent: each was blocked by what the machine lacks."""
    return (
        result is not None and bool(result.attempts) and all(a.unmet_needs for a in result.attempts)
    )
