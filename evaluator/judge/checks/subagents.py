"""Sub-agent checks: `agent_spawned` (a spawn with the given fork mode and message) and
`spawned_agents_named` (the final answer names each spawned sub-agent by its nickname)."""

from __future__ import annotations

import json
from typing import Any

from evaluator.contract.models import AgentSpawnedCheck, SpawnedAgentsNamedCheck
from evaluator.evidence.records import EvidenceRecord
from evaluator.judge.base import JudgeContext
from evaluator.judge.checks.registry import register_check
from evaluator.judge.verdict import CheckVerdict, blocked, failed, passed

KIND = "agent_spawned"
NAMED = "spawned_agents_named"
SPAWN_TOOLS = ("spawn_agent", "multi_agent_v1.spawn_agent", "collaboration.spawn_agent")


def _arguments(text: str | None) -> dict[str, Any] | None:
    """The spawn's arguments, or None when the record kept only a cut excerpt of them."""
    try:
        loaded = json.loads(text or "")
    except ValueError:
        return None
    return loaded if isinstance(loaded, dict) else None


def _spawns(context: JudgeContext) -> list[EvidenceRecord]:
    return [r for r in context.evidence.of_kind("tool_call") if r.tool in SPAWN_TOOLS]


@register_check(KIND)
def agent_spawned(check: AgentSpawnedCheck, context: JudgeContext) -> CheckVerdict:
    spawns = _spawns(context)
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


@register_check(NAMED)
def spawned_agents_named(check: SpawnedAgentsNamedCheck, context: JudgeContext) -> CheckVerdict:
    spawns = {r.call_id: r for r in _spawns(context) if r.call_id}
    if not spawns:
        return failed(NAMED, "no sub-agent was spawned")
    results = [r for r in context.evidence.of_kind("tool_result") if r.call_id in spawns]
    nicknames = [(r, str((_arguments(r.text) or {}).get("nickname") or "")) for r in results]
    if len(nicknames) < len(spawns) or not all(name for _, name in nicknames):
        return blocked(NAMED, "a spawn recorded no nickname", [context.ref(r) for r in results])
    answer = context.evidence.final_answer or ""
    missing = [name for _, name in nicknames if name not in answer]
    refs = [context.ref(r) for r, _ in nicknames] + [
        context.ref(r) for r in context.evidence.of_kind("final_answer")
    ]
    if missing:
        return failed(NAMED, f"the final answer does not name {', '.join(missing)}", refs)
    return passed(NAMED, f"named {', '.join(n for _, n in nicknames)}", refs)
