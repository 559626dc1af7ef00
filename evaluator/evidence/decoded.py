"""A tool output read back from the forms a model reads as well as text: base64 (and its
wrapped lines), each line reversed (`rev`), rot13 (`tr a-z n-za-m`). A command that read a file
and printed it so handed the model its content though no 8-word window of it is in the output
(red team 15: Codex given `base64 SKILL.md` or `rev SKILL.md` loaded the skill, and the trigger
signal said it had not). Only deterministic inverses: what they give back is in the output."""

from __future__ import annotations

import base64
import binascii
import codecs
import re

# Base64 text in words (linear: no nested repetition); `base64` wraps its lines at 76.
_BASE64_WORD = re.compile(r"[A-Za-z0-9+/]+={0,2}")
_MIN_RUN = 40


def _base64_runs(text: str) -> list[str]:
    """Consecutive base64 words joined while each keeps the 4-character alignment (a wrapped
    line), the last one padded or not; runs too short to hold words are left out."""
    runs: list[str] = []
    current: list[str] = []
    for word in _BASE64_WORD.findall(text):
        current.append(word)
        if len(word) % 4 or word.endswith("="):
            runs.append("".join(current))
            current = []
    if current:
        runs.append("".join(current))
    return [run for run in runs if len(run) >= _MIN_RUN]


def decoded_views(text: str) -> list[str]:
    """The output's other readings: the base64 runs decoded (as UTF-8, undecodable bytes
    replaced), its lines reversed, and its rot13; each only where it differs from the text."""
    views: list[str] = []
    decoded = []
    for run in _base64_runs(text):
        # Whole (padded), else its aligned part: a word of the text after it may have joined
        # the run (`exit`, `0`).
        for candidate in (
            run + "=" * (-len(run) % 4),
            run.rstrip("=")[: len(run.rstrip("=")) // 4 * 4],
        ):
            try:
                data = base64.b64decode(candidate, validate=True)
            except (binascii.Error, ValueError):
                continue
            decoded.append(data.decode("utf-8", errors="replace"))
            break
    if decoded:
        views.append("\n".join(decoded))
    views.append("\n".join(line[::-1] for line in text.split("\n")))
    views.append(codecs.encode(text, "rot13"))
    return [view for view in views if view != text]
