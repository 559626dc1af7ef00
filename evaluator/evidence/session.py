"""The one entry point of the stage: a session file, whichever agent wrote it, into evidence.

The format is told apart by the file's first record; each agent's normaliser stays unaware of
the others."""

from __future__ import annotations

from pathlib import Path

from evaluator.evidence.claude import is_claude_transcript, normalize_claude_transcript
from evaluator.evidence.normalize import normalize_codex_rollout
from evaluator.evidence.records import SessionEvidence
from evaluator.evidence.rollout import first_line


def normalize_session(path: Path, *, home: str | None = None) -> SessionEvidence:
    if is_claude_transcript(first_line(path)):
        return normalize_claude_transcript(path, home=home)
    return normalize_codex_rollout(path, home=home)
