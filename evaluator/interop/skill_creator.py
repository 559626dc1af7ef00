"""Anthropic skill-creator's `grading.json`, written from our verdicts.

skill-creator's aggregation and viewer read `eval-<id>/<configuration>/run-<n>/grading.json`
with exactly the field names of its `references/schemas.md`; the models below forbid any other.
One grading per judged attempt: its assertion entries are the expectations (`passed` is our
`pass`; a forbidden entry is phrased "Forbidden: ..." and passes when its behaviour was not
observed), each one's `evidence` says what decided it and cites the session records. What
skill-creator has no field for keeps its documented optional homes: a blocked attempt or a
contained-but-unjudged concern goes to `user_notes_summary.needs_review`, an entry no rule or
judge could decide (`unclear-rule`) to `eval_feedback`.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from evaluator.artifacts.models import AssertionResult, CaseResult
from evaluator.artifacts.redact import Redactor
from evaluator.artifacts.report import decided_by_lines, entry_label
from evaluator.interop.atif_model import Trajectory
from evaluator.interop.runs import AttemptSource, write_redacted_json
from evaluator.prompting import user_prompt_of

SKILL_CREATOR_DIR = "skill-creator"  # inside the run dir: point skill-creator's tools here
DEFAULT_CONFIGURATION = "with_skill"
GRADING_FILE = "grading.json"
EVAL_METADATA_FILE = "eval_metadata.json"
_NUMBERED = re.compile(r"^(?:eval-)?(\d+)$")


class _Exact(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Expectation(_Exact):
    text: str
    passed: bool
    evidence: str


class Summary(_Exact):
    passed: int
    failed: int
    total: int
    pass_rate: float


class ExecutionMetrics(_Exact):
    tool_calls: dict[str, int]
    total_tool_calls: int
    total_steps: int
    errors_encountered: int
    output_chars: int
    transcript_chars: int


class Timing(_Exact):
    executor_duration_seconds: float
    # We do not time the judging of an attempt: null, never a made-up figure.
    grader_duration_seconds: float | None
    total_duration_seconds: float


class UserNotesSummary(_Exact):
    uncertainties: list[str]
    needs_review: list[str]
    workarounds: list[str]


class Suggestion(_Exact):
    assertion: str
    reason: str


class EvalFeedback(_Exact):
    suggestions: list[Suggestion]
    overall: str


class Grading(_Exact):
    expectations: list[Expectation]
    summary: Summary
    execution_metrics: ExecutionMetrics
    timing: Timing
    user_notes_summary: UserNotesSummary | None = None
    eval_feedback: EvalFeedback | None = None

    def to_json_dict(self) -> dict[str, Any]:
        """The optional blocks only when they hold something; a null timing stays (its key is
        part of the format)."""
        data = self.model_dump(mode="json")
        return {key: value for key, value in data.items() if value is not None}


class EvalMetadata(_Exact):
    eval_id: int | str
    eval_name: str
    prompt: str
    assertions: list[str]


def eval_id_of(case_id: str) -> int | str:
    """skill-creator numbers its evals: a case id that is a number (or `eval-N`) is that number."""
    match = _NUMBERED.match(case_id)
    return int(match.group(1)) if match else case_id


def eval_dir_name(case_id: str) -> str:
    return f"eval-{eval_id_of(case_id)}"


def expectation_text(entry: AssertionResult) -> str:
    return entry.summary if entry.polarity == "required" else f"Forbidden: {entry.summary}"


def expectation(entry: AssertionResult, session_ref: str) -> Expectation:
    """One entry as skill-creator grades it, its evidence citing the session records."""
    parts = [entry_label(entry)]
    parts += decided_by_lines(entry)
    if entry.decided_by == "model" and entry.model is not None and entry.model.rationale:
        parts.append(f"judge's rationale: {entry.model.rationale}")
    parts += entry.notes[:3]
    if entry.evidence:
        parts.append("session records: " + ", ".join(entry.evidence))
    else:
        parts.append(f"no record of {session_ref} shows it")
    return Expectation(
        text=expectation_text(entry), passed=entry.status == "pass", evidence="; ".join(parts)
    )


def _outputs_chars(source: AttemptSource, final_answer: str) -> int:
    """What the agent produced: the files it created or changed, and its answer."""
    total = len(final_answer)
    manifest = source.directory / "workspace" / "manifest.json"
    try:
        files = json.loads(manifest.read_text(encoding="utf-8")).get("files") or []
    except (OSError, ValueError):
        files = []
    for entry in files:
        if isinstance(entry, dict) and entry.get("change") in ("created", "changed"):
            total += int(entry.get("size") or 0)
    return total


def _chars(paths: list[Path]) -> int:
    total = 0
    for path in paths:
        try:
            total += len(path.read_text(encoding="utf-8", errors="replace"))
        except OSError:
            continue
    return total


def _walk(trajectory: Trajectory) -> list[Trajectory]:
    found = [trajectory]
    for child in trajectory.subagent_trajectories or []:
        found += _walk(child)
    return found


def execution_metrics(source: AttemptSource, trajectory: Trajectory | None) -> ExecutionMetrics:
    """Tool use over the attempt's session and every sub-agent session it spawned."""
    tools: Counter[str] = Counter()
    errors = 1 if source.record.agent_error else 0
    steps = 0
    final_answer = ""
    if trajectory is not None:
        steps = sum(1 for step in trajectory.steps if step.source == "agent")
        final = [s for s in trajectory.steps if s.source == "agent" and not s.tool_calls]
        final_answer = str(final[-1].message) if final else ""
        for each in _walk(trajectory):
            for step in each.steps:
                tools.update(call.function_name for call in step.tool_calls or [])
                for result in step.observation.results if step.observation else []:
                    code = (result.extra or {}).get("exit_code")
                    errors += 1 if isinstance(code, int) and code != 0 else 0
    transcripts = [p for p in [source.session_file] if p is not None]
    return ExecutionMetrics(
        tool_calls=dict(sorted(tools.items())),
        total_tool_calls=sum(tools.values()),
        total_steps=steps,
        errors_encountered=errors,
        output_chars=_outputs_chars(source, final_answer),
        transcript_chars=_chars(transcripts + source.subagent_session_files()),
    )


