"""The `rules` judge: entries whose every prose sentence compiles to checks (`criteria.py`), and
the failures the compiled sentences of the other entries prove alone (`parts.py`)."""

from __future__ import annotations

from evaluator.judge.base import JudgeContext, PendingEntry
from evaluator.judge.checks.attempt_sessions import run_check
from evaluator.judge.criteria import compile_sentences, compiled_whole
from evaluator.judge.entry import entry_result
from evaluator.judge.parts import EntryParts, alternatives, entry_parts
from evaluator.judge.registry import register_judge
from evaluator.judge.verdict import AssertionResult, CheckVerdict
from evaluator.vocabulary import Polarity

# `JudgeContext.cache` key: per entry id, how far the compiled parts got when they did not
# decide (the later step's result, or `unclear-rule`, carries it as notes).
PARTS_ACCOUNT = "rules.parts"
# `JudgeContext.cache` key: the entry ids whose compiled parts did not decide because the agent's
# own gap blocked a part that would decide the entry alone: its failure may hide there, so the
# entry left undecided (unclear-rule, or a model that cannot tell) is the agent's.
PARTS_HIDDEN_BY_AGENT = "rules.parts.agent"


@register_judge
class CompiledRulesJudge:
    name = "rules"

    def decide(
        self, entries: list[PendingEntry], context: JudgeContext
    ) -> dict[str, AssertionResult]:
        decided = {}
        accounts: dict[str, list[str]] = {}
        context.cache[PARTS_ACCOUNT] = accounts
        context.cache[PARTS_HIDDEN_BY_AGENT] = set()
        for pending in entries:
            vocabulary = pending.vocabulary(context.skill_vocabulary)
            outcomes = compile_sentences(pending.entry, pending.polarity, vocabulary)
            compiled = compiled_whole(outcomes)
            if compiled is not None and alternatives(pending.entry, pending.polarity) is None:
                verdicts = [run_check(check, context) for check in compiled.checks]
                result = entry_result(pending, "rules", verdicts, compiled.provenance)
                if result.status == "blocked" and result.blocked_reason == "unclear-rule":
                    # A compiled sentence leaves this session to judgement ("rather than X"
                    # beside a session that did X too): the model judge decides, or nobody.
                    accounts[pending.entry_id] = [
                        f"rules leave it to judgement: {'; '.join(result.notes)}"
                    ]
                    continue
                decided[pending.entry_id] = result
                continue
            parts = entry_parts(pending.entry, pending.polarity, outcomes=outcomes)
            if parts is None:
                continue
            failure, account = decide_parts(pending, parts, context)
            if failure is not None:
                decided[pending.entry_id] = failure
            else:
                accounts[pending.entry_id] = account
        return decided


def decide_parts(
    pending: PendingEntry, parts: EntryParts, context: JudgeContext
) -> tuple[AssertionResult | None, list[str]]:
    """The failure the entry's compiled parts prove alone (decided by `rules`, citing only the
    parts that prove it), or None with an account of each part for the step that decides."""
    verdicts = [run_check(part.check, context) for part in parts.parts]
    alone = [
        entry_result(pending, "rules", [v], [p.provenance])
        for p, v in zip(parts.parts, verdicts, strict=True)
    ]
    proving = [
        (part, verdict)
        for part, verdict, result in zip(parts.parts, verdicts, alone, strict=True)
        if part.decides and result.status == "fail"
    ]
    if proving:
        failure = entry_result(
            pending, "rules", [v for _, v in proving], [p.provenance for p, _ in proving]
        )
        failure.notes.append(_why_enough(pending.polarity, len(parts.uncompiled)))
        return failure, []
    if any(
        part.decides and result.blocked_by == "agent"
        for part, result in zip(parts.parts, alone, strict=True)
    ):
        context.cache.setdefault(PARTS_HIDDEN_BY_AGENT, set()).add(pending.entry_id)
    account = ["rules could not decide it from the sentences that compiled:"]
    for part, result in zip(parts.parts, alone, strict=True):
        said = f'{part.provenance.role} "{part.provenance.sentence}"'
        state = _state(pending.polarity, part.provenance.role, result.status, result.checks)
        if result.status == "fail" and part.blocker is not None:
            state += f", which decides nothing alone: {part.blocker}"
        account.append(f"{said} {state}")
    return None, account


def _why_enough(polarity: Polarity, uncompiled: int) -> str:
    if uncompiled == 0:
        return (
            "every sentence compiled, but the description offers alternatives to the pass"
            " criteria, not to the fail signals: a fail signal seen fails the entry"
        )
    if polarity == "forbidden":
        return (
            f"{uncompiled} sentence(s) of the entry do not compile; they cannot undo this: a"
            " forbidden entry is observed when any of its sentences is"
        )
    return (
        f"{uncompiled} sentence(s) of the entry do not compile; they cannot undo this: a required"
        " entry passes only when each pass criterion holds and no fail signal is seen"
    )


def _state(polarity: Polarity, role: str, status: str, checks: list[CheckVerdict]) -> str:
    if status == "blocked":
        detail = checks[0].detail if checks else ""
        return f"is blocked ({detail})" if detail else "is blocked"
    if polarity == "forbidden":
        return "is observed" if status == "fail" else "is not observed"
    if role == "fail_signals":
        return "is seen" if status == "fail" else "is not seen"
    return "holds" if status == "pass" else "does not hold"
