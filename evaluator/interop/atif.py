"""An attempt's recorded sessions as a Harbor ATIF v1.7 `trajectory.json`.

Built from the agent-neutral evidence every adapter gives (`adapters.normalize_session`), so one
converter serves every agent: the user's prompt as the agent received it, one agent step per model
turn (the tool calls issued before any of them answered, each with the observation that answered
it), the final answer, the session's token counts, and every sub-agent session the attempt's agent
spawned, embedded in `subagent_trajectories` and referenced from the spawn call's observation.
The evidence does not record the model's intermediate text or reasoning, so agent steps that only
call tools have an empty `message` (the specification allows it). Tool outputs are whole (read
again from the saved session file); tool inputs are the evidence's excerpt, cut at 2,000
characters.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evaluator.adapters import (
    adapter_for_agent,
    normalize_session,
    session_adapter,
    tool_text_source,
)
from evaluator.adapters.base import AgentAdapter
from evaluator.artifacts.models import Manifest
from evaluator.artifacts.redact import Redactor
from evaluator.evidence.jsonl import loads
from evaluator.evidence.records import SessionEvidence
from evaluator.interop.atif_model import (
    ATIF_VERSION,
    Agent,
    FinalMetrics,
    Observation,
    ObservationResult,
    Step,
    SubagentTrajectoryRef,
    ToolCall,
    Trajectory,
)
from evaluator.interop.runs import AttemptSource, write_redacted_json

TRAJECTORY_FILE = "trajectory.json"
_CUT_MARK = "… ["  # how the evidence ends an excerpt (evidence/normalize.py `excerpt`)


@dataclass
class Session:
    """One recorded session: its evidence, the file it was read from, where citations point."""

    evidence: SessionEvidence
    path: Path | None
    cite: str  # the run-relative file that `extra.record` ids belong to
    agent: str
    children: list[Session] = field(default_factory=list)
    reader: AgentAdapter | None = None  # the adapter that read `path`

    @property
    def trajectory_id(self) -> str:
        return self.evidence.thread_id or (self.path.stem if self.path else "session")


def read_session(path: Path, cite: str, agent: str | None = None) -> Session:
    """The session file `path` read by the adapter of `agent` (as the manifest names it), or,
    for an agent the manifest does not name, by the adapter that recognises the file."""
    reader = adapter_for_agent(agent) or session_adapter(path)
    evidence = normalize_session(path, adapter=reader)
    return Session(evidence, path, cite, agent or reader.name, reader=reader)


def nest(root: Session, others: list[Session]) -> Session:
    """Each spawned session under the session that spawned it (a child whose parent is not
    among them goes under the root)."""
    by_id = {root.trajectory_id: root} | {s.trajectory_id: s for s in others}
    for session in others:
        parent = by_id.get(session.evidence.parent_thread_id or "")
        if parent is None or parent is session or _descends(parent, session, by_id):
            parent = root
        parent.children.append(session)
    return root


def _descends(candidate: Session, ancestor: Session, by_id: dict[str, Session]) -> bool:
    seen: set[str] = set()
    current: Session | None = candidate
    while current is not None and current.trajectory_id not in seen:
        if current is ancestor:
            return True
        seen.add(current.trajectory_id)
        current = by_id.get(current.evidence.parent_thread_id or "")
    return False


def _whole_outputs(session: Session) -> dict[str, str]:
    """Every tool output whole, by the record id of its `tool_result`, from the session file."""
    source = tool_text_source(session.path, session.reader)
    if source is None:
        return {}
    refs = {
        (int(r.get("line") or 0), str(r.get("call_id"))): str(r["id"])
        for r in session.evidence.iter_records()
        if r.get("kind") == "tool_result"
    }
    return {
        text.ref: text.text
        for text in source.read(source.path, refs)
        if text.kind == "output" and text.ref
    }


def _arguments(text: str | None) -> tuple[dict[str, Any], bool]:
    """A call's arguments as an object, and whether the evidence cut them."""
    raw = text or ""
    try:
        value = loads(raw)
    except ValueError:
        value = None
    if isinstance(value, dict):
        return value, False
    return ({"input": raw} if raw else {}), _CUT_MARK in raw


