"""Which workspace files reached the agent: the content proof behind "consulted X".

Computed once per attempt from the workspace as the agent left it and the session's whole tool
inputs and outputs (`evidence/content.py` decides). Content decides whenever the session records
tool outputs; the command table decides only for a session that records none, and for a file
whose content cannot be compared (gone, too large, binary, or without a word in it).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from evaluator.contract.paths import path_matches
from evaluator.evidence.content import Shown, SourceText, find_shown
from evaluator.evidence.output_sources import (
    Placer,
    blind_calls,
    held_texts,
    reading_calls,
    resolved_placer,
)
from evaluator.evidence.tool_texts import session_texts
from evaluator.judge.base import JudgeContext
from evaluator.judge.verdict import ShownFile

MAX_FILE_BYTES = 1024 * 1024
# The index holds a few ints per word of these: a bound on the judge's memory, not the session's.
MAX_TOTAL_BYTES = 4 * 1024 * 1024
_CACHE_KEY = "consultation"


@dataclass(frozen=True)
class Consultation:
    shown: dict[str, Shown]  # workspace-relative path: what of it reached the agent
    texts: dict[str, str]  # the same files' text (sections are looked up in it)
    uncomparable: frozenset[str]  # files there whose content cannot be compared
    cut: bool  # some output was only an excerpt: it may have shown more
    calls: dict[str, str]  # output record id -> the tool call it answers

    def cite(self, context: JudgeContext, outputs: Iterable[str], pattern: str) -> list[str]:
        """The records a verdict cites for outputs that showed a file: each call's read of it
        (or its command, when the table saw no read), then the output itself."""
        refs: list[str] = []
        for output in outputs:
            call = self.calls.get(output)
            same = [r for r in context.evidence.records if call and r.call_id == call]
            reads = context.matching(
                [r for r in same if r.kind == "file_read_observed" and r.path], pattern
            )
            refs += [r.id for r in reads or [r for r in same if r.kind == "command_observed"]]
            refs.append(output)
        return [f"{context.ref_prefix}#{ref}" for ref in dict.fromkeys(refs)]

    def matching(self, pattern: str) -> tuple[list[Shown], list[str]]:
        """Files matching a check's path or glob: those content can decide (with words to
        recognise) and those it cannot."""
        comparable = [s for p, s in sorted(self.shown.items()) if path_matches(p, pattern)]
        unknown = [p for p in sorted(self.uncomparable) if path_matches(p, pattern)]
        unknown += [s.path for s in comparable if s.words == 0]
        return [s for s in comparable if s.words > 0], sorted(unknown)


def consultation(context: JudgeContext) -> Consultation | None:
    """What reached the agent, or None when content cannot decide at all: the session records
    no tool outputs, or the workspace is gone."""
    if _CACHE_KEY not in context.cache:
        context.cache[_CACHE_KEY] = _build(context)
    cached: Consultation | None = context.cache[_CACHE_KEY]
    return cached


def shown_files(context: JudgeContext, *, compute: bool) -> list[ShownFile] | None:
    """The workspace files whose content reached the agent, in the order it first saw them;
    None when content cannot tell (no tool outputs, the workspace gone), or when it was not
    computed yet and `compute` is false (a passing case does not pay for it)."""
    if not compute and _CACHE_KEY not in context.cache:
        return None
    found = consultation(context)
    if found is None:
        return None
    reached = [s for s in found.shown.values() if s.reached and s.words > 0]
    reached.sort(key=lambda s: (s.first.line, s.first.position) if s.first else (0, 0))
    return [
        ShownFile(
            path=s.path,
            share=round(s.share(), 3),
            first=f"{context.ref_prefix}#{s.first.ref}" if s.first and s.first.ref else None,
        )
        for s in reached
    ]


def _build(context: JudgeContext) -> Consultation | None:
    if not context.workspace_available:
        return None
    session = session_texts(context.evidence, context.session_texts)
    if not session.outputs_recorded:
        return None
    texts, uncomparable = _workspace_texts(context)
    written = first_writes(context)
    sources = [SourceText(path, text, written.get(path)) for path, text in texts.items()]
    evidence = context.evidence
    blind = blind_calls(evidence)
    narrowed = reading_calls(evidence, _placer(context), texts)
    for call, opened in _traced_opens(context, texts).items():
        if opened is None:
            narrowed.pop(call, None)  # it read what a call the trace did not see whole wrote
        else:
            narrowed[call] = narrowed[call] & opened if call in narrowed else opened
    seen = held_texts(session.texts, session.calls, blind, narrowed)
    shown = find_shown(sources, seen, context.evidence.first_user_message or "")
    return Consultation(shown, texts, frozenset(uncomparable), session.cut, session.calls)


def _workspace_texts(context: JudgeContext) -> tuple[dict[str, str], set[str]]:
    """The workspace's text files, smallest first within the index budget (a skill's documents
    before a fixture's data); the rest cannot be compared."""
    root = context.file_root
    found: list[tuple[int, str, Path]] = []
    uncomparable: set[str] = set()
    for directory, subdirs, names in os.walk(root):
        subdirs.sort()
        for name in names:
            path = Path(directory) / name
            try:
                info = path.lstat()
            except OSError:
                continue
            if stat.S_ISREG(info.st_mode):
                found.append((info.st_size, path.relative_to(root).as_posix(), path))
    texts: dict[str, str] = {}
    total = 0
    for size, relative, path in sorted(found):
        if (
            relative in context.without_content
            or size > MAX_FILE_BYTES
            or total + size > MAX_TOTAL_BYTES
        ):
            uncomparable.add(relative)
            continue
        try:
            data = path.read_bytes()
        except OSError:
            uncomparable.add(relative)
            continue
        if b"\0" in data:
            uncomparable.add(relative)  # binary: no words to show
            continue
        total += len(data)
        texts[relative] = data.decode("utf-8", errors="replace")
    return texts, uncomparable


