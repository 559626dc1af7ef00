"""Lone surrogates: text no UTF-8 file, regex engine or JSON parser of ours can take.

Two ways one reaches the evaluator (red team, round 12b; each ended the attempt `blocked
(environment)`, so a failing case left the score): `json.loads` decodes the escape `"\\ud800"`,
which a session may hold where the agent's text was (Claude Code and Gemini CLI write what the
model sent); and a name the agent gave a file need not be UTF-8 (`printf 'a\\377'`), which Python
holds with a surrogate for each byte that is not (`surrogateescape`). The session's text becomes
U+FFFD, what Node gave the program the CLI ran; a name the judge quotes becomes the visible text
of its escape (`\\udcff`), so two such names stay apart.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
REPLACEMENT = "\ufffd"

Replacement = str | Callable[[re.Match[str]], str]


def surrogate_escape(match: re.Match[str]) -> str:
    """A lone surrogate as the visible text of its escape (`\\udcff`)."""
    return f"\\u{ord(match.group()):04x}"


def shown(text: str) -> str:
    """`text` with each lone surrogate written as its escape: for a quoted file name."""
    return _LONE_SURROGATE.sub(surrogate_escape, text)


def well_formed(value: Any, replacement: Replacement = REPLACEMENT) -> Any:
    """`value` (as `json.loads` gives it, or a payload about to be written) with each lone
    surrogate in its strings, keys included, replaced (by U+FFFD unless told). Iterative: a
    decoded value may nest deep."""
    if isinstance(value, str):
        return _LONE_SURROGATE.sub(replacement, value)
    if not isinstance(value, (dict, list)):
        return value
    root: list[Any] = [value]
    stack: list[tuple[Any, Any, Any]] = [(root, 0, value)]
    while stack:
        parent, key, item = stack.pop()
        if isinstance(item, str):
            parent[key] = _LONE_SURROGATE.sub(replacement, item)
        elif isinstance(item, list):
            stack.extend((item, index, child) for index, child in enumerate(item))
        elif isinstance(item, dict):
            if any(isinstance(k, str) and _LONE_SURROGATE.search(k) for k in item):
                renamed = {well_formed(k, replacement): v for k, v in item.items()}
                item.clear()
                item.update(renamed)
            stack.extend((item, name, child) for name, child in item.items())
    return root[0]
