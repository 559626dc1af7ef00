"""Which files a tool call's output can show: what the content proof (`judge/consultation.py`)
and the trigger signal's content (`evidence/skill_body.py`) both hold an output to.

A shell command that is fully understood and read or ran no file but the agent's own text
(`echo TEXT | base64 -d`, `printf '\\x..'`, beside a `cd`, an `ls`, a `2>/dev/null`) is *blind*:
its output is text the agent typed, however encoded, and shows no file. One whose only accesses
that may show content are reads of files that exist shows only those files (red team, round 4:
`cat notes.md; echo B64 | base64 -d` printed SKILL.md's words beside a read of another file).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace

from evaluator.evidence.content import ToolText
from evaluator.evidence.records import SessionEvidence

# Accesses that may bring a file's content into a command's output (a write, a listing, a
# `stat`, a `cd` show none).
SHOWING = frozenset({"read", "exec", "path"})

# The workspace-relative files or folders an observed read path names now (symlinks resolved;
# "" for the workspace itself), or None when it cannot be placed in the workspace.
Placer = Callable[[str], "set[str] | None"]


def _shell_calls(evidence: SessionEvidence) -> dict[str, str]:
    """Shell commands by call id (their `command_observed` record id); patches are not."""
    return {
        r.call_id: r.id
        for r in evidence.of_kind("command_observed")
        if r.call_id and not (r.command or "").lstrip().startswith("apply_patch")
    }


# The tools of Codex's sub-agent namespaces that answer with other agents' states and messages
# (`wait_agent` hands over a helper's final message), by their last name part.
_AGENT_TOOLS = frozenset(
    {
        "wait_agent",
        "close_agent",
        "resume_agent",
        "send_input",
        "list_agents",
        "send_message",
        "followup_task",
        "interrupt_agent",
    }
)


def relay_calls(evidence: SessionEvidence) -> set[str]:
    """Calls whose output is another agent's words: a spawn answered with the helper's reply
    (Claude Code's Agent tool, Gemini CLI's `invoke_agent`) and Codex's tools that hand over a
    helper's messages. A helper's reply is text its model wrote: it shows a file only as far as
    the helper's own session showed it, which is judged there (`JudgeContext.spawned`; red team
    10: a helper typed a file's words from memory and "consulted the file" passed)."""
    spawns = {spawn.call_id for spawn in evidence.spawns}
    # (Tool calls are kept in the spill file only: judging needs none of them otherwise.)
    agents = {
        str(r["call_id"])
        for r in evidence.iter_records()
        if r.get("kind") == "tool_call"
        and r.get("call_id")
        and str(r.get("tool") or "").rsplit(".", 1)[-1] in _AGENT_TOOLS
    }
    return spawns | agents


def blind_calls(evidence: SessionEvidence) -> set[str]:
    """Understood shell commands that read or ran no file but the agent's own text, and calls
    whose output is another agent's words (`relay_calls`)."""
    commands = _shell_calls(evidence)
    opaque = {ref for ref, _ in evidence.opaque}
    touching = {
        r.call_id
        for r in evidence.records
        if r.call_id
        and r.kind == "file_read_observed"
        and (r.access in SHOWING or r.access is None)
        and not r.own_text
    }
    return {
        call for call, record in commands.items() if call not in touching and record not in opaque
    } | relay_calls(evidence)


