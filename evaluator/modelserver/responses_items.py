"""Small readers of Responses-API items, shared by the scripted server and the Codex adapter
(whose rollouts record the same items)."""

from __future__ import annotations

import json
from typing import Any

# User-role texts that Codex injects itself; a thread's real prompt is the first other one.
INJECTED_USER_PREFIXES = (
    "<environment_context>",
    "<user_instructions>",
    "<skills_instructions>",
    "<subagent_notification>",
    "<turn_aborted>",
    "<permissions instructions>",
    "# AGENTS.md instructions",
)


def is_injected(text: str) -> bool:
    return text.lstrip().startswith(INJECTED_USER_PREFIXES)


def content_text(content: Any) -> str:
    """A message's text: a plain string, or the joined `text` of its content parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


# What `json.loads` skips before a value.
_JSON_SPACE = " \t\n\r"


def output_text(output: Any) -> str:
    """A tool output's text: a string (older ones JSON-encode `{output, metadata}`), a list of
    `input_text` parts (code mode), or an object with `content`."""
    if isinstance(output, str):
        if not output.lstrip(_JSON_SPACE).startswith(("{", "[")):
            return output  # decodes to no object, and cannot nest: no need to try
        try:
            decoded = json.loads(output)
        except ValueError:
            return output
        if isinstance(decoded, dict) and "output" in decoded:
            return str(decoded.get("output", ""))
        return output
    if isinstance(output, list):
        return content_text(output)
    if isinstance(output, dict):
        return str(output.get("content", ""))
    return ""
