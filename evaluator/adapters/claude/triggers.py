"""Claude Code's trigger signal: a `Skill` tool use naming the skill (its input `skill`, the
name from the skill listing; a leading `/` is what a user types and is dropped)."""

from __future__ import annotations

import json
import re
from typing import Any

from evaluator.evidence.records import SessionEvidence
from evaluator.evidence.triggers import SkillSource, Trigger, first_per_skill, tool_calls

SKILL_TOOL = "Skill"
# The name in an input excerpt cut short (the records keep 2000 characters of it).
_NAME = re.compile(r'"skill"\s*:\s*"((?:[^"\\]|\\.)*)"')


def skill_triggers(evidence: SessionEvidence, skills: list[SkillSource]) -> list[Trigger]:
    names = {skill.name for skill in skills}
    found: list[Trigger] = []
    for number, record in tool_calls(evidence.iter_records()):
        if record.get("tool") != SKILL_TOOL:
            continue
        name = invoked_skill(record.get("text"))
        if name not in names:
            continue
        # A call Claude Code refused or that failed loaded nothing.
        if evidence.call_outcomes.get(str(record.get("call_id"))) == "failed":
            continue
        found.append(Trigger(str(name), number, str(record["id"]), detail="Skill tool use"))
    return first_per_skill(found)


def invoked_skill(arguments: Any) -> str | None:
    """The skill a `Skill` call's input (JSON text, maybe cut) names."""
    if not isinstance(arguments, str):
        return None
    try:
        loaded = json.loads(arguments)
        value = loaded.get("skill") if isinstance(loaded, dict) else None
    except ValueError:
        match = _NAME.search(arguments)
        value = json.loads(f'"{match.group(1)}"') if match else None
    return value.strip().removeprefix("/") if isinstance(value, str) else None
