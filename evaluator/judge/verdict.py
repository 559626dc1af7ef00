"""The one shape of a verdict: what judges return is what `attempt.json` and `case-results/` hold.

A check verdict is one structured check on the evidence; an assertion result is one assertion
entry, with who decided it (`decided_by`), how (`provenance` for compiled rules, `model` for the
model judge) and the evidence records it relies on.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator

from evaluator.contract.models import Check
from evaluator.judge.grading import GradeVerdict
from evaluator.surrogates import shown
from evaluator.vocabulary import (
    BlockedBy,
    BlockedReason,
    CheckStatus,
    DecidedBy,
    Polarity,
    Status,
)


class VerdictModel(BaseModel):
    # Readers of our artifacts may add fields; we keep them on re-write.
    model_config = ConfigDict(extra="allow")


# What proved a consultation check (`file_read`, `read_before`): the content the tool outputs
# showed, or, for a session that records no outputs, the table of what each command reads.
Proof = Literal["content", "commands"]


class CheckVerdict(VerdictModel):
    kind: str
    status: CheckStatus
    detail: str
    evidence: list[str] = Field(default_factory=list)
    blocked_reason: BlockedReason | None = None
    blocked_by: BlockedBy | None = Field(
        default=None,
        description="For a blocked check: `agent` when the agent's own actions made it"
        " undecidable (a command that may not have run or that the analysis cannot see into, a"
        " fetch its command line hid), `eval` when the eval or the machine did. Absent in"
        " artifacts written before it existed: the eval's.",
    )
    proof: Proof | None = Field(
        default=None,
        description="For `file_read` and `read_before`: `content` when the tool outputs the"
        " session recorded decided (a file's words reached the agent), `commands` when only the"
        " table of what each command reads could (docs/evidence-access.md).",
    )
    checks: list[CheckVerdict] = Field(
        default_factory=list, description="The operands of a `not`, `any_of` or `all_of` check."
    )
    patterns: list[str] = Field(
        default_factory=list,
        description="The whole patterns `detail` quotes only in part (each longer than 120"
        " characters: a report line shows an excerpt).",
    )

    @field_validator("detail")
    @classmethod
    def _shown_names(cls, detail: str) -> str:
        """A detail quotes file names the agent chose, which need not be UTF-8: each byte that
        is not is shown as its escape (`surrogates.shown`), or `attempt.json` cannot be written
        (red team, round 12b)."""
        return shown(detail)

    # A failed `file_read` whose file a command the table says shows content did read, with
    # the output reaching the agent in a form no word window matches (`base64 X`, `rev X`):
    # those reads' records. Not kept in artifacts: only a forbidden entry reads it.
    _unrecognised_reads: list[str] = PrivateAttr(default_factory=list)
    # Which outcomes of this blocked check the agent's gaps alone may be hiding (logic.py says
    # how `not`, `any_of` and `all_of` derive it); None: from `blocked_by` (both or neither).
    _agent_may_hide: frozenset[CheckStatus] | None = PrivateAttr(default=None)

    def agent_may_hide(self) -> frozenset[CheckStatus]:
        """The decided outcomes (`pass`, `fail`) the agent's own gaps may be keeping from view."""
        if self.status != "blocked":
            return frozenset()
        if self._agent_may_hide is not None:
            return self._agent_may_hide
        return frozenset(("pass", "fail")) if self.blocked_by == "agent" else frozenset()

    def with_ref_prefix(self, old: str, new: str) -> CheckVerdict:
        return self.model_copy(
            update={
                "evidence": [_swap(ref, old, new) for ref in self.evidence],
                "checks": [c.with_ref_prefix(old, new) for c in self.checks],
            }
        )


def passed(kind: str, detail: str, evidence: list[str] | None = None) -> CheckVerdict:
    return CheckVerdict(kind=kind, status="pass", detail=detail, evidence=evidence or [])


def failed(kind: str, detail: str, evidence: list[str] | None = None) -> CheckVerdict:
    return CheckVerdict(kind=kind, status="fail", detail=detail, evidence=evidence or [])


def blocked(
    kind: str,
    detail: str,
    evidence: list[str] | None = None,
    reason: BlockedReason = "insufficient-evidence",
    by: BlockedBy = "eval",
) -> CheckVerdict:
    """`by`: `agent` only where the agent's own action is what leaves the check undecided (the
    same evidence from a plainer command would decide it); the eval's wherever that is unsure."""
    return CheckVerdict(
        kind=kind,
        status="blocked",
        detail=detail,
        evidence=evidence or [],
        blocked_reason=reason,
        blocked_by=by,
    )


# `description`: an entry with no criteria of its own is judged by what its description says.
SentenceRole = Literal["pass_criteria", "fail_signals", "description"]


class Provenance(VerdictModel):
    """One prose sentence compiled into checks: which sentence, by which rule, into what."""

    sentence: str
    role: SentenceRole
    rule: str
    checks: list[Check]
    tree: str | None = Field(
        default=None,
        description="The parse, word by word, when the criteria grammar (not a template)"
        " compiled the sentence.",
    )


class ShownFile(VerdictModel):
    """A workspace file whose content reached the agent, and how much of it."""

    path: str = Field(description="Workspace-relative.")
    share: float = Field(description="Share of its lines the agent was shown (0 to 1).")
    first: str | None = Field(
        default=None, description="The session record of the first output that showed it."
    )


class ModelGrade(VerdictModel):
    """What the model judge said about an entry, after verification."""

    verdict: GradeVerdict
    rationale: str
    refs: list[str] = Field(default_factory=list)
    record_path: str | None = None
    detail: str | None = None


class AssertionResult(VerdictModel):
    """One assertion entry. A forbidden entry whose behaviour was observed has status `fail`."""

    summary: str
    status: Status
    evidence: list[str] = Field(default_factory=list)
    # ours
    entry_id: str | None = Field(default=None, description='e.g. "required[0]"')
    polarity: Polarity = "required"
    decided_by: DecidedBy | None = Field(
        default=None, description="Who decided the entry; absent when the attempt was not judged."
    )
    blocked_reason: BlockedReason | None = None
    blocked_by: BlockedBy | None = Field(
        default=None,
        description="For a blocked entry: `agent` when the agent's own gaps may hide its failure"
        " (a required entry's failing check, a forbidden entry's observation), else `eval`.",
    )
    notes: list[str] = Field(default_factory=list)
    checks: list[CheckVerdict] = Field(default_factory=list)
    provenance: list[Provenance] = Field(
        default_factory=list, description="For `rules`: each sentence and what it compiled to."
    )
    model: ModelGrade | None = Field(default=None, description="For `model`: the judge's grade.")

    def with_ref_prefix(self, old: str, new: str) -> AssertionResult:
        """The same verdict citing another copy of the evidence (attempt → case level)."""
        return self.model_copy(
            update={
                "evidence": [_swap(ref, old, new) for ref in self.evidence],
                "checks": [c.with_ref_prefix(old, new) for c in self.checks],
            }
        )


def _swap(ref: str, old: str, new: str) -> str:
    return new + ref[len(old) :] if ref.startswith(old) else ref