def _final_metrics(usage: dict[str, Any] | None, steps: int) -> FinalMetrics:
    counts = {k: v for k, v in (usage or {}).items() if isinstance(v, int) and v >= 0}
    if "cache_read_input_tokens" in counts or "cache_creation_input_tokens" in counts:
        # Anthropic's input_tokens leave the cache out; ATIF's prompt tokens include it.
        prompt = sum(
            counts.get(k, 0)
            for k in ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
        )
        cached = counts.get("cache_read_input_tokens")
    else:
        prompt = counts.get("input_tokens", 0)
        cached = counts.get("cached_input_tokens")
    return FinalMetrics(
        total_prompt_tokens=prompt if counts else None,
        total_completion_tokens=counts.get("output_tokens"),
        total_cached_tokens=cached,
        total_steps=steps,
        extra={"token_usage": usage} if usage else None,
    )


@dataclass
class _Turn:
    timestamp: str | None
    calls: list[ToolCall] = field(default_factory=list)
    results: list[ObservationResult] = field(default_factory=list)


def _turns(
    evidence: SessionEvidence,
    outputs: dict[str, str],
    embedded: dict[str, str | None],
) -> list[_Turn]:
    """The session's tool calls grouped into model turns, each call with what answered it: a
    call after an answer came starts a new turn (the model saw the answer first)."""
    spawned = {spawn.call_id: spawn for spawn in evidence.spawns}
    turns: list[_Turn] = []
    owner: dict[str, _Turn] = {}
    for record in evidence.iter_records():
        kind = record.get("kind")
        if kind == "tool_call":
            call_id = str(record.get("call_id") or record["id"])
            if not turns or turns[-1].results or call_id in owner:
                turns.append(_Turn(record.get("timestamp")))
            arguments, cut = _arguments(record.get("text"))
            extra: dict[str, Any] = {"record": record["id"]}
            if cut:
                extra["arguments_cut"] = True
            turns[-1].calls.append(
                ToolCall(
                    tool_call_id=call_id,
                    function_name=str(record.get("tool") or "unknown"),
                    arguments=arguments,
                    extra=extra,
                )
            )
            owner[call_id] = turns[-1]
        elif kind == "tool_result":
            call_id = str(record.get("call_id") or "")
            turn = owner.get(call_id)
            result_extra: dict[str, Any] = {"record": record["id"]}
            if record.get("exit_code") is not None:
                result_extra["exit_code"] = record["exit_code"]
            result = ObservationResult(
                source_call_id=call_id if turn is not None else None,
                content=outputs.get(record["id"], record.get("text") or ""),
                subagent_trajectory_ref=_refs(spawned.get(call_id), embedded),
                extra=result_extra,
            )
            if turn is None:  # an output whose call the session did not record
                if not turns:
                    turns.append(_Turn(record.get("timestamp")))
                turn = turns[-1]
            turn.results.append(result)
    for call_id, spawn in spawned.items():  # a spawn the session recorded no answer to
        turn = owner.get(call_id)
        refs = _refs(spawn, embedded)
        if turn is not None and refs and all(r.source_call_id != call_id for r in turn.results):
            turn.results.append(
                ObservationResult(source_call_id=call_id, subagent_trajectory_ref=refs)
            )
    return turns


