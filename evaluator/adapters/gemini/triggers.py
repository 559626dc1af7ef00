"""Gemini CLI's trigger signal: an `activate_skill` tool call naming the skill (its `name`)."""

from __future__ import annotations

import json
import re

from evaluator.evidence.records import SessionEvidence
from evaluator.evidence.triggers import SkillSource, Trigger, first_per_skill, tool_calls

SKILL_TOOL = "activate_skill"
# The name in an argument excerpt cut short (the records keep 2000 characters of it).
_NAME = re.compile(r'"name"\s*:\s*"((?:[^"\\]|\\.)*)"')


def skill_triggers(evidence: SessionEvidence, skills: list[SkillSource]) -> list[Trigger]:
    names = {skill.name for skill in skills}
    found: list[Trigger] = []
    for number, record in tool_calls(evidence.iter_records()):
        if record.get("tool") != SKILL_TOOL:
            continue
        name = activated_skill(record.get("text"))
        if name not in names:
            continue
        # A call that failed or was cancelled loaded nothing.
        if evidence.call_outcomes.get(str(record.get("call_id"))) != "ok":
            continue
        found.append(Trigger(str(name), number, str(record["id"]), detail="activate_skill call"))
    return first_per_skill(found)


def activated_skill(arguments: object) -> str | None:
    if not isinstance(arguments, str):
        return None
    try:
        loaded = json.loads(arguments)
        value = loaded.get("name") if isinstance(loaded, dict) else None
    except ValueError:
        match = _NAME.search(arguments)
        value = json.loads(f'"{match.group(1)}"') if match else None
    return value.strip() if isinstance(value, str) else None