def reading_calls(
    evidence: SessionEvidence, place: Placer, files: Iterable[str], workspace: str | None = None
) -> dict[str, frozenset[str]]:
    """Understood shell commands whose only accesses that may show content are reads `place`
    can put in the workspace: the `files` (workspace-relative) their output can show. A run of a
    program, a path in a role the table does not know, an opaque construct, or a read the
    workspace cannot place (gone, outside) leaves the output free to show any file.

    A file an earlier call of the session wrote holds what that call could show (red team 9:
    `cp SKILL.md n.md`, then `cat n.md`, showed the skill's body from `n.md` alone): a read of it,
    or of a folder holding it, can show the files its writer read too, and anything when the
    writer is not understood. Text the agent typed (a blind command, a patch, a file tool) is
    its own, as before.

    `workspace` (the folder `place` resolves under): each of the `files` also goes by where the
    workspace resolves it, so a read through a link to it is a read of it."""
    commands = _shell_calls(evidence)
    opaque = {ref for ref, _ in evidence.opaque}
    order: dict[str, None] = {}
    reads: dict[str, list[str | None]] = {}  # per call: each showing read's path (None: not one)
    # per call: every path it read from, shown or not (`cat SKILL.md > n.md` shows nothing)
    sources: dict[str, list[str]] = {}
    writes: dict[str, list[str]] = {}
    for record in evidence.records:
        call = record.call_id
        if call is None or record.own_text:
            continue
        if record.kind == "file_write_observed" and record.path:
            order.setdefault(call)
            writes.setdefault(call, []).append(record.path)
        if call not in commands or record.kind != "file_read_observed":
            continue
        order.setdefault(call)
        if record.path and record.access != "list":  # a listing holds names, not content
            sources.setdefault(call, []).append(record.path)
        if record.access not in SHOWING and record.access is not None:
            continue
        reads.setdefault(call, []).append(record.path if record.access == "read" else None)
    # What each file the session wrote may hold: the files its writer read (None: any).
    written: list[tuple[str, frozenset[str] | None]] = []

    def may_show(paths: Iterable[str | None]) -> set[str] | None:
        found: set[str] = set()
        for path in paths:
            placed = place(path) if path else None
            if path is None or placed is None:
                return None
            found.update(placed)
            for target, held in written:
                if _inside(path, target) or _inside(target, path):
                    if held is None:
                        return None
                    found.update(held)
        return found

    places: dict[str, set[str] | None] = {}
    for call in order:
        if call in reads:
            places[call] = may_show(reads[call])
        if not writes.get(call):
            continue
        held_now: frozenset[str] | None = frozenset()  # a patch or a file tool: typed text
        if call in commands:
            if commands[call] in opaque:
                held_now = None
            else:
                from_files = may_show(sources.get(call, ()))
                held_now = None if from_files is None else frozenset(from_files)
        written += [(path, held_now) for path in writes[call]]
    # A skill kept elsewhere in the project is linked into the agent's skills folder
    # (`agents/base.py` `link_skill`): a read through the link is placed at the file it reaches.
    known = {path: _names(path, workspace, place) for path in files}
    narrowed: dict[str, frozenset[str]] = {}
    for call, named_now in places.items():
        if named_now is None or commands[call] in opaque:
            continue
        narrowed[call] = frozenset(
            path
            for path, names in known.items()
            if any(not p or n == p or n.startswith(p + "/") for n in names for p in named_now)
        )
    return narrowed


def _names(path: str, workspace: str | None, place: Placer) -> set[str]:
    """A workspace-relative file's names: as given, and as the workspace resolves it."""
    placed = place(os.path.join(workspace, path)) if workspace else None
    return {path, *(placed or ())}


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def held_texts(
    texts: Iterable[ToolText],
    calls: dict[str, str],
    blind: set[str],
    narrowed: dict[str, frozenset[str]],
) -> Iterator[ToolText]:
    """The session's texts with blind calls' outputs left out and each narrowed call's output
    held to the files it read (`calls`: output record id -> tool call id)."""
    for text in texts:
        if text.kind != "output":
            yield text
            continue
        call = calls.get(text.ref or "")
        if call in blind:
            continue
        only = narrowed.get(call or "")
        yield text if only is None else replace(text, shows_only=only)


def resolved_placer(workspace: str, on_disk: Callable[[str], str] = lambda p: p) -> Placer:
    """Places a path by resolving it on disk under `workspace` (as `on_disk` maps it); by its
    words alone when the workspace is no longer on disk (a session read again later)."""
    root = os.path.realpath(on_disk(workspace))
    gone = not os.path.isdir(root)
    # A session names the same few files again and again (each `cat` of a skill's document):
    # each is resolved once, a walk of its every component on disk (the workspace does not
    # change while it is judged). Callers only read the sets.
    placed: dict[str, set[str] | None] = {}

    def place(path: str) -> set[str] | None:
        if path not in placed:
            placed[path] = place_once(path)
        return placed[path]

    def place_once(path: str) -> set[str] | None:
        if path != workspace and not path.startswith(workspace.rstrip("/") + "/"):
            return None
        if gone:
            relative = os.path.normpath(os.path.relpath(path, workspace))
            if relative.startswith(".."):
                return None
            return {"" if relative == "." else relative}
        local = on_disk(path)
        if not os.path.exists(local):
            return None
        real = os.path.realpath(local)
        if real == root:
            return {""}
        if not real.startswith(root + "/"):
            return None
        return {real[len(root) + 1 :]}

    return place
