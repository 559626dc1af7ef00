"""`agentic-eval evaluate`: the variants of one evaluation, run as one interleaved set of attempts.

Everything that can be wrong with the input (a revision that does not exist, variants whose case
sets differ, an evaluation naming an unknown target) is found before anything is created. Each
variant is then a normal run (`variants/<label>/run/`, readable by `gate`, `compare`, `report`,
`history`); the runs are opened together, their attempts driven through one executor (A1, B1,
A2, B2, ...: drift in time or in the model hits each variant alike), and closed together. Then
`evaluation.json`, `eval-report.md` and skill-creator's `benchmark.json` are written beside them.
"""

from __future__ import annotations

import os
import shutil
import sys
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path

from evaluator.artifacts.models import VariantRole
from evaluator.artifacts.redact import Redactor
from evaluator.artifacts.rundir import RunDir, write_atomic, write_json
from evaluator.contract.skill_listing import listing_problem
from evaluator.credentials import SecretSet
from evaluator.errors import EnvironmentProblem, InputError
from evaluator.evaluate.build import FinishedVariant, compare, variant_summary
from evaluator.evaluate.inspect import ContaminationInspector
from evaluator.evaluate.model import (
    EVAL_REPORT_MD,
    EVALUATION_JSON,
    SOURCE_MANIFEST,
    VARIANT_RUN,
    VARIANTS_DIR,
    EvaluationResult,
    RubricScores,
)
from evaluator.evaluate.page import EVAL_REPORT_HTML, render_eval_page
from evaluator.evaluate.report import render_eval_report
from evaluator.evaluate.reuse import check_reusable, is_no_skill
from evaluator.evaluate.rubric import RUBRIC_DIR, dimension_head_to_head, score_variant
from evaluator.evaluate.variants import (
    EvaluationPlan,
    Materialized,
    check_revision,
    materialize,
    suite_drift,
)
from evaluator.interop.benchmark import Configuration, write_benchmark
from evaluator.interop.skill_creator import SKILL_CREATOR_DIR
from evaluator.isolation.contamination import listening_ports
from evaluator.judge.scoring import RubricScorer
from evaluator.pipeline.progress import PlainProgress
from evaluator.pipeline.run import Run, RunLane, RunOptions, StopEvent, drive, new_run_id
from evaluator.plan import Selection, open_repo, select_cases
from evaluator.repo import EvalRepo, LoadedTarget
from evaluator.safepath import id_problem
from evaluator.stats.noise import noise_floor
from evaluator.workspace.naming import digest_name, run_scratch
from evaluator.workspace.scratch import PRIVATE_UMASK, check_scratch_root, make_private_dir


@dataclass
class EvaluationOutcome:
    directory: Path
    result: EvaluationResult
    interrupted: bool = False
    run_dirs: list[Path] = field(default_factory=list)


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _selection(options: RunOptions, plan: EvaluationPlan) -> tuple[EvalRepo, Selection]:
    target = options.target or plan.target_id
    # A vendor comparison reads its variants' targets too; otherwise only the one that runs.
    every = any(v.target_id for v in plan.variants)
    repo = open_repo(
        options.repo,
        options.source_workspace,
        target=None if every else target,
        lenient=options.lenient,
        default_target_only=not every and target is None,
    )
    suites = options.suites or plan.suites
    selection = select_cases(repo, target, suites, options.cases)
    return repo, selection


def check_case_sets(
    materialized: list[Materialized], repo: EvalRepo, selection: Selection, options: RunOptions
) -> None:
    """Every variant runs the same cases. A revision that carries the eval repo with it must
    resolve the same case set there, else the comparison would pair different tasks."""
    expected = [c.case_id for c in selection.cases]
    try:
        relative = repo.root.resolve().relative_to(repo.source_workspace.resolve())
    except ValueError:
        return  # the eval repo lives apart from the skill: one eval repo for every variant
    for variant in materialized:
        if variant.spec.kind != "rev":
            continue
        other_root = variant.source_workspace / relative
        if not other_root.is_dir():
            continue
        other = open_repo(
            other_root, variant.source_workspace, target=selection.target.target_id, lenient=True
        )
        try:
            found = select_cases(
                other, selection.target.target_id, selection.suite_ids, options.cases
            )
        except InputError as exc:
            raise InputError(
                f"variant {variant.spec.label}: the revision's eval repo cannot select the"
                f" same cases: {exc}"
            ) from None
        ids = [c.case_id for c in found.cases]
        if sorted(ids) != sorted(expected):
            missing = sorted(set(expected) - set(ids))
            extra = sorted(set(ids) - set(expected))
            raise InputError(
                f"variant {variant.spec.label} has another case set"
                f" (missing: {', '.join(missing) or '-'}; extra: {', '.join(extra) or '-'})"
            )


