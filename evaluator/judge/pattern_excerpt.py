"""A check's pattern as a verdict's detail quotes it: whole when short, else a bounded excerpt.

A forbidden regex of 2 KB, or the pattern a command literal compiles to (3 KB for `rm -rf`), quoted
whole fills every report line that shows the detail (report.md, the HTML report, the run's
summary, JUnit, the skill-creator gradings). The detail quotes an excerpt with the pattern's
length (a command literal by the literal it was made from) and the verdict keeps each whole
pattern in `CheckVerdict.patterns`, in the case result JSON (docs/criteria.md, "Long patterns in
verdict notes").
"""

from __future__ import annotations

from typing import Any

from evaluator.contract.models import PATTERN_FIELDS
from evaluator.judge.command_pattern import command_literal
from evaluator.judge.verdict import CheckVerdict

# The longest pattern a detail quotes whole, and the part of a longer one it quotes.
MAX_PATTERN_SHOWN = 120
EXCERPT_CHARS = 80


def shown_pattern(pattern: str) -> str:
    """`/pattern/` when short; else its excerpt between slashes and its length."""
    if len(pattern) <= MAX_PATTERN_SHOWN:
        return f"/{pattern}/"
    literal = command_literal(pattern)
    if literal is not None:
        return f"/…/ (the pattern of the command `{literal}`, {len(pattern):,} characters)"
    return f"/{pattern[:EXCERPT_CHARS]}…/ ({len(pattern):,} characters)"


def excerpt(pattern: str) -> str:
    """The pattern itself when short; else its first characters and its length."""
    if len(pattern) <= MAX_PATTERN_SHOWN:
        return pattern
    return f"{pattern[:EXCERPT_CHARS]}… ({len(pattern):,} characters)"


def long_patterns(check: Any) -> list[str]:
    """The patterns of `check` too long to quote whole."""
    values = (getattr(check, name, None) for name in PATTERN_FIELDS.get(check.kind, ()))
    return [v for v in values if isinstance(v, str) and len(v) > MAX_PATTERN_SHOWN]


def bounded(check: Any, verdict: CheckVerdict) -> CheckVerdict:
    """`verdict` with each long pattern of `check` its detail quotes shown as an excerpt, and
    kept whole in `patterns`."""
    found = [p for p in long_patterns(check) if p in verdict.detail]
    if not found:
        return verdict
    detail = verdict.detail
    # Longest first: a pattern may hold a shorter one of the same check.
    for pattern in sorted(found, key=len, reverse=True):
        shown = shown_pattern(pattern)
        detail = detail.replace(f"/{pattern}/", shown).replace(pattern, shown.strip("/"))
    kept = [*verdict.patterns, *(p for p in found if p not in verdict.patterns)]
    return verdict.model_copy(update={"detail": detail, "patterns": kept})
