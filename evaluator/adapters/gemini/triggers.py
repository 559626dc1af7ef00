"""Gemini CLI's trigger signal: an `activate_skill` tool call naming the skill (its `name`), or
the skill's body shown in a tool output (`evidence/skill_body.py`: its instructions reached the
agent however it read them)."""

from __future__ import annotations

from evaluator.evidence.records import SessionEvidence
from evaluator.evidence.skill_body import body_shown_triggers
from evaluator.evidence.tool_texts import ToolTextSource
from evaluator.evidence.triggers import SkillSource, Trigger, first_per_skill, skill_tool_triggers

SKILL_TOOL = "activate_skill"


def skill_triggers(
    evidence: SessionEvidence, source: ToolTextSource | None, skills: list[SkillSource]
) -> list[Trigger]:
    # A call that failed or was cancelled loaded nothing; Gemini records every call's outcome.
    loads = skill_tool_triggers(
        evidence, skills, tool=SKILL_TOOL, argument="name", loaded=lambda outcome: outcome == "ok"
    )
    shown = body_shown_triggers(evidence, source, skills, only_signal=False)
    return first_per_skill([*loads, *shown])
