"""The seam between rubric scoring and a model judge: what a subjective evaluation asks about an
attempt (one rubric dimension at a time), and what it gets back.

A score counts only when the judge's answer is verified like a pass/fail verdict: well formed,
on the dimension's scale, citing records that exist and can show what the dimension is about.
Anything else comes back as a `null` score with the reason in `note`, never as a number.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

from evaluator.evidence.records import SessionEvidence


@dataclass(frozen=True)
class DimensionItem:
    """One rubric dimension, as the rubric's author wrote it."""

    rubric_id: str
    name: str
    description: str | None
    scale: tuple[str, ...]  # the allowed scores, as text ("1".."5", or words), in rubric order
    anchors: tuple[tuple[str, str], ...] = ()  # (score, what it means), in scale order

    @property
    def entry_id(self) -> str:
        return f"rubric.{self.name}"


@dataclass(frozen=True)
class VoteScore:
    """One judge vote after verification: its score, or None with the reason."""

    vote: int
    score: str | None
    problem: str | None = None


@dataclass(frozen=True)
class DimensionScore:
    dimension: str
    # A score from the scale, as text; None when no verified vote majority gave one.
    score: str | None
    value: float | None  # the verified votes' mean on the numeric scale (docs/subjective.md)
    votes: tuple[VoteScore, ...]
    rationale: str
    refs: tuple[str, ...]  # the msg-N record ids the chosen vote cites
    record_path: str | None  # the judge record, relative to the run dir
    note: str | None = None  # why the score is null, vote spread, discarded votes


@runtime_checkable
class RubricScorer(Protocol):
    """Scores an attempt on rubric dimensions. Never raises for a judge fault: such a dimension
    comes back with a `None` score and the reason in `note`."""

    def score(
        self,
        dimensions: list[DimensionItem],
        evidence: SessionEvidence,
        workspace: Path,
        record_dir: Path,
        files_root: Path | None = None,
    ) -> list[DimensionScore]:
        """`workspace`: where the agent worked (its records name it); `files_root`: where its
        files are now, when not there (restored from the run's snapshot)."""
        ...


def scale_value(item: DimensionItem, score: str) -> float:
    """Where a score sits on its scale: the number itself for a numeric scale, else its 1-based
    position (a scale of words is ordinal: `poor`, `fair`, `good` are 1, 2, 3)."""
    if all(_is_number(s) for s in item.scale):
        return float(score)
    return float(item.scale.index(score) + 1)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
