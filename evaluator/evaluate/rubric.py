"""Rubric scores of an evaluation's variants (docs/subjective.md).

The rubric an evaluation file names is loaded and checked before anything runs. After the runs,
every judged attempt of every variant (a final try that passed or failed: an accepted session
whose isolation held; contaminated, blocked and interrupted attempts are not scored) is scored
on each dimension by the model judge through `evaluator.judge.scoring.RubricScorer`, from the
attempt's saved evidence and its workspace snapshot. The judge records go beside the attempt
(`case-artifacts/<case>/attempts/attempt-NN/rubric/`); the scores and their spread go to
`evaluation.json`.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from evaluator.artifacts.attribution import final_attempts
from evaluator.artifacts.models import AttemptRecord
from evaluator.contract.models import Rubric
from evaluator.errors import InputError
from evaluator.evaluate.build import FinishedVariant
from evaluator.evaluate.model import (
    AttemptScore,
    CaseDimensionScore,
    DimensionHeadToHead,
    DimensionSummary,
    RubricScores,
)
from evaluator.evidence import SessionEvidence
from evaluator.judge.scoring import DimensionItem, RubricScorer, scale_value
from evaluator.pipeline.attempt import WORKSPACE_SNAPSHOT
from evaluator.repo.documents import Diagnostics, load_document
from evaluator.stats.spread import head_to_head, spread
from evaluator.workspace.snapshot import has_snapshot, restore_snapshot

RUBRIC_DIR = "rubric"  # per attempt, beside attempt.json: the judge's score records


def load_rubric(path: Path, *, lenient: bool) -> Rubric:
    """The rubric at `path`, or an `InputError` naming the file, line and field: invalid, two
    dimensions of one name, a scale that repeats a value, an anchor off the scale."""
    diagnostics = Diagnostics()
    loaded = load_document(path, "rubric", diagnostics, lenient=lenient)
    if diagnostics.errors:
        raise diagnostics.errors[0]
    if loaded is None:
        raise InputError("not a rubric file", path=path)
    rubric: Rubric = loaded.model
    names: set[str] = set()
    for index, dimension in enumerate(rubric.dimensions):
        where: tuple[str | int, ...] = ("dimensions", index)
        if dimension.name in names:
            raise loaded.doc.error((*where, "name"), f"two dimensions are named {dimension.name!r}")
        names.add(dimension.name)
        scale = [str(s) for s in dimension.scale]
        if len(set(scale)) != len(scale):
            raise loaded.doc.error((*where, "scale"), "the scale repeats a value")
        for score in dimension.anchors or {}:
            if score not in scale:
                raise loaded.doc.error(
                    (*where, "anchors"), f"anchor {score!r} is not on the scale {', '.join(scale)}"
                )
    return rubric


def dimension_items(rubric: Rubric) -> list[DimensionItem]:
    items = []
    for dimension in rubric.dimensions:
        scale = tuple(str(s) for s in dimension.scale)
        anchors = dimension.anchors or {}
        items.append(
            DimensionItem(
                rubric_id=rubric.rubric_id,
                name=dimension.name,
                description=dimension.description,
                scale=scale,
                anchors=tuple((s, anchors[s]) for s in scale if s in anchors),
            )
        )
    return items


@contextmanager
def _files(attempt_dir: Path, record: AttemptRecord, source: Path) -> Iterator[Path | None]:
    """Where the attempt workspace's files are: None while they are still where the agent left
    them, else a temporary restore of the snapshot saved beside the attempt (None without one:
    the judge's bundle then says the workspace is no longer available)."""
    if Path(record.workspace_root).is_dir():
        yield None
        return
    snapshot = attempt_dir / WORKSPACE_SNAPSHOT
    if not has_snapshot(snapshot):
        yield None
        return
    with tempfile.TemporaryDirectory(prefix="agentic-eval-rubric-") as temp:
        yield restore_snapshot(snapshot, source, Path(temp)).root


def score_variant(
    scorer: RubricScorer,
    variant: FinishedVariant,
    rubric: Rubric,
    source_workspace: Path,
    say: Callable[[str], None] | None = None,
) -> RubricScores:
    """`say`: where to tell the user which attempt the judge scores (it can take minutes)."""
    items = dimension_items(rubric)
    per_case: dict[str, list[list[AttemptScore]]] = {}
    notes: list[str] = []
    for result in variant.results:
        scored: list[list[AttemptScore]] = [[] for _ in items]
        for record in final_attempts(result):
            if record.interrupted or record.status not in ("pass", "fail") or not record.valid:
                continue
            directory = variant.run_dir.attempt_artifacts(result.case_id, record.attempt)
            session = directory / "accepted-session.json"
            if not session.is_file():
                notes.append(f"{result.case_id}/attempt-{record.attempt:02d}: no saved session")
                continue
            evidence = SessionEvidence.from_json(json.loads(session.read_text(encoding="utf-8")))
            if say is not None:
                say(
                    f"{result.case_id} attempt {record.attempt:02d}: rubric {rubric.rubric_id},"
                    f" scoring {len(items)} dimension(s)"
                )
            with _files(directory, record, source_workspace) as files:
                scores = scorer.score(
                    items, evidence, Path(record.workspace_root), directory / RUBRIC_DIR, files
                )
            for index, score in enumerate(scores):
                scored[index].append(
                    AttemptScore(
                        attempt=record.attempt,
                        score=score.score,
                        value=score.value,
                        votes=[
                            None if vote.score is None else scale_value(items[index], vote.score)
                            for vote in score.votes
                        ],
                        refs=list(score.refs),
                        record=score.record_path,
                        note=score.note,
                    )
                )
                if score.score is None:
                    notes.append(
                        f"{score.dimension}, {result.case_id}/attempt-{record.attempt:02d}:"
                        f" null ({score.note or 'no verified score'})"
                    )
        per_case[result.case_id] = scored
    dimensions = []
    for index, item in enumerate(items):
        cases = [_case(case_id, scored[index]) for case_id, scored in per_case.items()]
        means = spread([c.mean for c in cases])
        dimensions.append(
            DimensionSummary(
                name=item.name,
                scale=list(item.scale),
                cases=cases,
                cases_scored=means.n,
                mean=means.mean,
                sd=means.sd,
                low=means.low,
                high=means.high,
                attempts_scored=sum(c.scored for c in cases),
                attempts_null=sum(c.nulls for c in cases),
            )
        )
    return RubricScores(
        rubric_id=rubric.rubric_id,
        scores={d.name: d.mean for d in dimensions},
        notes=notes,
        dimensions=dimensions,
    )


def _case(case_id: str, attempts: list[AttemptScore]) -> CaseDimensionScore:
    over = spread([a.value for a in attempts])
    within = [spread(a.votes).sd for a in attempts]
    vote_sds = [sd for sd in within if sd is not None]
    return CaseDimensionScore(
        case_id=case_id,
        attempts=attempts,
        scored=over.n,
        nulls=over.nulls,
        mean=over.mean,
        sd=over.sd,
        low=over.low,
        high=over.high,
        vote_sd=sum(vote_sds) / len(vote_sds) if vote_sds else None,
    )


def dimension_head_to_head(
    reference: RubricScores, compared: RubricScores
) -> list[DimensionHeadToHead]:
    """Per dimension, the cases both variants ran, aligned by case id."""
    found = []
    for ours, theirs in zip(reference.dimensions, compared.dimensions, strict=True):
        by_case = {c.case_id: c.mean for c in theirs.cases}
        cases = [c for c in ours.cases if c.case_id in by_case]
        count = head_to_head([c.mean for c in cases], [by_case[c.case_id] for c in cases])
        found.append(
            DimensionHeadToHead(
                name=ours.name,
                wins=count.wins,
                losses=count.losses,
                ties=count.ties,
                untested=count.untested,
                mean_difference=count.mean_difference,
            )
        )
    return found
