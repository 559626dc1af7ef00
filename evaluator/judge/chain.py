"""The judge chain: each entry is decided by the first step able to, in this fixed order.

Structured `checks` are the author's exact intent and come first; compiled `rules` decide prose
that is exact, and fail an entry whose compiled sentences already prove it failed when the rest
does not compile (`parts.py`); the `model` judge grades what is left (only when a grader is
configured). An entry none of them decides is `blocked: unclear-rule`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from evaluator.contract.models import AssertionEntry, Case
from evaluator.judge import graded as _graded  # noqa: F401  (registers the judge)
from evaluator.judge import rules as _rules  # noqa: F401  (registers the judge)
from evaluator.judge import structured as _structured  # noqa: F401  (registers the judge)
from evaluator.judge.base import JudgeContext, PendingEntry
from evaluator.judge.consultation import shown_files
from evaluator.judge.criteria import (
    Refusal,
    compile_sentence,
    compile_sentences,
    compiled_whole,
    refuse_sentence,
)
from evaluator.judge.graded import grade_text
from evaluator.judge.parts import EntryParts, alternatives, entry_parts
from evaluator.judge.registry import get_judge
from evaluator.judge.rules import PARTS_ACCOUNT, PARTS_HIDDEN_BY_AGENT
from evaluator.judge.skill_vocabulary import SkillVocabulary
from evaluator.judge.structured import runs_command
from evaluator.judge.verdict import AssertionResult, Provenance, SentenceRole, ShownFile
from evaluator.vocabulary import BlockedBy, BlockedReason, CheckStatus, Polarity, Route

JUDGE_CHAIN: tuple[str, ...] = ("checks", "rules", "model")


@dataclass
class CaseJudgement:
    status: CheckStatus
    blocked_reason: BlockedReason | None
    entries: list[AssertionResult] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # What reached the agent, for the report's account of a failure (None: not computed).
    shown: list[ShownFile] | None = None
    # For a blocked judgement: the agent's when one blocked entry is (its gaps may hide that
    # entry's failure, and one failed entry fails the case), else the eval's.
    blocked_by: BlockedBy | None = None


# Why a case without assertion entries is blocked, whatever the agent did.
NO_ASSERTIONS = (
    "the case has no assertions: nothing can pass or fail it"
    " (add expectations, assertions or checks)"
)


def pending_entries(case: Case) -> list[PendingEntry]:
    assertions = case.assertions
    entries: list[tuple[Polarity, int, AssertionEntry]] = [
        ("required", i, e) for i, e in enumerate(assertions.required)
    ]
    entries += [("forbidden", i, e) for i, e in enumerate(assertions.forbidden)]
    return [
        PendingEntry(
            f"{polarity}[{i}]",
            polarity,
            entry,
            intent=case.expected_output,
            verification=tuple(case.verification),
            variables=case.setup.declared_variables(),
        )
        for polarity, i, entry in entries
    ]


def unclear(pending: PendingEntry, account: list[str] | None = None) -> AssertionResult:
    """`account`: how far the entry's compiled sentences got (`rules.decide_parts`)."""
    return AssertionResult(
        summary=pending.entry.description,
        status="blocked",
        entry_id=pending.entry_id,
        polarity=pending.polarity,
        decided_by="unclear-rule",
        blocked_reason="unclear-rule",
        blocked_by="eval",
        notes=[
            "no check or compiled rule decides this entry and no judge model is configured;"
            " add `checks:` or run with a judge model",
            *(account or []),
        ],
    )


def judge_entries(case: Case, context: JudgeContext) -> list[AssertionResult]:
    everything = pending_entries(case)
    decided: dict[str, AssertionResult] = {}
    # Every judge that reads the workspace (a typed check, a sentence the rules compile, the
    # model's bundle) sees it as the agent left it: the entries that run a `command`, which may
    # run the agent's code and rewrite it, are judged after all the others. They hold typed
    # checks, so the checks judge decides each of them.
    last = {p.entry_id for p in everything if any(map(runs_command, p.entry.checks))}
    first = [p for p in everything if p.entry_id not in last]
    for group in (first, [p for p in everything if p.entry_id in last]):
        for name in JUDGE_CHAIN:
            waiting = [p for p in group if p.entry_id not in decided]
            if not waiting:
                break
            decided.update(get_judge(name).decide(waiting, context))
    accounts: dict[str, list[str]] = context.cache.get(PARTS_ACCOUNT, {})
    hidden_by_agent: set[str] = context.cache.get(PARTS_HIDDEN_BY_AGENT, set())
    results = []
    for pending in everything:
        account = accounts.get(pending.entry_id, [])
        result = decided.get(pending.entry_id)
        if result is None:
            result = unclear(pending, account)
        elif account and result.decided_by == "model":
            # The model decided the whole entry; the author still sees how far rules got.
            result = result.model_copy(update={"notes": [*result.notes, *account]})
        if result.status == "blocked" and pending.entry_id in hidden_by_agent:
            # A compiled sentence that fails the entry alone was blocked by the agent's own
            # gap: the failure may hide there, whatever else could not decide the rest.
            result = result.model_copy(update={"blocked_by": "agent"})
        results.append(result)
    return results


