"""Claude Code's trigger signal: a `Skill` tool use naming the skill (its input `skill`, the
name from the skill listing; a leading `/` is what a user types and is dropped)."""

from __future__ import annotations

from evaluator.evidence.records import SessionEvidence
from evaluator.evidence.triggers import SkillSource, Trigger, skill_tool_triggers

SKILL_TOOL = "Skill"


def skill_triggers(evidence: SessionEvidence, skills: list[SkillSource]) -> list[Trigger]:
    # A call Claude Code refused or that failed loaded nothing (no result yet: it ran).
    return skill_tool_triggers(
        evidence,
        skills,
        tool=SKILL_TOOL,
        argument="skill",
        loaded=lambda outcome: outcome != "failed",
        name_of=lambda name: name.removeprefix("/"),
    )
