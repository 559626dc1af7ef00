"""A text cut to a length for a record or a message, with the cut marked.

The redactor (`artifacts/redact.py`) replaces a secret's part beside an ellipsis, the mark of a
text cut short: a cut without it leaves the part of a secret before the cut in the artifact
(red team 10b: the agent's key padded so a record's cut fell inside it)."""

from __future__ import annotations

ELLIPSIS = "\u2026"


def clip(text: str, limit: int) -> str:
    """`text`, or its first `limit` characters followed by an ellipsis."""
    return text if len(text) <= limit else text[:limit] + ELLIPSIS