def build_trajectory(session: Session, model: str | None = None) -> Trajectory:
    """The trajectory of `session` and, embedded, of every session under it."""
    evidence = session.evidence
    children = [build_trajectory(child, model) for child in session.children]
    embedded = {child.trajectory_id or "": child.session_id for child in children}
    steps: list[Step] = []
    if evidence.first_user_message is not None:
        start = next(iter(evidence.of_kind("session_start")), None)
        steps.append(
            Step(
                step_id=1,
                timestamp=start.timestamp if start else None,
                source="user",
                message=evidence.first_user_message,
                extra={"record": start.id} if start else None,
            )
        )
    for turn in _turns(evidence, _whole_outputs(session), embedded):
        steps.append(
            Step(
                step_id=len(steps) + 1,
                timestamp=turn.timestamp,
                source="agent",
                message="",
                tool_calls=turn.calls or None,
                observation=Observation(results=turn.results) if turn.results else None,
            )
        )
    finals = evidence.of_kind("final_answer")
    if finals:
        final = finals[-1]
        # the evidence's answer is whole; its record holds an excerpt
        answer = evidence.final_answer
        steps.append(
            Step(
                step_id=len(steps) + 1,
                timestamp=final.timestamp,
                source="agent",
                message=answer if answer is not None else (final.text or ""),
                extra={"record": final.id},
            )
        )
    return Trajectory.model_validate(
        {
            "schema_version": ATIF_VERSION,
            "session_id": evidence.session_id or evidence.thread_id,
            "trajectory_id": session.trajectory_id,
            "agent": Agent(
                name=session.agent,
                version=evidence.cli_version or "unknown",
                model_name=model,
                extra={"originator": evidence.originator} if evidence.originator else None,
            ),
            "steps": steps,
            "notes": _notes(evidence),
            "final_metrics": _final_metrics(evidence.token_usage, len(steps)),
            "extra": {
                "agentic_eval": {
                    "evidence": session.cite,
                    "thread_id": evidence.thread_id,
                    "parent_thread_id": evidence.parent_thread_id,
                    "nickname": evidence.agent_nickname,
                    "complete": evidence.complete,
                }
            },
            "subagent_trajectories": children or None,
        }
    )


def _refs(spawn: Any, embedded: dict[str, str | None]) -> list[SubagentTrajectoryRef] | None:
    """The spawn call's reference to the embedded trajectory of the child it started."""
    if spawn is None or spawn.child_id not in embedded:
        return None
    return [
        SubagentTrajectoryRef(trajectory_id=spawn.child_id, session_id=embedded[spawn.child_id])
    ]


def _notes(evidence: SessionEvidence) -> str:
    notes = [
        "Converted by agentic-eval from the agent's own recorded session. Steps that only call"
        " tools have an empty message (the session's intermediate text is not kept); tool"
        " arguments are cut at 2,000 characters (extra.arguments_cut); extra.record names the"
        " evidence record each step, call and observation comes from."
    ]
    if not evidence.complete:
        notes.append("The session is incomplete: it recorded no end of its task.")
    missing = [s.child_id or s.call_id for s in evidence.spawns if s.child_id is None]
    if missing:
        notes.append(f"Spawned sub-agents without a recorded id: {', '.join(missing)}.")
    return " ".join(notes)


def attempt_sessions(source: AttemptSource, manifest: Manifest) -> Session | None:
    """The attempt's accepted session with every sub-agent session it saved, nested."""
    agent = manifest.agent
    if source.session_file is not None:
        root = read_session(source.session_file, source.relative("accepted-session.json"), agent)
    elif source.evidence_file is not None:  # a run saved before raw sessions were kept
        data = json.loads(source.evidence_file.read_text(encoding="utf-8"))
        evidence = SessionEvidence.from_json(data)
        root = Session(evidence, None, source.relative("accepted-session.json"), agent or "agent")
    else:
        return None
    # a sub-agent runs in the same agent CLI as the session that spawned it
    others = [
        read_session(path, source.relative(f"subagent-sessions/{path.name}"), root.agent)
        for path in source.subagent_session_files()
    ]
    return nest(root, others)


def attempt_trajectory(
    source: AttemptSource, manifest: Manifest, problems: list[str]
) -> Trajectory | None:
    """The attempt's trajectory; None when it recorded no session, or when its session could not
    be converted (then `problems` says why)."""
    try:
        session = attempt_sessions(source, manifest)
        return build_trajectory(session, manifest.model) if session is not None else None
    except Exception as exc:  # one unconvertible session must not cost a run its reports
        problems.append(
            f"{source.relative('attempt.json')}: no trajectory: {type(exc).__name__}: {exc}"
        )
        return None


def trajectory_path(source: AttemptSource, out: Path | None = None) -> Path:
    """Beside the attempt's evidence, or `out/<case>/attempt-NN/trajectory.json`."""
    if out is None:
        return source.directory / TRAJECTORY_FILE
    return out / source.case.case_id / f"attempt-{source.number:02d}" / TRAJECTORY_FILE


def write_trajectory(path: Path, trajectory: Trajectory, redact: Redactor) -> None:
    write_redacted_json(path, trajectory.to_json_dict(), redact)
