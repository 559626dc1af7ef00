"""What `skill_invoked` reads: the target skill's firing in an attempt's session, by the agent's
own trigger signal (`AgentAdapter.skill_triggers`, as `agentic-eval triggers` reads it)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path, PurePosixPath

from evaluator.adapters.base import AgentAdapter
from evaluator.evidence import SessionEvidence
from evaluator.evidence.triggers import (
    SkillSource,
    Trigger,
    TriggerUndecidable,
    declared_name_in,
)
from evaluator.interop.runs import SUBAGENT_SESSIONS
from evaluator.judge.base import SkillTriggers
from evaluator.repo import LoadedTarget


def target_skill_triggers(
    adapter: AgentAdapter | None,
    target: LoadedTarget | None,
    source_workspace: Path,
    evidence: SessionEvidence,
    session_path: Path | None,
    *,
    restored: bool = False,
    spawned: Sequence[Path] = (),
) -> SkillTriggers | None:
    """The target skill's trigger reader for one session; None without an agent or a skill.
    The skill is read from the source (a run and a re-judge see the same text), at both places
    the workspace holds it: where the target puts it and where the runner links it for its
    agent to discover (`agents.base.link_skill`). `restored`: the evidence was read back from
    its saved JSON, which keeps no tool call's outcome (Gemini CLI's signal needs it), so the
    saved session file is read again, as the run read it; without that file nothing is told.
    `spawned`: the session files of the helpers the attempt spawned, whose firings are the
    attempt's too (`spawned_triggers`)."""
    if adapter is None or target is None:
        return None
    entry = target.entry_skill_path(source_workspace)
    try:
        text = entry.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    given = PurePosixPath(target.target.entry_skill)
    folder = given.parent if given.name == "SKILL.md" else given
    # As the agent names the skill the workspace holds at `folder` (its folder, or its SKILL.md's
    # `name`: the adapter's rule), which is what its trigger signal reports.
    name = adapter.skill_name(folder.name, declared_name_in(text))
    paths = {str(folder / "SKILL.md")}
    for found in adapter.discovery_dirs:
        if not found.startswith(("$", "~")):  # the workspace's own skills folder
            paths.add(str(PurePosixPath(found) / folder.name / "SKILL.md"))
    sources = [SkillSource(name, path, text) for path in sorted(paths)]

    def read() -> list[Trigger]:
        session = evidence
        if restored:
            if session_path is None or not session_path.is_file():
                raise TriggerUndecidable("the attempt's session file was not kept")
            session = adapter.normalize(session_path)
        found = adapter.skill_triggers(session, session_path, sources)
        return spawned_triggers(adapter, found, spawned, sources)

    return SkillTriggers(name, read)


def spawned_triggers(
    adapter: AgentAdapter,
    triggers: list[Trigger],
    spawned: Sequence[Path],
    sources: list[SkillSource],
) -> list[Trigger]:
    """`triggers` (the attempt's own session's) and, for each skill not among them, its first
    firing in a session the attempt spawned (a helper's): a skill a helper loaded fired in the
    attempt (red team 10: a helper loaded it on a prompt it should not fire for, and the
    parent's session alone said it never fired). Each skill once, the parent's firing first."""
    found = list(triggers)
    for path in spawned:
        if not path.is_file():
            raise TriggerUndecidable(f"the spawned session {path.name} was not kept")
        for trigger in adapter.skill_triggers(adapter.normalize(path), path, sources):
            if all(t.skill != trigger.skill for t in found):
                shown = f"{SUBAGENT_SESSIONS}/{path.name}"
                why = f"in the spawned session {shown}"
                detail = f"{why}; {trigger.detail}" if trigger.detail else why
                found.append(replace(trigger, session=shown, detail=detail))
    return found
