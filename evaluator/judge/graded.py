"""The `model` judge: every entry no check or rule decided, sent to the grader in one call.

What the grader says is mapped strictly: only a verified `met` of a required entry passes; a
`cannot-judge` is `blocked: insufficient-evidence`, never a pass.
"""

from __future__ import annotations

from collections.abc import Mapping

from evaluator.contract.models import AssertionEntry
from evaluator.judge.base import JudgeContext, PendingEntry
from evaluator.judge.consultation import consultation
from evaluator.judge.grading import GradeItem, GradeResult
from evaluator.judge.registry import register_judge
from evaluator.judge.verdict import AssertionResult, ModelGrade
from evaluator.vocabulary import Polarity, Status


def grade_text(entry: AssertionEntry, polarity: Polarity) -> str:
    """What the grader is asked to decide, in the author's own words."""
    if polarity == "required":
        sentences = entry.pass_criteria
    else:
        sentences = entry.fail_signals or entry.pass_criteria
    return "\n".join(sentences) if sentences else entry.description


def grade_item(
    pending: PendingEntry,
    shown: Mapping[str, frozenset[str]] | None = None,
    written: Mapping[str, frozenset[str]] | None = None,
    agents_code: frozenset[str] = frozenset(),
) -> GradeItem:
    scope = ", ".join(scope_name(s) for s in pending.entry.evidence_scope) or None
    text = grade_text(pending.entry, pending.polarity)
    return GradeItem(
        pending.entry_id,
        pending.polarity,
        text,
        scope,
        shown,
        intent=pending.intent,
        verification=pending.verification,
        written=written,
        agents_code=agents_code,
    )


# Upstream's evidence file names, as what they are here (the judge's bundle holds our records).
EVIDENCE_SCOPES = {
    "task-agent-raw.jsonl": "task-agent-raw.jsonl (the task agent's raw session: the records)",
}


def scope_name(scope: str) -> str:
    return EVIDENCE_SCOPES.get(scope, scope)


def shown_outputs(context: JudgeContext) -> dict[str, frozenset[str]] | None:
    """Per workspace file that reached the agent, the outputs that showed it: what a model's
    consultation claim must cite (None: the session records no outputs)."""
    reached = consultation(context)
    if reached is None:
        return None
    return {path: s.outputs for path, s in reached.shown.items() if s.reached}


def written_by_call(context: JudgeContext) -> dict[str, frozenset[str]] | None:
    """Per traced tool call, the paths the attempt wrote up to and with it (None: no trace)."""
    if context.traced_calls is None:
        return None
    return {call: traced.attempt_written for call, traced in context.traced_calls.items()}


def agents_code_calls(context: JudgeContext) -> frozenset[str]:
    """The traced tool calls whose processes ran code the attempt wrote (red team 19)."""
    calls = context.traced_calls or {}
    return frozenset(call for call, traced in calls.items() if traced.agents_code)


STATUS: dict[tuple[Polarity, str], Status] = {
    ("required", "met"): "pass",
    ("required", "not-met"): "fail",
    ("forbidden", "met"): "fail",  # the forbidden behaviour was observed
    ("forbidden", "not-met"): "pass",
}


def _result(pending: PendingEntry, grade: GradeResult, context: JudgeContext) -> AssertionResult:
    status = STATUS.get((pending.polarity, grade.verdict), "blocked")
    note = f"model judge: {grade.verdict}: {grade.rationale}"
    return AssertionResult(
        summary=pending.entry.description,
        status=status,
        evidence=[f"{context.ref_prefix}#{ref}" for ref in grade.refs],
        entry_id=pending.entry_id,
        polarity=pending.polarity,
        decided_by="model",
        blocked_reason="insufficient-evidence" if status == "blocked" else None,
        # A model that cannot tell says nothing about whose doing that is: the eval's.
        blocked_by="eval" if status == "blocked" else None,
        notes=[note] + ([grade.detail] if grade.detail else []),
        model=ModelGrade(
            verdict=grade.verdict,
            rationale=grade.rationale,
            refs=list(grade.refs),
            record_path=grade.record_path,
            detail=grade.detail,
        ),
    )


@register_judge
class ModelJudge:
    name = "model"

    def decide(
        self, entries: list[PendingEntry], context: JudgeContext
    ) -> dict[str, AssertionResult]:
        if context.grader is None or not entries:
            return {}
        record_dir = context.record_dir or context.workspace.parent / "judge"
        shown = shown_outputs(context)
        written = written_by_call(context)
        grades = context.grader.grade(
            [grade_item(p, shown, written, agents_code_calls(context)) for p in entries],
            context.evidence,
            context.workspace,
            record_dir,
        )
        by_id = {g.entry_id: g for g in grades}
        decided = {}
        for pending in entries:
            grade = by_id.get(pending.entry_id) or GradeResult(
                pending.entry_id, "cannot-judge", "", (), None, "the grader returned no verdict"
            )
            decided[pending.entry_id] = _result(pending, grade, context)
        return decided
