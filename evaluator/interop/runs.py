"""What every export reads from a finished run directory, and how every export writes.

Exports are built from the artifacts the run already wrote (`case-results/`, each attempt's
`attempt.json` and saved session), never from anything the agent said about itself. Whatever they
write passes through the run's redaction (the run's secrets when the pipeline writes, and the
secret-named values of the evaluator's own environment always), like every other artifact.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from evaluator.artifacts.models import AttemptFile, CaseResult, Manifest
from evaluator.artifacts.redact import Redactor
from evaluator.artifacts.rundir import RunDir, write_atomic
from evaluator.credentials import environment_secrets

ROOT_SESSION = "accepted-session.jsonl"
ROOT_EVIDENCE = "accepted-session.json"
# Where the pipeline keeps the sessions an attempt's agent spawned (pipeline/attempt.py).
SUBAGENT_SESSIONS = "subagent-sessions"


@dataclass(frozen=True)
class AttemptSource:
    """One attempt of a finished run, with the paths of its saved evidence."""

    run_dir: RunDir
    case: CaseResult
    record: AttemptFile
    directory: Path

    @property
    def number(self) -> int:
        return self.record.attempt

    def relative(self, name: str) -> str:
        """A file of this attempt as the run's citations name it (relative to the run dir)."""
        return (self.directory / name).relative_to(self.run_dir.path).as_posix()

    @property
    def session_file(self) -> Path | None:
        path = self.directory / ROOT_SESSION
        return path if path.is_file() else None

    @property
    def evidence_file(self) -> Path | None:
        path = self.directory / ROOT_EVIDENCE
        return path if path.is_file() else None

    def subagent_session_files(self) -> list[Path]:
        directory = self.directory / SUBAGENT_SESSIONS
        return sorted(directory.glob("*.jsonl")) if directory.is_dir() else []


def run_attempts(run_dir: RunDir, manifest: Manifest) -> Iterator[AttemptSource]:
    """Every recorded attempt of every finished case, in plan order and attempt order."""
    for case in run_dir.read_case_results(manifest.resolved_case_ids):
        attempts = run_dir.case_artifacts(case.case_id) / "attempts"
        for path in sorted(attempts.glob("attempt-*/attempt.json")):
            try:
                record = AttemptFile.model_validate_json(path.read_text(encoding="utf-8"))
            except (OSError, ValidationError):
                continue  # an attempt.json we cannot read is reported by `report`, not here
            yield AttemptSource(run_dir, case, record, path.parent)


def redactor(secrets: Mapping[str, str] | None = None) -> Redactor:
    """The run's secrets, and every secret-named value of this process's environment."""
    return Redactor({**environment_secrets(os.environ), **(secrets or {})})


def write_redacted_json(path: Path, payload: BaseModel | dict[str, Any], redact: Redactor) -> None:
    data = payload.model_dump(mode="json") if isinstance(payload, BaseModel) else payload
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    write_atomic(path, redact.text(text))  # 0600, like every artifact (mkstemp's mode)


def write_redacted_text(path: Path, text: str, redact: Redactor) -> None:
    write_atomic(path, redact.text(text))