def grading(source: AttemptSource, trajectory: Trajectory | None) -> Grading | None:
    """The attempt's grading; None unless it was judged `pass` or `fail`. A blocked attempt (no
    session, an isolation violation, a crash, an undecidable rule) counts in no pass rate of
    ours, so it gets none in skill-creator's either: report.md (and a benchmark's notes) list it."""
    record = source.record
    if (
        record.assertions is None
        or record.interrupted
        or not record.valid
        or record.status not in ("pass", "fail")
    ):
        return None
    session_ref = source.relative("accepted-session.json")
    expectations = [expectation(entry, session_ref) for entry in record.assertions]
    passed = sum(1 for e in expectations if e.passed)
    total = len(expectations)
    needs_review = [
        f"{expectation_text(e)}: blocked ({e.blocked_reason}), counted as not passed"
        for e in record.assertions
        if e.status == "blocked" and e.blocked_reason != "unclear-rule"
    ]
    unclear = [e for e in record.assertions if e.blocked_reason == "unclear-rule"]
    seconds = float(record.duration_s or 0.0)
    return Grading(
        expectations=expectations,
        summary=Summary(
            passed=passed,
            failed=total - passed,
            total=total,
            pass_rate=round(passed / total, 4) if total else 0.0,
        ),
        execution_metrics=execution_metrics(source, trajectory),
        timing=Timing(
            executor_duration_seconds=seconds,
            grader_duration_seconds=None,
            total_duration_seconds=seconds,
        ),
        user_notes_summary=UserNotesSummary(
            uncertainties=list(record.mismatches), needs_review=needs_review, workarounds=[]
        )
        if needs_review or record.mismatches
        else None,
        eval_feedback=EvalFeedback(
            suggestions=[
                Suggestion(
                    assertion=expectation_text(e),
                    reason="no structured check or compiled rule decides it and no model judge"
                    " was configured (unclear-rule)",
                )
                for e in unclear
            ],
            overall="Add `checks:` to these entries or run with a model judge.",
        )
        if unclear
        else None,
    )


def eval_metadata(case: CaseResult, prompt: str | None) -> EvalMetadata:
    return EvalMetadata(
        eval_id=eval_id_of(case.case_id),
        eval_name=case.title or case.case_id,
        prompt=user_prompt_of(prompt) if prompt else "",
        assertions=[expectation_text(a) for a in case.assertions],
    )


def prompt_of(trajectory: Trajectory | None) -> str | None:
    """The prompt the agent received: its trajectory's first (user) step."""
    first = trajectory.steps[0] if trajectory is not None and trajectory.steps else None
    if first is None or first.source != "user" or not isinstance(first.message, str):
        return None
    return first.message


def grading_path(root: Path, case_id: str, configuration: str, attempt: int) -> Path:
    return root / eval_dir_name(case_id) / configuration / f"run-{attempt}" / GRADING_FILE


def write_grading(
    root: Path,
    configuration: str,
    source: AttemptSource,
    graded: Grading,
    prompt: str | None,
    redact: Redactor,
) -> Path:
    """`root/eval-<id>/<configuration>/run-<attempt>/grading.json`, and the eval's metadata."""
    path = grading_path(root, source.case.case_id, configuration, source.number)
    write_redacted_json(path, graded.to_json_dict(), redact)
    write_redacted_json(
        root / eval_dir_name(source.case.case_id) / EVAL_METADATA_FILE,
        eval_metadata(source.case, prompt),
        redact,
    )
    return path
