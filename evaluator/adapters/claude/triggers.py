"""Claude Code's trigger signal: a `Skill` tool use naming the skill (its input `skill`, the
name from the skill listing; a leading `/` is what a user types and is dropped), named as
Claude Code resolves it: the name trimmed first (JavaScript's `trim`), then the `/` dropped; or
the skill's body shown in a tool output (`evidence/skill_body.py`: a `Read` or `cat` of its
file, by any path, hands the agent its instructions as surely: red team 20)."""

from __future__ import annotations

from evaluator.evidence.records import SessionEvidence
from evaluator.evidence.skill_body import body_shown_triggers
from evaluator.evidence.tool_texts import ToolTextSource
from evaluator.evidence.triggers import SkillSource, Trigger, first_per_skill, skill_tool_triggers

SKILL_TOOL = "Skill"
# What JavaScript's `String.prototype.trim` removes (its WhiteSpace and LineTerminator): Claude
# Code 2.1.197 launches `db-migrations` for `" db-migrations"`, `"db-migrations\u00a0"` or
# `"\ufeff/db-migrations"` alike (red team 15: the signal took each for another name, so a
# load on a should-not-fire prompt counted as right). Python's `str.strip` differs on both
# sides (it keeps U+FEFF, removes U+001C-U+001F and U+0085), hence the explicit set.
_JS_SPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
    "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)


def skill_name(named: str) -> str:
    """The skill a `Skill` call's `skill` argument names, as Claude Code resolves it."""
    return named.strip(_JS_SPACE).removeprefix("/")


def skill_triggers(
    evidence: SessionEvidence, source: ToolTextSource | None, skills: list[SkillSource]
) -> list[Trigger]:
    # A call Claude Code refused or that failed loaded nothing (no result yet: it ran).
    found = skill_tool_triggers(
        evidence,
        skills,
        tool=SKILL_TOOL,
        argument="skill",
        loaded=lambda outcome: outcome != "failed",
        name_of=skill_name,
    )
    # A skill the user's `/name` prompt loaded (`skill_loaded`) fired before any tool call.
    names = {skill.name for skill in skills}
    for record in evidence.iter_records():
        if record.get("kind") == "skill_loaded" and record.get("text") in names:
            detail = f"the user's /{record['text']} command"
            found.append(Trigger(str(record["text"]), 0, str(record["id"]), detail=detail))
    found += body_shown_triggers(evidence, source, skills, only_signal=False)
    return first_per_skill(found)
