"""`skill_invoked`: the target skill fired in the session, by the agent's own trigger signal
(`AgentAdapter.skill_triggers`, the one `agentic-eval triggers` measures), never by a guess from
the words of a command: Claude Code's `Skill` tool naming it, or its `SKILL.md` body reaching
Codex or Gemini through a tool output."""

from __future__ import annotations

from evaluator.contract.models import SkillInvokedCheck
from evaluator.errors import InputError
from evaluator.evidence.triggers import Trigger, TriggerUndecidable
from evaluator.judge.base import JudgeContext
from evaluator.judge.checks.registry import register_check
from evaluator.judge.verdict import CheckVerdict, blocked, failed, passed

KIND = "skill_invoked"


@register_check(KIND)
def skill_invoked(check: SkillInvokedCheck, context: JudgeContext) -> CheckVerdict:
    watched = context.skill_triggers
    if watched is None:
        return blocked(KIND, "no trigger signal here: no target skill, or an agent without one")
    if check.skill.lower() != watched.skill.lower():  # the compiler reads names lower-cased
        # Only the target skill is installed and watched: another one's firing is not known.
        return blocked(KIND, f"only the target skill {watched.skill!r} is watched")
    try:
        if KIND not in context.cache:  # read once per attempt, however many checks ask
            context.cache[KIND] = watched.read()
        triggers: list[Trigger] = context.cache[KIND]
    except (TriggerUndecidable, InputError) as exc:
        return blocked(KIND, f"the session cannot tell a trigger: {exc}")
    fired = next((t for t in triggers if t.skill == watched.skill), None)
    if fired is None:
        return failed(KIND, f"{watched.skill} never fired")
    refs = [fired.ref(context.ref_prefix, r) for r in (fired.call_record, fired.record) if r]
    where = f" of {fired.session}" if fired.session else ""
    at = f"tool call {fired.call}" if fired.call else f"the start ({fired.detail})"
    return passed(KIND, f"{watched.skill} fired at {at}{where}", refs)