def read_noise_floor(path: Path) -> float:
    """The noise floor an earlier A/A evaluation measured (its directory or evaluation.json)."""
    file = path / EVALUATION_JSON if path.is_dir() else path
    try:
        result = EvaluationResult.model_validate_json(file.read_bytes())
    except OSError as exc:
        raise InputError(
            f"cannot read {file}: {exc.strerror}", field="--noise-floor-from"
        ) from None
    except ValueError:
        raise InputError(f"{file} is not an evaluation.json", field="--noise-floor-from") from None
    if result.mode != "aa" or result.noise_floor is None:
        raise InputError(
            f"{file} is no A/A evaluation with a noise floor (run evaluate --aa)",
            field="--noise-floor-from",
        )
    return result.noise_floor


def run_evaluation(
    options: RunOptions,
    plan: EvaluationPlan,
    evaluation_file: Path | None = None,
    noise_floor: float | None = None,
    scorer: RubricScorer | None = None,
) -> EvaluationOutcome:
    """`options`: what every variant's run shares (agent, attempts, model, cases, ...);
    `noise_floor`: an A/A evaluation's, which the headlines must exceed to call a difference;
    `scorer`: the model judge that scores the plan's rubric (a subjective plan needs one)."""
    if plan.mode == "subjective" and scorer is None:
        raise InputError(
            "a subjective evaluation's rubric is scored by the model judge: give --judge-model"
        )
    repo, selection = _selection(options, plan)
    for spec in plan.variants:
        if spec.kind == "rev":
            assert spec.rev is not None
            check_revision(repo.source_workspace, spec.rev, f"variant {spec.label}")
    eval_id = options.run_id or f"{plan.eval_id or 'eval'}-{new_run_id()}"
    if id_problem(eval_id):
        raise InputError(f"evaluation {id_problem(eval_id)}", field="--run-id")
    directory = options.runs_dir / eval_id
    if directory.exists():
        raise InputError(f"evaluation directory already exists: {directory}")
    check_scratch_root(options.scratch_root)
    work = run_scratch(options.scratch_root, eval_id)
    with ExitStack() as stack:
        # Files created meanwhile are private to the user: they hold what the agents saw.
        stack.callback(os.umask, os.umask(PRIVATE_UMASK))
        try:
            make_private_dir(work)
        except OSError as exc:
            raise EnvironmentProblem(f"cannot create {work}: {exc.strerror or exc}") from None
        # The variants' source workspaces go; each run removes its own scratch (unless
        # --keep-scratch), and then the evaluation's scratch if nothing is left in it.
        stack.callback(_remove_empty, work)
        stack.callback(shutil.rmtree, work / "variants", True)
        materialized = [
            materialize(spec, repo, selection.target, work / "variants", stack)
            for spec in plan.variants
        ]
        if selection.target.skill_mount is None:
            # A YAML eval repo a revision carries must select the same cases there. A
            # skill-creator suite is never read from the revision: the current one judges
            # every variant (`suite_drift` says when the revision's differs).
            check_case_sets(materialized, repo, selection, options)
        drift = [
            note
            for m in materialized
            if m.spec.kind == "rev" and m.commit is not None
            if (note := suite_drift(m.spec, m.commit, repo, selection.target)) is not None
        ]
        drift += [note for m in materialized if (note := _unlisted(m)) is not None]
        for note in drift:
            sys.stderr.write(f"warning: {note}\n")
        reused = {
            m.spec.label: check_reusable(m.reused, selection, options)
            for m in materialized
            if m.reused is not None
        }
        running = [m for m in materialized if m.reused is None]
        runs = _runs(options, running, repo, selection, directory, work, materialized)
        directory.mkdir(parents=True, exist_ok=False, mode=0o700)
        started = _now()
        try:
            lanes = _open(runs)
        except (InputError, EnvironmentProblem):
            shutil.rmtree(directory, ignore_errors=True)  # refused before any attempt ran
            raise
        interrupted = _drive(runs, lanes)
        by_label = {m.spec.label: lane for m, lane in zip(running, lanes, strict=True)}
        finished = []
        for m in materialized:
            lane = by_label.get(m.spec.label)
            if lane is not None:
                run_dir, manifest, results = (
                    lane.run_dir,
                    lane.outcome.manifest,
                    lane.outcome.results,
                )
                no_skill = m.no_skill
            else:
                assert m.reused is not None
                run_dir = RunDir(directory / VARIANTS_DIR / m.spec.label / VARIANT_RUN)
                shutil.copytree(m.reused, run_dir.path, symlinks=True)
                manifest, results = reused[m.spec.label]
                no_skill = is_no_skill(manifest)
            finished.append(
                FinishedVariant(
                    label=m.spec.label,
                    kind=m.spec.kind,
                    source=m.spec.source,
                    description=m.spec.describe(),
                    run_dir=run_dir,
                    relative_dir=str(run_dir.path.relative_to(directory)),
                    manifest=manifest,
                    results=results,
                    commit=m.commit,
                    skill_dir=_baseline_skill(materialized) if no_skill else None,
                    checked=no_skill,
                )
            )
        # What the runs redacted, and the judge's credentials (a reused variant's run is not
        # ours to know): the rubric judge's records and everything written here are redacted too.
        secrets = SecretSet()
        for run in runs:
            secrets.update(run.secrets.values())
        credentials = getattr(scorer, "credentials", None)
        if callable(credentials):
            secrets.update({f"judge:{n}": v for n, v in credentials().items()})
        redactor = Redactor(secrets.values())
        rubric_scores: dict[str, RubricScores] = {}
        if plan.rubric is not None and scorer is not None:
            progress = {run.options.runs_dir.name: run.progress for run in runs}
            for f in finished:
                shown = progress.get(f.label)
                rubric_scores[f.label] = score_variant(
                    scorer,
                    f,
                    plan.rubric,
                    repo.source_workspace,
                    shown.note if isinstance(shown, VariantProgress) else None,
                )
                for records in f.run_dir.path.glob(f"case-artifacts/*/attempts/*/{RUBRIC_DIR}"):
                    redactor.tree(records)
        for m, f in zip(materialized, finished, strict=True):
            write_json(
                f.run_dir.path.parent / SOURCE_MANIFEST,
                {
                    "label": m.spec.label,
                    "kind": m.spec.kind,
                    "source": m.spec.source,
                    "description": m.spec.describe(),
                    "source_workspace": str(m.source_workspace),
                    "commit": m.commit,
                    "run_dir": VARIANT_RUN,
                    "reused_from": str(m.reused) if m.reused else None,
                    **_public_rubric(rubric_scores.get(m.spec.label)),
                },
            )
            redactor.file(f.run_dir.path.parent / SOURCE_MANIFEST)
        # skill-creator's benchmark needs judged attempts on every side; an evaluation whose
        # variant has none (every attempt blocked) still gets its own report, which says why.
        unbenchmarked = None
        try:
            # The gradings go under skill-creator/, as a run's do: skill-creator's
            # aggregate_benchmark.py takes every `eval-*` entry of the folder it is given for
            # an eval's directory, and fails on this folder's eval-report.md.
            write_benchmark(
                [Configuration(f.label, f.run_dir) for f in finished],
                finished[0].label,
                directory,
                redactor,
                gradings=directory / SKILL_CREATOR_DIR,
            )
        except InputError as exc:
            unbenchmarked = f"benchmark.json not written: {exc.message}"
        result = _result(
            eval_id,
            plan,
            selection,
            finished,
            started,
            evaluation_file,
            noise_floor,
            interrupted,
            rubric_scores,
        )
        result.notes.extend(drift)
        if unbenchmarked is not None:
            result.notes.append(unbenchmarked)
        # A rubric note may quote the judge: the results are redacted before they are rendered.
        result = type(result).model_validate_json(redactor.text(result.model_dump_json()))
        write_json(directory / EVALUATION_JSON, result.model_dump(mode="json"))
        markdown = render_eval_report(result)
        write_atomic(directory / EVAL_REPORT_MD, markdown)
        write_atomic(directory / EVAL_REPORT_HTML, render_eval_page(result, markdown))
        return EvaluationOutcome(
            directory, result, interrupted, [lane.run_dir.path for lane in lanes]
        )


