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
from evaluator.vocabulary import CLAUDE_SPAWN_TOOLS, CODEX_SPAWN_TOOLS

KIND = "agent_spawned"
NAMED = "spawned_agents_named"
# Claude Code's sub-agent tool: its `prompt` is the message, and a sub-agent never inherits the
# parent's context (what Codex calls `fork_context: false`); it has no nickname.
SPAWN_TOOLS = CODEX_SPAWN_TOOLS + CLAUDE_SPAWN_TOOLS


def _message(record: EvidenceRecord, arguments: dict[str, Any]) -> str:
    key = "prompt" if record.tool in CLAUDE_SPAWN_TOOLS else "message"
    return str(arguments.get(key) or "")


def _fork_context(record: EvidenceRecord, arguments: dict[str, Any]) -> object:
    return False if record.tool in CLAUDE_SPAWN_TOOLS else arguments.get("fork_context")


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
        message = _message(record, arguments)
        if (
            check.fork_context is not None
            and _fork_context(record, arguments) != check.fork_context
        ):
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
    unnamed = [r for r in spawns.values() if r.tool in CLAUDE_SPAWN_TOOLS]
    if unnamed:
        return blocked(
            NAMED,
            "Claude Code's sub-agents have no nicknames to name",
            [context.ref(r) for r in unnamed],
        )
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
