"""Reading any run directory that honours the contract's artifacts, not only ours.

The contract promises `manifest.json` and `case-results/<case_id>.json` with a `status` per case
and per assertion; everything else is optional here, so a minimal run written by another
evaluator scores too. A run that is still going, or has cases without a result, is not a score.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from evaluator.artifacts.attribution import RunScore, score_run
from evaluator.artifacts.models import UNFINISHED_STATES, CaseResult
from evaluator.artifacts.rundir import MANIFEST_FILE, not_a_run_dir, unfinished_why
from evaluator.artifacts.trigger_report import TRIGGERS_FILE
from evaluator.errors import EXIT_ENVIRONMENT, EvalError, InputError


class NoScore(EvalError):
    """A finished run that still has no score: nothing judged, too little coverage, an outage."""

    exit_code = EXIT_ENVIRONMENT


@dataclass
class RunRecord:
    path: Path
    run_id: str
    results: list[CaseResult]
    selected: int
    manifest: dict[str, Any] = field(default_factory=dict)

    def held_out_cases(self) -> list[str]:
        """The run's cases of the held-out `test` split, as its manifest recorded them when
        planned (runs without `case_splits`, older or another evaluator's, name none)."""
        splits = self.manifest.get("case_splits")
        if not isinstance(splits, dict):
            return []
        return [r.case_id for r in self.results if splits.get(r.case_id) == "test"]

    def score(self, min_coverage: float = 0.0) -> RunScore:
        """The verified score; raises NoScore rather than let an outage read as a low score."""
        score = score_run(self.results, self.selected)
        score.source = str(self.path)
        triggers = self.path / TRIGGERS_FILE
        if triggers.is_file():
            score.triggers = _json(triggers)
        if score.outage:
            raise NoScore(f"{self.path}: an agent outage blocked cases; rerun it, it has no score")
        if score.hard is None:
            raise NoScore(f"{self.path}: no case got a verdict; it has no score")
        if score.coverage < min_coverage:
            raise NoScore(
                f"{self.path}: coverage {score.coverage:.3f} is below {min_coverage:g}"
                f" ({score.headline()})"
            )
        return score


def _json(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError("file not found", path=path) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"unreadable: {exc}", path=path) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"not JSON: {exc.msg}", path=path, line=exc.lineno, col=exc.colno
        ) from None


def _case_result(path: Path) -> CaseResult:
    data = _json(path)
    if not isinstance(data, dict):
        raise InputError("a case result is one JSON object", path=path)
    if data.get("status") not in ("pass", "fail", "blocked"):
        raise InputError(
            f"status {data.get('status')!r} is not pass, fail or blocked (an unfinished case?)",
            path=path,
            field="status",
        )
    # Fields the contract's minimal results may leave out.
    defaults = {
        "case_id": path.stem,
        "workspace_root": None,
        "thread_id": None,
        "session_path": None,
    }
    try:
        return CaseResult.model_validate({**defaults, **data})
    except ValidationError as exc:
        error = exc.errors()[0]
        field = ".".join(str(part) for part in error["loc"])
        raise InputError(error["msg"], path=path, field=field) from None


def read_run(path: Path) -> RunRecord:
    if not path.is_dir():
        raise InputError("run directory not found", path=path)
    manifest_path = path / MANIFEST_FILE
    if not manifest_path.is_file():
        raise not_a_run_dir(path)
    manifest = _json(manifest_path)
    if not isinstance(manifest, dict):
        raise InputError("manifest.json is one JSON object", path=manifest_path)
    state = manifest.get("run_state")
    if state in UNFINISHED_STATES:
        why = unfinished_why(path, str(manifest.get("run_id") or path.name), str(state))
        raise InputError(
            f"the run is {why}; only a finished run has a score to read",
            path=manifest_path,
            field="run_state",
        )
    results_dir = path / "case-results"
    results = {p.stem: _case_result(p) for p in sorted(results_dir.glob("*.json")) if p.is_file()}
    planned = manifest.get("resolved_case_ids")
    if planned is not None and not (
        isinstance(planned, list) and all(isinstance(c, str) for c in planned)
    ):
        raise InputError(
            "a list of case ids expected", path=manifest_path, field="resolved_case_ids"
        )
    order: list[str] = planned if planned else sorted(results)
    run_id = str(manifest.get("run_id") or path.name)
    missing = [c for c in order if c not in results]
    if missing:
        # An interrupted run of ours is finished by a resume: say so, it is the fix.
        resume = (
            f" (the run was interrupted: `agentic-eval run --resume {run_id}` finishes it)"
            if state == "interrupted"
            else ""
        )
        raise InputError(
            f"unfinished case(s) without a result: {', '.join(missing)}{resume}",
            path=results_dir,
        )
    if not order:
        raise InputError("the run has no case results", path=results_dir)
    return RunRecord(path, run_id, [results[c] for c in order], len(order), manifest)
