"""Characters that act on the reader's display instead of showing themselves, made visible.

The agent's text reaches files a person reads in a terminal (`cat transcript.md`, a CI log of
the step summary) or a CI system parses (JUnit XML). An escape sequence (ESC `[2K` erases the
line, `[1A` moves up), a C1 control, a bidirectional override, or a NUL is not text: in a
terminal it rewrites what the lines before it showed, and in XML 1.0 most C0 controls are not
allowed at all (the JUnit writer stopped with a traceback). Red team, round 12b.
"""

from __future__ import annotations

import re

# C0 but tab and the line ends (the writers handle those), DEL, C1, the bidirectional marks,
# embeddings, overrides and isolates, the two noncharacters and surrogates XML 1.0 excludes.
_CONTROLS = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
    "\ud800-\udfff\ufffe\uffff]"
)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def shown_controls(text: str) -> str:
    """`text` with each such character written as its escape (`\\x1b`, `\\u202e`)."""
    return _CONTROLS.sub(_escape, text)
