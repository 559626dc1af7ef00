"""What the agent under test is told: the case prompt verbatim plus the allowed boundary note.

The contract lets the evaluator add only that the workspace is the agent's only workspace, that it
must stay inside it, and that it answers a real user. Nothing about the case (title, assertions,
expected route) may ever reach the agent.
"""

from __future__ import annotations

BOUNDARY_NOTE = (
    "This directory is your only workspace: stay inside it and do not read or write anything"
    " outside it. Answer as you would answer a real user."
)

SUBAGENT_OPEN = "<<<AGENTIC_EVAL_PROMPT"
SUBAGENT_CLOSE = "AGENTIC_EVAL_PROMPT>>>"
# Every launcher prompt starts so; each sub-agent runner continues it with how its agent spawns
# the attempt (adapters/*/subagent.py), then the child prompt between the markers.
LAUNCHER_OPENING = "You launch one evaluation attempt and do nothing else."


# An in-session child inherits its parent's working directory (spawn_agent takes none), so its
# boundary note must name the workspace it is given.
IN_SESSION_NOTE = (
    "Your only workspace is the directory {workspace}: run every command there and do not read"
    " or write anything outside it. Answer as you would answer a real user."
)


def agent_prompt(user_prompt: str, *, boundary_note: bool = True) -> str:
    if not boundary_note:
        return user_prompt
    return f"{user_prompt}\n\n{BOUNDARY_NOTE}"


def in_session_prompt(user_prompt: str, workspace: str) -> str:
    """The message an evaluator agent gives the sub-agent it spawns for one attempt."""
    return f"{user_prompt}\n\n{IN_SESSION_NOTE.format(workspace=workspace)}"


def user_prompt_of(prompt: str) -> str:
    """The prompt as the case author wrote it: without either boundary note."""
    head, _, note = prompt.rpartition("\n\n")
    prefix, _, suffix = IN_SESSION_NOTE.partition("{workspace}")
    if note.startswith(prefix) and note.endswith(suffix):
        return head
    return prompt.removesuffix(f"\n\n{BOUNDARY_NOTE}")


def launcher_prompt(child_prompt: str, head: str) -> str:
    if not head.startswith(LAUNCHER_OPENING):
        raise ValueError("a launcher head starts with LAUNCHER_OPENING")
    return f"{head}\n{SUBAGENT_OPEN}\n{child_prompt}\n{SUBAGENT_CLOSE}"


def extract_launcher_payload(text: str) -> str | None:
    """The child prompt inside a launcher prompt, or None when `text` is not a launcher prompt."""
    if not text.startswith(LAUNCHER_OPENING):
        return None
    start = text.find(f"\n{SUBAGENT_OPEN}\n")
    end = text.rfind(f"\n{SUBAGENT_CLOSE}")
    if start < 0 or end < 0:
        return None
    return text[start + len(SUBAGENT_OPEN) + 2 : end]
