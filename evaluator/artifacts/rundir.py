"""The layout of `runs/<run_id>/` and atomic writes into it (temp file + rename)."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from evaluator.artifacts.models import CaseResult, Manifest
from evaluator.errors import InputError
from evaluator.safepath import contained


def write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def write_json(path: Path, payload: Any) -> None:
    if isinstance(payload, BaseModel):
        payload = payload.model_dump(mode="json")
    write_atomic(path, json.dumps(payload, indent=2, ensure_ascii=False) + "\n")


def copy_atomic(source: Path, destination: Path) -> None:
    destination.parent.mkdir(parents=True, exist_ok=True)
    temp = destination.with_name(f".{destination.name}.tmp")
    shutil.copyfile(source, temp)
    os.replace(temp, destination)


class RunDir:
    def __init__(self, path: Path) -> None:
        self.path = path

    @property
    def run_id(self) -> str:
        return self.path.name

    manifest_name = "manifest.json"

    @property
    def manifest_path(self) -> Path:
        return self.path / self.manifest_name

    def case_result_path(self, case_id: str) -> Path:
        return contained(self.path, "case-results", f"{case_id}.json")

    def case_artifacts(self, case_id: str) -> Path:
        return contained(self.path, "case-artifacts", case_id)

    def attempt_artifacts(self, case_id: str, attempt: int) -> Path:
        return self.case_artifacts(case_id) / "attempts" / f"attempt-{attempt:02d}"

    def attempt_ref_prefix(self, case_id: str, attempt: int) -> str:
        return f"case-artifacts/{case_id}/attempts/attempt-{attempt:02d}/accepted-session.json"

    def case_ref_prefix(self, case_id: str) -> str:
        return f"case-artifacts/{case_id}/accepted-session.json"

    def write_manifest(self, manifest: Manifest) -> None:
        write_json(self.manifest_path, manifest)

    def read_manifest(self) -> Manifest:
        try:
            return Manifest.model_validate_json(self.manifest_path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise InputError("not a run directory (no manifest.json)", path=self.path) from None
        except ValidationError as exc:
            raise InputError(
                f"unreadable manifest: {exc.errors()[0]['msg']}", path=self.manifest_path
            ) from None

    def write_case_result(self, result: CaseResult) -> None:
        write_json(self.case_result_path(result.case_id), result)

    def finished_case_ids(self) -> set[str]:
        directory = self.path / "case-results"
        return {p.stem for p in directory.glob("*.json")} if directory.is_dir() else set()

    def read_case_results(self, order: list[str] | None = None) -> list[CaseResult]:
        results = {}
        for path in sorted((self.path / "case-results").glob("*.json")):
            try:
                results[path.stem] = CaseResult.model_validate_json(
                    path.read_text(encoding="utf-8")
                )
            except ValidationError as exc:
                raise InputError(
                    f"unreadable case result: {exc.errors()[0]['msg']}", path=path
                ) from None
        if order is None:
            return list(results.values())
        return [results[c] for c in order if c in results]

    def max_attempt(self, case_id: str) -> int:
        attempts = self.case_artifacts(case_id) / "attempts"
        numbers = [
            int(p.name.split("-")[1]) for p in attempts.glob("attempt-*") if p.name[8:].isdigit()
        ]
        return max(numbers, default=0)
