"""Gemini CLI's trigger signal: an `activate_skill` tool call naming the skill (its `name`)."""

from __future__ import annotations

from evaluator.evidence.records import SessionEvidence
from evaluator.evidence.triggers import SkillSource, Trigger, skill_tool_triggers

SKILL_TOOL = "activate_skill"


def skill_triggers(evidence: SessionEvidence, skills: list[SkillSource]) -> list[Trigger]:
    # A call that failed or was cancelled loaded nothing; Gemini records every call's outcome.
    return skill_tool_triggers(
        evidence, skills, tool=SKILL_TOOL, argument="name", loaded=lambda outcome: outcome == "ok"
    )
