"""`agent_spawned`: the session spawned a sub-agent with the given fork mode and message."""

from __future__ import annotations

import json
from typing import Any

from evaluator.contract.models import AgentSpawnedCheck
from evaluator.judge.base import JudgeContext
from evaluator.judge.checks.registry import register_check
from evaluator.judge.verdict import CheckVerdict, blocked, failed, passed

KIND = "agent_spawned"
SPAWN_TOOLS = ("spawn_agent", "multi_agent_v1.spawn_agent", "collaboration.spawn_agent")


def _arguments(text: str | None) -> dict[str, Any] | None:
    """The spawn's arguments, or None when the record kept only a cut excerpt of them."""
    try:
        loaded = json.loads(text or "")
    except ValueError:
        return None
    return loaded if isinstance(loaded, dict) else None


@register_check(KIND)
def agent_spawned(check: AgentSpawnedCheck, context: JudgeContext) -> CheckVerdict:
    spawns = [r for r in context.evidence.of_kind("tool_call") if r.tool in SPAWN_TOOLS]
    if not spawns:
        return failed(KIND, "no sub-agent was spawned")
    unreadable = []
    for record in spawns:
        arguments = _arguments(record.text)
        if arguments is None:
            unreadable.append(context.ref(record))
            continue
        message = str(arguments.get("message") or "")
        if check.fork_context is not None and arguments.get("fork_context") != check.fork_context:
            continue
        if check.message_contains is not None and check.message_contains not in message:
            continue
        return passed(KIND, f"spawned: {message[:80]!r}", [context.ref(record)])
    if unreadable:
        return blocked(KIND, "a spawn's arguments were too long to keep", unreadable)
    return failed(KIND, "no spawn matches", [context.ref(r) for r in spawns])