def _public_rubric(scores: RubricScores | None) -> dict[str, object]:
    """The public contract's per-variant `rubric_scores` and `rubric_notes` (rubric modes)."""
    if scores is None:
        return {}
    return {"rubric_scores": scores.scores, "rubric_notes": scores.notes}


def _remove_empty(root: Path) -> None:
    """`root` and the directories under it, deepest first, where they are empty."""
    if not root.is_dir():
        return
    for directory in sorted((p for p in root.rglob("*") if p.is_dir()), reverse=True):
        if not any(directory.iterdir()):
            directory.rmdir()
    if not any(root.iterdir()):
        root.rmdir()


def _left_out(target: LoadedTarget, skill_dir: Path) -> tuple[Path, ...]:
    """The folder of a skill-creator skill that no workspace is given with the skill: the one
    holding its evals file (`<skill>/evals/`, where the eval's own inputs are kept, copied into
    every variant's workspace as the case's). An eval repo's skill has none."""
    mount = target.skill_mount
    if mount is None:
        return ()
    try:
        inside = target.path.resolve().parent.relative_to(mount.origin.resolve())
    except ValueError:
        return ()  # the evals file lies beside the skill, not in it
    if not inside.parts:
        return ()  # the evals file at the skill's root: nothing of the skill is left out
    return (skill_dir / inside.parts[0],)


