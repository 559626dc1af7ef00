"""The seam between the judge chain and a model-graded judge: what the chain asks, what it gets."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

from evaluator.evidence.records import SessionEvidence
from evaluator.vocabulary import Polarity

GradeVerdict = Literal["met", "not-met", "cannot-judge"]


@dataclass(frozen=True)
class GradeItem:
    entry_id: str  # e.g. "required[2]", unique within the case
    polarity: Polarity
    text: str  # the criterion or fail signal, verbatim as the author wrote it
    evidence_scope: str | None = None
    # What reached the agent: workspace-relative path -> the records of the tool outputs that
    # showed its content. None when the session records no outputs (commands must tell).
    shown: Mapping[str, frozenset[str]] | None = None
    intent: str | None = None  # the case's expected output, as the author's intent
    verification: tuple[str, ...] = ()  # the author's instructions to the verifier
    # Per tool call (by call id), every path the trace saw the attempt write up to and with
    # that call: a file run after the agent wrote it is the agent's, not the one named (red
    # team 18). None: no trace; the session's own write records still count.
    written: Mapping[str, frozenset[str]] | None = None
    # The tool calls (by call id) whose processes ran code the attempt wrote, mapped into them,
    # or were controlled by another of them (`TracedCall.agents_code`): no command of theirs
    # shows a named file run (red team 19).
    agents_code: frozenset[str] = frozenset()


@dataclass(frozen=True)
class GradeResult:
    entry_id: str
    verdict: GradeVerdict  # after verification: an unverified "met" is "cannot-judge"
    rationale: str
    refs: tuple[str, ...]  # the msg-N record ids the verdict relies on
    record_path: str | None  # the judge record, relative to the run dir
    detail: str | None = None  # verification outcome, vote split, timeout reason


class ModelGrader(Protocol):
    """Grades entries no rule could decide. Never raises for a judge fault: such an entry comes
    back `cannot-judge` with the reason in `detail`."""

    def grade(
        self,
        items: list[GradeItem],
        evidence: SessionEvidence,
        workspace: Path,
        record_dir: Path,
    ) -> list[GradeResult]: ...

    def credentials(self) -> dict[str, str]:
        """The credentials the judge's model is reached with, so no artifact keeps them."""
        ...
