"""What the agent said to the user: a text in any assistant message of the session.

"Mentions `X`" with no answer named is about the whole conversation, not only its last message:
an agent that names the flag while it works and ends with "Done." has mentioned it. The messages
are the neutral evidence every agent's normaliser fills (`SessionEvidence.messages`: Codex's
assistant messages, Claude Code's text blocks, Gemini CLI's model texts), plus the final answer.
Tool calls and their output are not said to the user and are not searched. Evidence saved before
messages were recorded knows only the final answer: a text found there passes, its absence
proves nothing about the rest (blocked).
"""

from __future__ import annotations

from evaluator.contract.models import AgentSaidCheck
from evaluator.judge.base import JudgeContext
from evaluator.judge.checks.registry import register_check
from evaluator.judge.verdict import CheckVerdict, blocked, failed, passed

KIND = "agent_said"


@register_check(KIND)
def said(check: AgentSaidCheck, context: JudgeContext) -> CheckVerdict:
    evidence = context.evidence
    needle = check.text if check.case_sensitive else check.text.lower()

    def holds(text: str) -> bool:
        return needle in (text if check.case_sensitive else text.lower())

    answer_refs = [context.ref(r) for r in evidence.of_kind("final_answer")]
    if evidence.final_answer is not None and holds(evidence.final_answer):
        return passed(KIND, f"the final answer contains {check.text!r}", answer_refs)
    for line, text in evidence.messages:
        if holds(text):
            return passed(
                KIND, f"the agent's message at session line {line} contains {check.text!r}"
            )
    if not evidence.messages_recorded:
        return blocked(
            KIND,
            "this evidence was saved before the agent's messages were recorded: only its final"
            f" answer is known, and it lacks {check.text!r}",
        )
    if not evidence.messages and evidence.final_answer is None:
        return failed(KIND, "the agent said nothing to the user")
    count = len(evidence.messages)
    return failed(
        KIND,
        f"no message of the agent ({count} in the session, the final answer too) contains"
        f" {check.text!r}",
        answer_refs,
    )