def _traced_opens(context: JudgeContext, texts: dict[str, str]) -> dict[str, frozenset[str] | None]:
    """For each shell call the trace saw whole, the workspace files its processes used: no
    other file's content can be in its output, whatever program it ran (red team, round 4:
    the skill's script run beside SKILL.md's body typed and decoded). A file an earlier call
    wrote holds what that call used (red team 9: `cat SECRET > n.md`, then `cat n.md`); if the
    trace did not see that call whole, it may hold anything, and the call is not narrowed
    (None), not even by its command's words."""
    if not context.traced_calls:
        return {}
    root = str(context.workspace).rstrip("/")
    order = dict.fromkeys(
        r.call_id for r in context.evidence.records if r.call_id in context.traced_calls
    )
    # What each file a call wrote may hold (None: anything).
    held: dict[str, frozenset[str] | None] = {}
    opened: dict[str, frozenset[str] | None] = {}
    for call in order:
        traced = context.traced_calls[call]
        used: set[str] | None = None
        if traced.complete:
            used = {path for path in texts if f"{root}/{path}" in traced.paths}
            for path in traced.paths:
                earlier = held.get(path, frozenset())
                used = None if earlier is None or used is None else used | earlier
            opened[call] = None if used is None else frozenset(used)
        for path in traced.written:
            held[path] = None if used is None else frozenset(used)
    return opened


def _placer(context: JudgeContext) -> Placer:
    """Places a read path in the workspace as it is now (a restored snapshot included), each
    glob by what it matches."""
    one = resolved_placer(str(context.workspace), context.on_disk)

    def place(path: str) -> set[str] | None:
        found: set[str] = set()
        for concrete in context.expand(path):
            named = one(concrete)
            if named is None:
                return None
            found |= named
        return found

    return place


def first_writes(context: JudgeContext) -> dict[str, int]:
    """Per workspace file, the session line of the agent's first write that may have taken."""
    first: dict[str, int] = {}
    for record in context.writes():
        if context.outcome(record) == "failed":
            continue
        assert record.path is not None
        for concrete in context.expand(record.path):
            relative = context.relative(concrete)
            if relative is not None:
                first[relative] = min(first.get(relative, record.line), record.line)
    return first