def judge_case(case: Case, context: JudgeContext) -> CaseJudgement:
    judgement = _judge(case, context)
    # A failure's account says which files the agent really saw; a pass reuses what its checks
    # computed and pays for nothing more.
    judgement.shown = shown_files(context, compute=judgement.status == "fail")
    return judgement


def _judge(case: Case, context: JudgeContext) -> CaseJudgement:
    entries = judge_entries(case, context)
    failed = [e for e in entries if e.status == "fail"]
    blocked = [e for e in entries if e.status == "blocked"]
    if failed:
        notes = [_failure_note(e) for e in failed]
        return CaseJudgement("fail", None, entries, notes)
    if blocked:
        reason = blocked[0].blocked_reason or "insufficient-evidence"
        notes = [
            f"{e.polarity} assertion blocked ({e.blocked_reason}): {e.summary}" for e in blocked
        ]
        by: BlockedBy = "agent" if any(e.blocked_by == "agent" for e in blocked) else "eval"
        return CaseJudgement("blocked", reason, entries, notes, blocked_by=by)
    if not entries:
        return CaseJudgement("blocked", "unclear-rule", entries, [NO_ASSERTIONS], blocked_by="eval")
    return CaseJudgement("pass", None, entries, [])


def _failure_note(entry: AssertionResult) -> str:
    if entry.polarity == "forbidden":
        return f"forbidden assertion observed: {entry.summary}"
    return f"required assertion failed: {entry.summary}"


@dataclass(frozen=True)
class EntryPlan:
    """How an entry will be decided, found without evidence (for `agentic-eval explain`)."""

    pending: PendingEntry
    decided_by: Route
    provenance: list[Provenance] = field(default_factory=list)
    grade_text: str | None = None  # what the model judge would be asked
    refused: list[Refusal] = field(default_factory=list)  # the sentences that did not compile
    # An entry that does not compile whole: its compiled sentences, and which can fail it alone.
    parts: EntryParts | None = None


def plan_entries(
    case: Case, grader_configured: bool, vocabulary: SkillVocabulary | None = None
) -> list[EntryPlan]:
    """The chain's routing, step by step, without running a check (`vocabulary`: the target
    skill's, as the run's judge context holds it)."""
    plans = []
    for pending in pending_entries(case):
        if pending.entry.checks:
            plans.append(EntryPlan(pending, "checks"))
            continue
        words = pending.vocabulary(vocabulary)
        outcomes = compile_sentences(pending.entry, pending.polarity, words)
        compiled = compiled_whole(outcomes)
        if compiled is not None and alternatives(pending.entry, pending.polarity) is None:
            plans.append(EntryPlan(pending, "rules", compiled.provenance))
            continue
        text = grade_text(pending.entry, pending.polarity)
        route: Route = "model" if grader_configured else "unclear-rule"
        parts = entry_parts(pending.entry, pending.polarity, outcomes=outcomes)
        if parts is None:
            refused = _refused(pending.entry, pending.polarity, words)
            plans.append(EntryPlan(pending, route, [], text, refused))
            continue
        if parts.deciding:
            route = "rules-or-model" if grader_configured else "rules-or-unclear"
        refused = [
            refuse_sentence(o.sentence, o.role, pending.polarity, words) for o in parts.uncompiled
        ]
        provenance = [p.provenance for p in parts.parts] + parts.complements
        plans.append(EntryPlan(pending, route, provenance, text, refused, parts))
    return plans


def _refused(
    entry: AssertionEntry, polarity: Polarity, vocabulary: SkillVocabulary | None
) -> list[Refusal]:
    sentences: list[tuple[SentenceRole, str]] = [
        ("pass_criteria", s) for s in entry.pass_criteria
    ] + [("fail_signals", s) for s in entry.fail_signals]
    if not sentences:
        sentences = [("description", entry.description)]
    return [
        refuse_sentence(s, role, polarity, vocabulary)
        for role, s in sentences
        if compile_sentence(s, vocabulary) is None
    ]
