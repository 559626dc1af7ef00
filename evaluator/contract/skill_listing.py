"""What a SKILL.md must hold for an agent to list the skill at all.

Every agent offers the model a list of its skills, each by its front matter's `description`.
Checked against the pinned CLIs (docs/first-hour.md, "30 November 2026"): Codex 0.169.0 refuses
to load a SKILL.md without front matter (`failed to load skill ...: missing YAML frontmatter
delimited by ---`) or without a non-empty `description` (`missing field `description``), and
Claude Code 2.1.197 and Gemini CLI 0.61.0 do not list such a skill either. A skill no agent lists
is never chosen: every trigger prompt misses, and a with-skill run measures an agent that was
not told the skill exists. A missing `name` is no such problem: each agent then lists the skill
under its folder's name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from evaluator.errors import InputError

_DESCRIPTION = re.compile(r"^description:[ \t]*(.*?)[ \t]*$", re.M)
_QUOTES = "'\""


@dataclass(frozen=True)
class ListingProblem:
    """Why agents will not list the skill: the line (1-based) and field it is about."""

    line: int
    field: str | None
    message: str


def listing_problem(text: str) -> ListingProblem | None:
    """Why no agent would list a skill whose SKILL.md is `text`, or None when one would."""
    lines = text.lstrip("\ufeff").splitlines()
    if not lines or lines[0].strip() != "---":
        return ListingProblem(
            1,
            None,
            "no front matter (a first line `---`, then `name:` and `description:`, then `---`):"
            " agents list a skill by its front matter's description, so none will offer this one",
        )
    end = next((i for i, line in enumerate(lines[1:], 1) if line.strip() == "---"), None)
    if end is None:
        return ListingProblem(
            1,
            None,
            "the front matter is never closed by a line `---`: agents will not list this skill",
        )
    front = "\n".join(lines[1:end])
    found = _DESCRIPTION.search(front)
    if found is None:
        return ListingProblem(
            1,
            "description",
            "missing from the front matter: agents list a skill by its description, so none"
            " will offer this one",
        )
    value = found.group(1).strip(_QUOTES + " \t")
    following = front[found.end() :].lstrip("\n").split("\n", 1)[0]
    # A value on the next, indented lines (a YAML continuation) is a description too.
    if not value and not (following[:1] in (" ", "\t") and following.strip()):
        line = 2 + front[: found.start()].count("\n")
        return ListingProblem(
            line,
            "description",
            "empty: agents list a skill by its description, so none will offer this one",
        )
    return None


def unlisted_skill(skill_md: Path) -> InputError | None:
    """The located problem of the SKILL.md at `skill_md` that keeps agents from listing it, or
    None (also when the file cannot be read: the loaders report a missing skill themselves)."""
    try:
        text = skill_md.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    problem = listing_problem(text)
    if problem is None:
        return None
    return InputError(problem.message, path=skill_md, line=problem.line, field=problem.field)
