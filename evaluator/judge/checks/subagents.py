"""Sub-agent checks: `agent_spawned` (a spawn with the given fork mode and message) and
`spawned_agents_named` (the final answer names each spawned sub-agent by its nickname)."""

from __future__ import annotations

from evaluator.clipping import clip
from evaluator.contract.models import AgentSpawnedCheck, SpawnedAgentsNamedCheck
from evaluator.evidence.records import SubagentSpawn
from evaluator.judge.base import JudgeContext
from evaluator.judge.checks.registry import register_check
from evaluator.judge.verdict import CheckVerdict, blocked, failed, passed

KIND = "agent_spawned"
NAMED = "spawned_agents_named"


def _ref(context: JudgeContext, record_id: str) -> str:
    return f"{context.ref_prefix}#{record_id}"


def _unrecorded(kind: str) -> CheckVerdict:
    return blocked(kind, "this evidence was saved before sub-agent spawns were recorded; run again")


@register_check(KIND)
def agent_spawned(check: AgentSpawnedCheck, context: JudgeContext) -> CheckVerdict:
    if not context.evidence.spawns_recorded:
        return _unrecorded(KIND)
    spawns = context.evidence.spawns
    if not spawns:
        return failed(KIND, "no sub-agent was spawned")
    cut: list[SubagentSpawn] = []
    for spawn in spawns:
        if check.fork_context is not None and spawn.fork_context != check.fork_context:
            continue
        if check.message_contains is not None and check.message_contains not in spawn.message:
            if spawn.message_cut:
                cut.append(spawn)
            continue
        return passed(KIND, f"spawned: {clip(spawn.message, 80)!r}", [_ref(context, spawn.record)])
    if cut:
        # A message too long to keep whole cannot prove what it lacks: never a guess.
        return blocked(
            KIND, "a spawn's message was too long to keep", [_ref(context, s.record) for s in cut]
        )
    return failed(KIND, "no spawn matches", [_ref(context, s.record) for s in spawns])


@register_check(NAMED)
def spawned_agents_named(check: SpawnedAgentsNamedCheck, context: JudgeContext) -> CheckVerdict:
    if not context.evidence.spawns_recorded:
        return _unrecorded(NAMED)
    spawns = context.evidence.spawns
    if not spawns:
        return failed(NAMED, "no sub-agent was spawned")
    unnamed = [s for s in spawns if not s.nickname]
    if unnamed:
        return blocked(
            NAMED,
            "a spawn recorded no nickname (this agent may not name its sub-agents)",
            [_ref(context, s.result_record or s.record) for s in unnamed],
        )
    answer = context.evidence.final_answer or ""
    missing = [s.nickname for s in spawns if s.nickname and s.nickname not in answer]
    refs = [_ref(context, s.result_record or s.record) for s in spawns] + [
        context.ref(r) for r in context.evidence.of_kind("final_answer")
    ]
    if missing:
        return failed(NAMED, f"the final answer does not name {', '.join(missing)}", refs)
    return passed(NAMED, f"named {', '.join(str(s.nickname) for s in spawns)}", refs)