def _baseline_skill(materialized: list[Materialized]) -> Path | None:
    """The skill a no-skill variant must never see: the first variant's that has one."""
    return next((m.skill_dir for m in materialized if m.skill_dir is not None), None)


def _runs(
    options: RunOptions,
    materialized: list[Materialized],
    repo: EvalRepo,
    selection: Selection,
    directory: Path,
    work: Path,
    every: list[Materialized],
) -> list[Run]:
    """One run per variant in `materialized`; `every`: all variants, reused ones included."""
    stop = StopEvent()
    skill_dir = _baseline_skill(every)
    entry = Path(selection.target.target.entry_skill)
    workspace_skill = str(entry.parent if entry.suffix else entry)
    runs = []
    # The machine's own services, before any attempt of this evaluation serves anything: a
    # baseline's connection to one is not a neighbour attempt's (red team 15).
    host_ports = listening_ports()
    for m in materialized:
        inspector = None
        if m.no_skill:
            if skill_dir is None:
                raise InputError("a no-skill variant needs another variant with a skill")
            inspector = ContaminationInspector(
                skill_dir, workspace_skill, _left_out(selection.target, skill_dir), host_ports
            )
        variant_options = replace(
            options,
            # The path as given: an evals file may have any name, and its folder (`repo.root`)
            # is then no eval repo.
            repo=options.repo,
            source_workspace=m.source_workspace,
            target=selection.target.target_id,
            suites=tuple(selection.suite_ids),
            cases=options.cases,
            skill_text=m.skill_text,
            no_skill=m.no_skill,
            attempt_inspector=inspector,
            # Each variant draws its own scripted `chance` branches: an A/A pair varies as two
            # runs of a real model would (the same in every evaluation, so tests can pin it).
            scripted_draw_salt=m.spec.label,
            runs_dir=directory / VARIANTS_DIR / m.spec.label,
            run_id=VARIANT_RUN,
            resume=None,
            scratch_root=work / digest_name(m.spec.label),
            # Every variant's agents are kept from every other variant's files and skills.
            hidden_paths=(directory, work, repo.source_workspace),
            variant=VariantRole(
                label=m.spec.label,
                evaluation_id=directory.name,
                compared=[v.spec.label for v in every],
            ),
        )
        run = Run(variant_options, VariantProgress(m.spec.label))
        run.stop = stop
        runs.append(run)
    for run in runs:
        run.options.scratch_root.mkdir(parents=True, exist_ok=True, mode=0o700)
    return runs


