"""What a judge sees (the attempt's evidence) and what it returns (verdicts with evidence refs)."""

from __future__ import annotations

import fnmatch
import glob
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from evaluator.contract.models import AssertionEntry, BlockedReason
from evaluator.evidence.records import EvidenceRecord, SessionEvidence
from evaluator.judge.grading import ModelGrader
from evaluator.vocabulary import CheckStatus, Polarity


@dataclass
class JudgeContext:
    evidence: SessionEvidence
    workspace: Path
    ref_prefix: str  # e.g. "case-artifacts/<case>/accepted-session.json"
    workspace_available: bool = True
    grader: ModelGrader | None = None

    def ref(self, record: EvidenceRecord) -> str:
        return f"{self.ref_prefix}#{record.id}"

    def relative(self, path: str) -> str | None:
        """Workspace-relative form of an absolute observed path, or None if outside."""
        root = str(self.workspace)
        if path == root:
            return "."
        if path.startswith(root.rstrip("/") + "/"):
            return path[len(root.rstrip("/")) + 1 :]
        return None

    def expand(self, path: str) -> list[str]:
        """An observed path that is itself a glob (`cat refs/*.md`) stands for what it matched."""
        if not any(ch in path for ch in "*?[") or not self.workspace_available:
            return [path]
        return sorted(glob.glob(path)) or [path]

    def reads(self) -> list[EvidenceRecord]:
        return [
            r
            for r in self.evidence.of_kind("file_read_observed")
            if r.access in ("read", "path") and r.path
        ]

    def matching(self, records: list[EvidenceRecord], pattern: str) -> list[EvidenceRecord]:
        hits = []
        for record in records:
            assert record.path is not None
            for concrete in self.expand(record.path):
                relative = self.relative(concrete)
                if relative is not None and path_matches(relative, pattern):
                    hits.append(record)
                    break
        return hits


def path_matches(relative: str, pattern: str) -> bool:
    """Workspace-relative match. A pattern naming a skill path (`.agents/...`) must match from
    the workspace root; a shorter one (`references/x.md`, as upstream criteria write it) may
    match at any depth."""
    pattern = pattern.removeprefix("./")
    if fnmatch.fnmatchcase(relative, pattern):
        return True
    return not pattern.startswith(".agents/") and fnmatch.fnmatchcase(relative, f"*/{pattern}")


@dataclass
class CheckOutcome:
    kind: str
    status: CheckStatus
    detail: str
    evidence: list[str] = field(default_factory=list)
    blocked_reason: BlockedReason | None = None


@dataclass
class EntryVerdict:
    summary: str
    polarity: Polarity
    status: CheckStatus
    evidence: list[str] = field(default_factory=list)
    blocked_reason: BlockedReason | None = None
    notes: list[str] = field(default_factory=list)
    checks: list[CheckOutcome] = field(default_factory=list)
    judge: str | None = None


class EntryJudge(Protocol):
    """Decides an entry, or returns None when it cannot (the next judge is asked)."""

    name: str

    def judge(self, entry: AssertionEntry, context: JudgeContext) -> list[CheckOutcome] | None: ...
