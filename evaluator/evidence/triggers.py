"""What a trigger is, in every agent's terms: a skill that fired in a session, and when.

Each adapter decides from its own most direct signal (`AgentAdapter.skill_triggers`); what it
reports is agent-neutral, so trigger metrics and reports never name an agent.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaluator.evidence.jsonl import loads
from evaluator.evidence.records import SessionEvidence

_NAME = re.compile(r"^name:\s*['\"]?([^'\"\n]+?)['\"]?\s*$", re.M)


def skill_name(folder: Path) -> str:
    """The skill in `folder` by its front matter's `name`, else the folder's (agent-neutral: what
    an agent lists it as is its adapter's `skill_name`)."""
    return declared_skill_name(folder) or folder.name


def declared_skill_name(folder: Path) -> str | None:
    """The `name` of the front matter of `folder`'s SKILL.md, None without one."""
    try:
        text = (folder / "SKILL.md").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    return declared_name_in(text)


def declared_name_in(text: str) -> str | None:
    """The `name` of a SKILL.md text's front matter, None without one."""
    lines = text.splitlines()
    if lines and lines[0].strip() == "---":
        end = next((i for i, line in enumerate(lines[1:], 1) if line.strip() == "---"), None)
        if end is not None:
            found = _NAME.search("\n".join(lines[1:end]))
            if found:
                return found.group(1).strip() or None
    return None


@dataclass(frozen=True)
class SkillSource:
    """A skill installed for the attempt: its name (what the attempt's agent lists and invokes
    it by: its adapter's `skill_name`), its `SKILL.md` as the workspace held it (`path`,
    workspace-relative) and that file's text (what a read must show for the skill to count as
    loaded)."""

    name: str
    path: str
    text: str


@dataclass(frozen=True)
class Trigger:
    """One skill that fired: `call` is the ordinal of the tool call that fired it among the
    session's tool calls (1: the agent's first action; 0: no tool call, the user's `/name`
    command loaded it), `record` the evidence record that proves
    it (`msg-N`) and `call_record` the tool call's own record when it is another one."""

    skill: str
    call: int
    record: str
    call_record: str | None = None
    detail: str | None = None
    # The spawned session (a helper's) that fired it, as its file is kept beside the attempt
    # (`subagent-sessions/NAME`); None: the attempt's own session. `record` is of that session.
    session: str | None = None

    @property
    def first(self) -> bool:
        """Whether the skill fired on the agent's first tool call (before anything else), or
        before it (call 0: the user's `/name` command loaded it)."""
        return self.call <= 1

    def ref(self, prefix: str, record: str | None = None) -> str:
        """`record` (default: the proof) in the run, from `prefix`, the attempt's own session's
        (`case-artifacts/.../accepted-session.json`): a helper's record is in its own file."""
        where = prefix if self.session is None else f"{prefix.rsplit('/', 1)[0]}/{self.session}"
        return f"{where}#{record or self.record}"

    def to_json(self) -> dict[str, Any]:
        return {
            "skill": self.skill,
            "call": self.call,
            "first": self.first,
            "record": self.record,
            "call_record": self.call_record,
            "detail": self.detail,
        }


def tool_calls(records: Iterable[dict[str, Any]]) -> Iterator[tuple[int, dict[str, Any]]]:
    """(ordinal, record) of every `tool_call` record, in session order (ordinals from 1)."""
    number = 0
    for record in records:
        if record.get("kind") == "tool_call":
            number += 1
            yield number, record


def first_per_skill(triggers: Iterable[Trigger]) -> list[Trigger]:
    """Each skill's earliest trigger, in the order they fired."""
    earliest: dict[str, Trigger] = {}
    for trigger in triggers:
        kept = earliest.get(trigger.skill)
        if kept is None or trigger.call < kept.call:
            earliest[trigger.skill] = trigger
    return sorted(earliest.values(), key=lambda t: (t.call, t.skill))


def argument_value(arguments: object, key: str) -> str | None:
    """The text of `key` in a tool call's JSON arguments, as the records keep them: whole, or an
    excerpt cut short (then found by its `"key": "..."` pair)."""
    if not isinstance(arguments, str):
        return None
    try:
        loaded = loads(arguments)
        value = loaded.get(key) if isinstance(loaded, dict) else None
    except ValueError:
        pair = re.search(rf'"{re.escape(key)}"\s*:\s*"((?:[^"\\]|\\.)*)"', arguments)
        value = loads(f'"{pair.group(1)}"') if pair else None
    # As written: each agent's `name_of` resolves it as its CLI does (Claude Code trims with
    # JavaScript's rule, not Python's; Gemini CLI takes only an exact name).
    return value if isinstance(value, str) else None


def skill_tool_triggers(
    evidence: SessionEvidence,
    skills: Iterable[SkillSource],
    *,
    tool: str,
    argument: str,
    loaded: Callable[[str | None], bool],
    name_of: Callable[[str], str] = lambda name: name,
) -> list[Trigger]:
    """Triggers for an agent whose signal is a tool that loads a skill by name: each `tool`
    call whose `argument` names an installed skill (`name_of` normalises what it names) and
    whose call `loaded` says took effect (given the call's outcome)."""
    names = {skill.name for skill in skills}
    found: list[Trigger] = []
    for number, record in tool_calls(evidence.iter_records()):
        if record.get("tool") != tool:
            continue
        named = argument_value(record.get("text"), argument)
        name = name_of(named) if named is not None else None
        if name not in names or not loaded(evidence.call_outcomes.get(str(record.get("call_id")))):
            continue
        found.append(Trigger(str(name), number, str(record["id"]), detail=f"{tool} call"))
    return first_per_skill(found)


def refused_load(evidence: SessionEvidence, skill: str) -> str | None:
    """What the agent's CLI answered the first call that asked for `skill` by name (an argument
    that is the name, or `/name` as a user types it) and did not succeed: refused or failed, so
    nothing was loaded (Claude Code will not load on the model's request a skill whose front
    matter sets `disable-model-invocation`). None when no call asked for it, or every such call
    ran. Agent-neutral: a name, a failed outcome, the answer's text."""
    asked = {skill, f"/{skill}"}
    answers: dict[str, str] = {}
    denied: set[str] = set()
    calls: list[dict[str, Any]] = []
    for record in evidence.iter_records():  # one pass: the records stream from a file
        kind, call = record.get("kind"), str(record.get("call_id"))
        if kind in ("tool_result", "tool_denied") and record.get("call_id"):
            answers.setdefault(call, str(record.get("text") or ""))
        if kind == "tool_denied":
            denied.add(call)
        elif kind == "tool_call":
            calls.append(record)
    for record in calls:
        call = str(record.get("call_id"))
        try:
            arguments = loads(str(record.get("text") or ""))
        except ValueError:
            continue
        values = arguments.values() if isinstance(arguments, dict) else ()
        if not any(isinstance(v, str) and v.strip() in asked for v in values):
            continue
        if call in denied or evidence.call_outcomes.get(call) == "failed":
            return answers.get(call, "").strip() or "(no answer text)"
    return None


class TriggerUndecidable(Exception):
    """The session cannot say whether a skill fired (it records no tool outputs, for an agent
    whose signal is content that reached it): the attempt is blocked, never a miss."""
