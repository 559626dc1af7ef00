"""Every agent's content signal of a trigger: the skill's `SKILL.md` body reached the agent
through a tool output.

A skill fired when its instructions reached the agent (docs/triggers.md, "What fired means"):
by the agent's own way of loading one (Claude Code's `Skill` tool, Gemini CLI's
`activate_skill`, in that agent's adapter), or by its body shown in a tool output, whatever
the agent did to see it. Codex has no skill tool: it lists each skill's name and description
(the front matter) and the agent loads one by reading the file, so this is its only signal.
Claude Code and Gemini CLI load a skill through their tool, but an agent of theirs that `cat`s
the file (by a copy, a link it made, `/proc/self/root/…`, a path a program computed) has the
instructions as surely (red team 20: before, only the tool counted there, and such a read on a
should-not-fire prompt was counted right).

Whether the body reached it is decided by content (`evidence/content.py`), so listing the skills
folder, printing only the front matter, or a command that names the file without showing it is
not a trigger; nor is an output of a command that read no file, or only other files
(`evidence/output_sources.py`). The output of a command that read a skill's file counts in the
forms a model reads as well as text too (`evidence/decoded.py`: `base64 SKILL.md`, `rev
SKILL.md`; red team 15).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import replace

from evaluator.evidence.content import SourceText, ToolText, find_shown
from evaluator.evidence.decoded import decoded_views
from evaluator.evidence.output_sources import (
    blind_calls,
    held_texts,
    reading_calls,
    resolved_placer,
)
from evaluator.evidence.records import SessionEvidence
from evaluator.evidence.tool_texts import ToolTextSource, session_texts
from evaluator.evidence.triggers import (
    SkillSource,
    Trigger,
    TriggerUndecidable,
    first_per_skill,
    tool_calls,
)


def body_shown_triggers(
    evidence: SessionEvidence,
    source: ToolTextSource | None,
    skills: list[SkillSource],
    *,
    only_signal: bool,
) -> list[Trigger]:
    """Each of `skills` whose body reached the agent in a tool output, at its first showing.
    `only_signal`: the agent has no other (Codex), so a session that records no tool outputs
    cannot tell (`TriggerUndecidable`); beside a skill tool, such a session shows no body."""
    texts = session_texts(evidence, source)
    if not texts.outputs_recorded:
        if only_signal:
            raise TriggerUndecidable("the session records no tool outputs")
        return []
    files = [SourceText(skill.path, skill.text) for skill in skills]
    # An output shows a skill only if its command could have read it: typed text decoded
    # (`echo B64 | base64 -d`), alone or beside a read of another file, loads no skill.
    blind = blind_calls(evidence)
    narrowed = (
        reading_calls(
            evidence, resolved_placer(evidence.cwd), [f.path for f in files], evidence.cwd
        )
        if evidence.cwd
        else {}
    )
    held = held_texts(texts.texts, texts.calls, blind, narrowed)
    held = _with_decoded(held, {f.path for f in files})
    shown = find_shown(files, held, evidence.first_user_message or "")
    calls = {
        str(record.get("call_id")): (number, str(record["id"]))
        for number, record in tool_calls(evidence.iter_records())
    }
    found: list[Trigger] = []
    for skill in skills:
        result = shown.get(skill.path)
        if result is None or result.first is None or result.first.ref is None:
            continue
        number, call_record = calls.get(texts.calls.get(result.first.ref, ""), (0, None))
        lines = len(result.shown)
        found.append(
            Trigger(
                skill.name,
                number,
                result.first.ref,
                call_record,
                detail=f"SKILL.md body shown ({lines} line{'s' * (lines != 1)},"
                f" {result.share():.0%} of it)",
            )
        )
    return first_per_skill(found)


def _with_decoded(texts: Iterable[ToolText], skills: set[str]) -> Iterator[ToolText]:
    """Each text, and after an output whose command read a skill's file and nothing the
    session does not show (`shows_only`), its decoded readings, cited as that output: what a
    command that read no skill file printed (text the agent typed, encoded) stays its own."""
    for text in texts:
        yield text
        if text.kind == "output" and text.shows_only and text.shows_only & skills:
            for view in decoded_views(text.text):
                yield replace(text, text=view)
