"""The skill a Claude Code `Skill` call names, as the CLI resolves it (red team 15,
docs/isolation.md): each spelling below was played through the real Claude Code 2.1.197, which
launched `db-migrations` or refused the name; the real trigger runs are in
tests/isolation/test_red_team_round15.py."""

from __future__ import annotations

import pytest

from evaluator.adapters.claude.triggers import skill_name

# What Claude Code 2.1.197 answered each `Skill` call's `skill` (played through the real CLI,
# red team 15): launched the skill `db-migrations`, or refused the name.
CLAUDE_SKILL_NAMES = {
    " db-migrations": True,
    "db-migrations ": True,
    "db-migrations\n": True,
    "\tdb-migrations": True,
    " /db-migrations": True,
    "db-migrations\u00a0": True,
    "db-migrations\ufeff": True,
    "\u2003db-migrations": True,
    "/db-migrations\u3000": True,
    "/ db-migrations": False,
    "DB-Migrations": False,
    "user:db-migrations": False,
    "db-migrations/": False,
    "db_migrations": False,
    "\x1fdb-migrations": False,
    "db-migrations\x85": False,
}


@pytest.mark.parametrize(("named", "launched"), CLAUDE_SKILL_NAMES.items())
def test_a_skill_call_names_the_skill_claude_code_launches(named: str, launched: bool) -> None:
    assert (skill_name(named) == "db-migrations") is launched
