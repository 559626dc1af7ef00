"""A Markdown section of a file, by its heading: what `file_read`'s `section` names. Shared by the
judge (which lines of a file a check asks about) and `validate` (a section no file has)."""

from __future__ import annotations

import re

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")


def section_lines(text: str, heading: str) -> range | None:
    """Line numbers (1-based) of a Markdown section's body: after `heading` up to the next
    heading of the same or a higher level. `heading` is `## Routing`, or `Routing` for any
    level. None when the file has no such heading."""
    wanted = _HEADING.match(heading.strip())
    level = len(wanted.group(1)) if wanted else None
    title = wanted.group(2) if wanted else heading.strip()
    lines = text.splitlines()
    start: int | None = None
    found_level = 0
    fenced = False
    for index, line in enumerate(lines):
        if _FENCE.match(line):
            fenced = not fenced
            continue
        match = None if fenced else _HEADING.match(line)
        if match is None:
            continue
        depth = len(match.group(1))
        if start is not None and depth <= found_level:
            return range(start + 2, index + 1)
        if start is None and match.group(2) == title and level in (None, depth):
            start, found_level = index, depth
    return None if start is None else range(start + 2, len(lines) + 1)