class VariantProgress(PlainProgress):
    """Plain progress lines, each naming its variant: the variants' attempts interleave."""

    def __init__(self, label: str) -> None:
        super().__init__()
        self.label = label

    def _print(self, text: str) -> None:
        super()._print(f"{self.label}: {text.lstrip()}")

    def note(self, text: str) -> None:
        self._print(text)

    def start(self, run_id: str, case_ids: list[str], attempts: int) -> None:
        # Every variant's run is named `run` (its folder): the label already says which.
        self.total = len(case_ids)
        self._print(f"{len(case_ids)} case(s) x {attempts} attempt(s)")
        for case_id in case_ids:
            self._print(f"  planned: {case_id}")


def _open(runs: list[Run]) -> list[RunLane]:
    lanes: list[RunLane] = []
    try:
        for run in runs:
            lanes.append(run.open_lane())
    except BaseException as exc:
        for run, lane in zip(runs, lanes, strict=False):
            run.abandon(lane, exc)
        for run in runs:
            run.release()
        raise
    return lanes


def _drive(runs: list[Run], lanes: list[RunLane]) -> bool:
    """Serves every lane's model, drives all attempts, closes every run; True if interrupted."""
    try:
        try:
            with ExitStack() as serving:
                for run, lane in zip(runs, lanes, strict=True):
                    serving.enter_context(run.serve(lane))
                drive(lanes)
        except BaseException as exc:
            for run, lane in zip(runs, lanes, strict=True):
                run.abandon(lane, exc)
            raise
        for run, lane in zip(runs, lanes, strict=True):
            run.close_lane(lane)
    finally:
        for run in runs:
            run.release()
    return any(lane.outcome.interrupted for lane in lanes)


def _result(
    eval_id: str,
    plan: EvaluationPlan,
    selection: Selection,
    finished: list[FinishedVariant],
    started: str,
    evaluation_file: Path | None,
    given_floor: float | None,
    interrupted: bool,
    rubric_scores: dict[str, RubricScores],
) -> EvaluationResult:
    reference = finished[0]
    comparisons = []
    floor = given_floor
    for other in finished[1:]:
        comparison, stats = compare(reference, other, None if plan.aa else given_floor)
        if plan.aa:
            floor = noise_floor(stats)
        ours, theirs = rubric_scores.get(reference.label), rubric_scores.get(other.label)
        if ours is not None and theirs is not None:
            comparison.dimensions = dimension_head_to_head(ours, theirs)
        comparisons.append(comparison)
    manifest = finished[-1].manifest
    notes = [
        f"{f.label} is the finished run {f.source}, reused: it did not run interleaved"
        for f in finished
        if f.kind == "reused"
    ]
    if interrupted:
        notes.append("the evaluation was interrupted: the variants' runs hold what finished")
    if plan.rubric is not None and not rubric_scores:
        notes.append(
            f"the rubric {plan.rubric.rubric_id} was not scored: no model judge is configured"
            " (--judge-model; --judge rules never asks one)"
        )
    return EvaluationResult(
        eval_id=eval_id,
        mode=plan.mode,
        title=plan.title,
        evaluation_file=str(evaluation_file) if evaluation_file else None,
        target_id=selection.target.target_id,
        suite_ids=list(selection.suite_ids),
        case_ids=[c.case_id for c in selection.cases],
        agent=manifest.agent or "",
        attempts=manifest.attempts,
        started_at=started,
        finished_at=_now(),
        interleaved=not any(f.kind == "reused" for f in finished),
        variants=[
            variant_summary(f).model_copy(update={"rubric": rubric_scores.get(f.label)})
            for f in finished
        ],
        comparisons=comparisons,
        noise_floor=floor,
        rubric_id=plan.rubric.rubric_id if plan.rubric is not None else None,
        notes=notes,
    )


def _unlisted(variant: Materialized) -> str | None:
    """Why no agent would list this variant's skill (another version given by path or
    revision: the current one is warned of when the suite loads), or None."""
    if variant.spec.kind not in ("file", "dir", "rev"):
        return None
    if variant.skill_text is not None:
        text = variant.skill_text
    elif variant.skill_dir is not None:
        text = (variant.skill_dir / "SKILL.md").read_text(encoding="utf-8", errors="replace")
    else:
        return None
    problem = listing_problem(text)
    if problem is None:
        return None
    field = f"{problem.field}: " if problem.field else ""
    return (
        f"{variant.spec.label} ({variant.spec.source}): its SKILL.md:{problem.line}: {field}"
        f"{problem.message}"
    )
