"""The agent-neutral half of turning a session into SessionEvidence: what a tool call did.

Each adapter's normaliser reads its own format and reports what the agent ran through the
methods below (a shell command, a patch, a file a tool named, the end of the session); this
class turns those into records, follows what the session wrote and ran (symlinks it made,
scripts it wrote and then executed), and settles the outcomes.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from evaluator.evidence.fetches import SEARCH_QUERY, normal_url, urls_in_text
from evaluator.evidence.jsonl import ReadStats
from evaluator.evidence.patch import patch_contents, patch_paths
from evaluator.evidence.records import EvidenceRecord, SessionEvidence
from evaluator.evidence.shell import (
    ProgramLanguage,
    ShellAnalysis,
    analyze_command,
    analyze_program,
    shebang_language,
)
from evaluator.evidence.written import WrittenContents
from evaluator.kernelpaths import join_path, resolve_kernel_path
from evaluator.vocabulary import RecordKind

EXCERPT = 2000
MAX_SCRIPT_DEPTH = 4
# Files written by the session that are remembered; past this, running any file the session
# might have written is opaque (memory stays bounded on huge sessions).
MAX_REMEMBERED_WRITES = 20_000


def excerpt(text: str | None) -> str | None:
    if text is None:
        return None
    return (
        text if len(text) <= EXCERPT else text[:EXCERPT] + f"… [{len(text) - EXCERPT} more chars]"
    )


def file_uri_path(value: str) -> str:
    if value.startswith("file:///") and not any(c in value for c in _URL_SPECIAL):
        # What urlparse gives for a plain `file:///path` (no host, query, fragment or params,
        # nothing it strips), without its cost: every command item carries one.
        return unquote(value[7:])
    if value.startswith("file://"):
        return unquote(urlparse(value).path)
    return value


# Characters after which urlparse's path is not simply the text after `file://`.
_URL_SPECIAL = "?#;\t\r\n"


def argv_command(argv: Any) -> str:
    """The shell text of an argv: `bash -lc CMD` becomes CMD, anything else is quoted back."""
    if isinstance(argv, str):
        return argv
    if not isinstance(argv, list) or not argv:
        return ""
    parts = [str(a) for a in argv]
    if (
        len(parts) >= 3
        and Path(parts[0]).name in ("bash", "sh", "zsh")
        and parts[1] in ("-lc", "-c")
    ):
        return parts[2]
    return shlex.join(parts)


# Accesses that may bring a file's content into a command's output.
_SHOWING = frozenset({"read", "exec", "path"})
# Installed programs and devices: running or reading them shows no workspace file.
# The system's program directories (the isolation allowlist's): a PATH entry there looks up
# only what is installed.
_SYSTEM_DIRS = ("/usr/", "/bin/", "/sbin/")
_SYSTEM = ("/usr/", "/bin/", "/sbin/", "/lib/", "/lib64/", "/dev/null", "/dev/zero", "/dev/urandom")


def _surely_runs(path: str, analysis: ShellAnalysis) -> bool:
    invocations = [i for i in analysis.invocations if path in i.paths]
    return not invocations or any(not i.conditional and not i.after_success for i in invocations)


def _through(path: str, links: Mapping[str, str]) -> list[tuple[str, str]]:
    """Where `path` leads through each of `links` (link path -> target) it goes through."""
    found = []
    for link, target in links.items():
        if path == link or path.startswith(link.rstrip("/") + "/"):
            found.append((join_path(target, path[len(link) :].lstrip("/") or "."), link))
    return found


def _skill_link_kind(link: str, home: str | None) -> str:
    """How a path through one of the runner's skill links is named: the user-level link in
    the agent's home, or the link in the workspace's skills folder."""
    if home is not None and (link + "/").startswith(home.rstrip("/") + "/"):
        return "via the skill's user-level link"
    return "via the skill's link in the workspace's skills folder"


class EvidenceBuilder:
    def __init__(
        self, path: Path, home: str | None, skill_links: Mapping[str, str] | None = None
    ) -> None:
        self.evidence = SessionEvidence(session_path=str(path))
        self.home = home
        # The runner's links to the skill (and its companions) in the agent's home and in the
        # workspace's skills folder (link path -> the skill's folder in the workspace): a path
        # through one is also recorded at the folder it names, as a path through a symlink the
        # session made is (`through_symlinks`), so a check on the skill's workspace path sees a
        # command that named its user-level path or the folder its CLI lists it in.
        self.skill_links = dict(skill_links or {})
        self.turn_cwd: str | None = None
        self.calls: dict[str, EvidenceRecord] = {}  # call_id -> command_observed / tool_call
        self.pwd_calls: set[str] = set()
        self.last_assistant: str | None = None
        # What the session itself wrote, per resolved path: the content when it is known,
        # None when it changed in a way the evidence does not show. Scripts run later are
        # judged by this content; a path absent here is the target's own file.
        self.contents = WrittenContents()
        # link path -> resolved target, created by the session (the runner's skill links first:
        # one the session makes again at the same path replaces it).
        self.symlinks: dict[str, str] = dict(self.skill_links)
        # Files the session wrote, content unknown, by commands that read nothing but the
        # agent's own text (`base64 -d typed.b64 > x`): what they hold is the agent's too.
        self.own_written: set[str] = set()
        self.forgot_writes = False
        # Every path the session wrote, made or linked, content or not (`touch`, `ln -s`): what
        # a directory put first in PATH holds (`follow_search`).
        self.written_paths: set[str] = set()

    # --------------------------------------------------------------------- helpers
    def cwd_for(self, workdir: str | None) -> str:
        base = self.turn_cwd or self.evidence.cwd or "/"
        if not workdir:
            return base
        return join_path(base, workdir)

    def observe_command(
        self,
        line: int,
        ts: str | None,
        call_id: str | None,
        tool: str,
        command: str,
        workdir: str | None,
        source: str,
    ) -> EvidenceRecord:
        ev = self.evidence
        cwd = self.cwd_for(workdir)
        if workdir:
            ev.add(
                "tool_workdir_observed",
                line,
                timestamp=ts,
                call_id=call_id,
                tool=tool,
                path=cwd,
                workdir=workdir,
                source=source,
            )
        record = ev.add(
            "command_observed",
            line,
            timestamp=ts,
            call_id=call_id,
            tool=tool,
            command=command,
            workdir=cwd,
            source="tool-call",
        )
        if call_id:
            self.calls[call_id] = record
        if command.lstrip().startswith("apply_patch"):
            body = command.split("\n", 1)[1] if "\n" in command else ""
            self.observe_patch(line, ts, call_id, body, cwd, "patch-header")
            return record
        analysis = analyze_command(command, cwd, self.home)
        if "pwd" in analysis.commands and call_id:
            self.pwd_calls.add(call_id)
        self.record_analysis(analysis, record, line, ts, call_id, tool, "shell-parse", 0)
        return record

    def record_analysis(
        self,
        analysis: ShellAnalysis,
        record: EvidenceRecord,
        line: int,
        ts: str | None,
        call_id: str | None,
        tool: str,
        source: str,
        depth: int,
    ) -> None:
        """Records a command's accesses, then follows what it set up: symlinks it made, files
        it wrote, and scripts it ran (analysed from the content the session wrote)."""
        ev = self.evidence
        for link, target in analysis.symlinks:
            self.symlinks[link] = target
        self.remember_writes(analysis)
        # In a script the session wrote, a run its shell may not reach (the call's exit code is
        # the outer command's, so `&&` inside cannot be settled by it either).
        unsure = (
            {
                a.path
                for a in analysis.accesses
                if a.kind == "exec" and not _surely_runs(a.path, analysis)
            }
            if depth > 0
            else set()
        )
        for access in analysis.accesses:
            kind: RecordKind = (
                "file_write_observed" if access.kind == "write" else "file_read_observed"
            )
            if access.kind == "cwd":
                kind = "tool_workdir_observed"
            detail = f"{access.via} {access.raw}"
            for path, via_link in self.through_symlinks(access.path):
                ev.add(
                    kind,
                    line,
                    timestamp=ts,
                    call_id=call_id,
                    tool=tool,
                    path=path,
                    access=access.kind,
                    source=source,
                    detail=f"{detail} ({self.link_kind(via_link)} {via_link})"
                    if via_link
                    else detail,
                    guess=True if access.guess else None,
                    own_text=True if access.kind in _SHOWING and self.own_text(path) else None,
                    may_not_run=True if access.path in unsure else None,
                )
        for reason in analysis.opaque:
            ev.opaque.append((record.id, reason))
        for write in analysis.contents:
            if write.content is None and not write.removed:
                self.evidence.unknown_writes.append((line, write.path))
        for run in analysis.runs:
            if run.searched:
                self.follow_search(run.path, run.via, record)
                continue
            self.follow_run(
                run.path, run.language, run.tree, run.via, record, line, ts, call_id, tool, depth
            )

    def remember_writes(self, analysis: ShellAnalysis) -> None:
        """Keeps what the command wrote: the content where it is known, and whether it is the
        agent's own text (typed, or written by a command that read nothing else; decided once
        the typed content of this command is known, so `echo B64 > e; base64 -d e > d` makes
        `d` the agent's own)."""
        for write in analysis.contents:
            if len(self.contents) >= MAX_REMEMBERED_WRITES and write.path not in self.contents:
                self.forgot_writes = True
                continue
            previous = self.contents.get(write.path, "")
            if write.append and write.path in self.contents:
                self.contents[write.path] = (
                    None if previous is None or write.content is None else previous + write.content
                )
            else:
                self.contents[write.path] = write.content
        for source_path, destination in analysis.copies:
            if source_path in self.contents:
                self.contents[destination] = self.contents[source_path]
            elif not self.changed_under(source_path):
                self.contents.pop(destination, None)  # a copy of the target's own file
        written = {a.path for a in analysis.accesses if a.kind == "write"}
        written.update(w.path for w in analysis.contents if not w.removed)
        self.written_paths.update(written)
        self.written_paths.update(link for link, _ in analysis.symlinks)
        if not written:
            return
        # Any access but a write or a `cd` counts: a read whose output went into the file is
        # only a `metadata` access here (`cat SKILL.md > copy.md`). A file the command writes
        # and reads back (`base64 -d e > d && cat d`) is as much its own as the rest.
        blind = not analysis.opaque and not any(
            a.kind not in ("write", "cwd") and a.path not in written and not self.own_text(a.path)
            for a in analysis.accesses
        )
        for path in written:
            if blind:
                self.own_written.add(path)
            else:
                self.own_written.discard(path)

    def own_text(self, path: str) -> bool:
        """Whether the file holds only the agent's own text (see `remember_writes`)."""
        if path.startswith(_SYSTEM) or (
            path.startswith(("/dev/", "/proc/")) and resolve_kernel_path(path).kind == "own-process"
        ):
            return True  # installed programs, `/dev/null`, standard streams: no workspace file
        return isinstance(self.contents.get(path), str) or path in self.own_written

    def through_symlinks(self, path: str) -> list[tuple[str, str | None]]:
        """The path itself, plus where it really leads when it goes through a symlink the
        session created (it may be gone from disk by the end of the run)."""
        found: list[tuple[str, str | None]] = [(path, None)]
        return found + _through(path, self.symlinks)

    def link_kind(self, link: str) -> str:
        """How a link a path went through is named in a record's detail."""
        if self.skill_links.get(link) == self.symlinks.get(link):
            return _skill_link_kind(link, self.home)
        return "via session symlink"

    def changed_under(self, path: str) -> bool:
        """Whether the session changed `path`, or a directory above it, in an unknown way."""
        return self.contents.unknown_at_or_above(path)

    def follow_search(self, directory: str, via: str, record: EvidenceRecord) -> None:
        """A directory a `PATH=DIR:$PATH cmd` prefix puts first. In the workspace and holding
        only what the target shipped (a virtualenv's `bin`, `node_modules/.bin` as provided), or
        a system directory, it is trusted as the target's programs are, and the command is what
        its words show. Elsewhere (the agent's home, `/tmp`, `/opt`) the shell looks there with
        `stat`, which no trace shows, so what it found there cannot be told: opaque, as every
        `PATH` change was (the reason names `PATH`, which the trace never vouches for). Where the
        session wrote, made or linked anything (or changed it in a way not shown), a program of
        that name may be the session's own: opaque."""
        real = self.through_symlinks(directory)[-1][0]
        prefix = real.rstrip("/") + "/"
        workspace = (self.evidence.cwd or "").rstrip("/")
        inside = bool(workspace) and (real == workspace or real.startswith(workspace + "/"))
        if not inside and not prefix.startswith(_SYSTEM_DIRS):
            self.evidence.opaque.append(
                (
                    record.id,
                    f"{via}: runs a command with PATH set to a directory outside the workspace",
                )
            )
            return
        touched = (
            self.forgot_writes
            or self.contents.any_at_or_under(real)
            or self.changed_under(real)
            or any(p == real or p.startswith(prefix) for p in self.written_paths)
            or any(
                p == directory or p.startswith(directory.rstrip("/") + "/")
                for p in self.written_paths
            )
        )
        if touched:
            self.evidence.opaque.append(
                (record.id, f"{via}: runs programs by name from {real}, where the session wrote")
            )

    def follow_run(
        self,
        path: str,
        language: ProgramLanguage,
        tree: bool,
        via: str,
        record: EvidenceRecord,
        line: int,
        ts: str | None,
        call_id: str | None,
        tool: str,
        depth: int,
    ) -> None:
        ev = self.evidence
        real = self.through_symlinks(path)[-1][0]
        if tree:
            if self.contents.any_at_or_under(real):
                ev.opaque.append((record.id, f"{via} runs code the session wrote under {real}"))
            return
        if resolve_kernel_path(real).kind != "plain":
            # `source /dev/stdin`, `bash /dev/fd/3`: a stream or a descriptor is no program the
            # target shipped, and what flows through it is not this file's content.
            ev.opaque.append((record.id, f"{via} runs a program read from {real}"))
            return
        if real not in self.contents:
            if self.forgot_writes:
                ev.opaque.append((record.id, f"{via} runs {real}; too many writes to follow"))
            elif self.changed_under(real):
                ev.opaque.append((record.id, f"{via} runs {real}, changed in a way not shown"))
            return  # the target's own program, as shipped in the workspace
        content = self.contents[real]
        if content is None:
            ev.opaque.append((record.id, f"{via} runs {real}, whose content is not known"))
            return
        if depth >= MAX_SCRIPT_DEPTH:
            ev.opaque.append((record.id, f"{via} runs scripts nested too deeply"))
            return
        kind: ProgramLanguage = (
            shebang_language(content, real) if language == "unknown" else language
        )
        if kind == "unknown":
            ev.opaque.append((record.id, f"{via} runs {real}, a program that is not analysed"))
            return
        program = analyze_program(content, kind, record.workdir or self.cwd_for(None), self.home)
        self.record_analysis(program, record, line, ts, call_id, tool, "script-content", depth + 1)

    def observe_fetch(
        self, line: int, ts: str | None, call_id: str, tool: str, arguments: dict[str, Any]
    ) -> None:
        """An agent's own web tool that fetches URLs: its `url` argument, or the URLs written in
        its `prompt` (Gemini CLI's `web_fetch` takes them there), one record each."""
        url = arguments.get("url")
        if isinstance(url, str):
            urls = [u] if (u := normal_url(url, web=True)) else []
        else:
            urls = urls_in_text(str(arguments.get("prompt") or ""))
        for found in dict.fromkeys(urls):
            self.evidence.add(
                "url_fetch_observed",
                line,
                timestamp=ts,
                call_id=call_id,
                tool=tool,
                text=found,
                source="tool-input",
            )

    def observe_search(
        self, line: int, ts: str | None, call_id: str | None, tool: str, query: str
    ) -> None:
        """An agent's own web search: its query, as a `url_fetch_observed` of the source
        `search-query` (the pages the search service read for it are not seen; a page opened
        from its results is a fetch of its own)."""
        if query.strip():
            self.evidence.add(
                "url_fetch_observed",
                line,
                timestamp=ts,
                call_id=call_id,
                tool=tool,
                text=excerpt(query),
                source=SEARCH_QUERY,
            )

    def observe_path(
        self,
        kind: RecordKind,
        line: int,
        ts: str | None,
        call_id: Any,
        tool: str,
        path: str,
        cwd: str,
        access: str,
        source: str,
        detail: str | None = None,
    ) -> None:
        """One file observation, resolved against `cwd` unless already absolute; a path through
        one of the runner's skill links is also recorded at the skill's own folder."""
        resolved = join_path(cwd, path)
        for named, via_link in [(resolved, None), *_through(resolved, self.skill_links)]:
            self.evidence.add(
                kind,
                line,
                timestamp=ts,
                call_id=call_id,
                tool=tool,
                path=named,
                access=access,
                source=source,
                detail=(
                    f"{detail or ''} ({_skill_link_kind(via_link, self.home)} {via_link})".lstrip()
                    if via_link
                    else detail
                ),
            )

    def observe_patch(
        self, line: int, ts: str | None, call_id: str | None, patch: str, cwd: str, source: str
    ) -> None:
        paths, problems = patch_paths(patch)
        for operation, relative in paths:
            self.observe_path(
                "file_write_observed",
                line,
                ts,
                call_id,
                "apply_patch",
                relative,
                cwd,
                "write",
                source,
                f"{operation} {relative}",
            )
        for problem in problems:
            self.evidence.opaque.append((f"L{line}", problem))
        for relative, content in patch_contents(patch):
            self.contents[join_path(cwd, relative)] = content

    def finish(self, stats: ReadStats) -> SessionEvidence:
        ev = self.evidence
        ev.line_count = stats.lines
        ev.bad_lines = stats.bad_lines
        ev.malformed = list(stats.malformed)
        ev.settle_outcomes()
        if ev.final_answer is None and self.last_assistant is not None:
            ev.final_answer = self.last_assistant
            ev.add(
                "final_answer",
                stats.lines,
                text=self.last_assistant,
                source="last-assistant-message",
            )
        return ev
