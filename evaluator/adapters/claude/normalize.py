"""From a Claude Code transcript (`projects/<cwd>/<session>.jsonl` or a sub-agent's
`agent-<id>.jsonl`) to agent-neutral SessionEvidence (the format half; `evidence/builder.py` makes the records).

Each assistant record holds one content block; its `cwd` is the Bash tool's directory when the
block was written (a reliable working-directory signal). A tool call's accesses are recorded when
its result arrives: a call Claude Code refused to run (a permission denial) is kept as a
`tool_denied` record and touched nothing. Bash commands go through the same shell analysis as
Codex commands; file tools give their paths directly, resolved against the record's `cwd`.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaluator.adapters.claude.final_message import RECOVERED_KEY
from evaluator.evidence.builder import EvidenceBuilder, excerpt
from evaluator.evidence.jsonl import ReadStats, read_objects, unreadable_lines
from evaluator.evidence.records import SESSION_REWRITTEN, SESSION_TRUNCATED, SessionEvidence
from evaluator.kernelpaths import join_path
from evaluator.vocabulary import RecordKind

# The tool that starts a sub-agent (`Task` in older versions).
SPAWN_TOOLS = ("Agent", "Task")
# Claude Code's notice to the parent that a background helper stopped (2.1.197: an `attachment`
# record, `{"type": "queued_command", "commandMode": "task-notification", "prompt":
# "<task-notification>\n<task-id>..</task-id>\n<tool-use-id>toolu_..</tool-use-id>\n..
# <status>completed</status>\n<summary>..</summary>..<result>(the helper's answer)</result>.."}`),
# put into the parent's turn when the helper stops. Only the CLI writes records; its own fields
# (the spawn call's id, the status) come before what the model or the helper wrote (summary,
# result), so the first of each tag is the CLI's.
NOTIFICATION_MODE = "task-notification"
_NOTICE_CALL = re.compile(r"<tool-use-id>([^<\s]+)</tool-use-id>")
_NOTICE_STATUS = re.compile(r"<status>([^<]*)</status>")
# A helper's states after which it does nothing more (until a message wakes it: `spawn_woken`).
_STOPPED = frozenset({"completed", "failed", "killed"})
MESSAGE_TOOL = "SendMessage"  # continues a sub-agent by its agentId
# Texts Claude Code puts in the result of a call it refused to run.
DENIAL_MARKERS = (
    "requested permissions to",
    "haven't granted it yet",
    "requires approval",
    "was blocked",
    "Permission to use",
)
# Its refusal of a compound command, some of whose parts need a permission the run does not give
# (2.1.197: "This Bash command contains multiple operations. The following parts require approval:
# mkdir -p ..., cat ..."): nothing of it ran. Only at the start of the result, which a command's
# own output never is (a failed command's result starts `Exit code N`).
COMPOUND_DENIAL = "This Bash command contains multiple operations. The following parts require"
KNOWN_TYPES = {
    "user",
    "assistant",
    "attachment",
    "queue-operation",
    "last-prompt",
    "ai-title",
    "summary",
    "system",
    "tools-used",
    "cost-state",
    "atis-latch",
    "api-request",
    "api-request-shape",
    "api-request-blob",
}
# What Claude Code answers a call of a tool it does not offer (`WebFetch` is not in `--tools`),
# the whole result: a command's output that says the same is no such answer.
NO_SUCH_TOOL = "No such tool available"
# A skill's body may hold commands Claude Code runs itself when the skill loads, its output put
# in their place (its own patterns, 2.1.197: `!`cmd`` after a space or at the start, and a
# ```! fenced block). The loaded body comes back as a meta message naming the skill's folder.
SKILL_TOOL = "Skill"
_SKILL_BASE = re.compile(r"\ABase directory for this skill: (.+)")
# A user's prompt that is a command, as Claude Code records it (2.1.197: the whole content of a
# first user record, `<command-message>NAME</command-message>\n<command-name>/NAME</command-name>
# \n<command-args>...</command-args>`); when the command is a skill, the next record (its child)
# is a meta message with the loaded body and no `sourceToolUseID` (no tool call loaded it).
_USER_COMMAND = re.compile(r"\A<command-message>[^<]*</command-message>\s*<command-name>/([^<]+)</")
_PRERUN_INLINE = re.compile(r"(?:\A|(?<=\s))!`([^`]+)`")
_PRERUN_BLOCK = re.compile(r"```!\s*\n?([\s\S]*?)\n?```")
_FRONT_MATTER = re.compile(r"\A---\s*\n.*?\n---\s*(?:\n|\Z)", re.S)


def _unavailable(name: str, text: str) -> bool:
    # 2.1.197 adds a hint after the name (". WebFetch exists but is not enabled in this
    # context. Use one of ..."), never markup.
    pattern = (
        rf"<tool_use_error>Error: {NO_SUCH_TOOL}: {re.escape(name)}(?:\.[^<]*)?</tool_use_error>"
    )
    return re.fullmatch(pattern, text.strip()) is not None


_EXIT = re.compile(r"^(?:Error: )?Exit code (-?\d+)")
_REMINDER = re.compile(r"^\s*<system-reminder>")
# `json.dumps(..., ensure_ascii=False)` builds an encoder per call; one made once writes the same.
_ARGUMENTS_ENCODER = json.JSONEncoder(ensure_ascii=False)
# The tool that fetches a URL (WebSearch searches: it fetches no URL the agent chose).
WEB_FETCH_TOOLS = frozenset({"WebFetch"})
# Its web search (not offered by our runners): the query is kept (evidence/fetches.py).
WEB_SEARCH_TOOL = "WebSearch"
# What each file tool does to its path argument.
FILE_TOOLS: dict[str, tuple[str, RecordKind, str]] = {
    # tool: (input key, record kind, access)
    "Read": ("file_path", "file_read_observed", "read"),
    "Write": ("file_path", "file_write_observed", "write"),
    "Edit": ("file_path", "file_write_observed", "write"),
    "MultiEdit": ("file_path", "file_write_observed", "write"),
    "NotebookEdit": ("notebook_path", "file_write_observed", "write"),
}


@dataclass
class _PendingCall:
    line: int
    timestamp: str | None
    name: str
    arguments: dict[str, Any]
    cwd: str


def _text_blocks(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    if isinstance(content, list):
        return [
            str(b.get("text", ""))
            for b in content
            if isinstance(b, dict) and b.get("type") == "text"
        ]
    return []


def _result_text(content: Any) -> str:
    return "\n".join(_text_blocks(content))


class ClaudeNormalizer(EvidenceBuilder):
    def __init__(
        self, path: Path, home: str | None, skill_links: Mapping[str, str] | None = None
    ) -> None:
        super().__init__(path, home, skill_links)
        self.pending: dict[str, _PendingCall] = {}
        self.answered: set[str] = set()  # calls whose answer came (a repeat is no orphan)
        self.final_message_id: str | None = None
        self.final_texts: list[str] = []
        self.usage: dict[str, int] = {}
        self.counted_messages: set[str] = set()
        self.ended = False
        # What `final_message.py` recovered from the stdout stream, when it did.
        self.recovered: str | None = None
        self.uuids: set[str] = set()
        self.loaded_skills: set[str] = set()  # Skill calls Claude Code answered without error
        # A user's `/name` prompt: its record's uuid -> the name.
        self.user_commands: dict[str, str] = {}

    def record(self, line: int, record: dict[str, Any]) -> None:
        kind = str(record.get("type"))
        ev = self.evidence
        ts = record.get("timestamp")
        if kind in ("user", "assistant") and ev.thread_id is None:
            self.start(line, record)
        if ev.thread_id is None and isinstance(record.get("uuid"), str):
            self.uuids.add(record["uuid"])  # what precedes the first message (a system note)
        if isinstance(record.get("cwd"), str):
            self.turn_cwd = record["cwd"]
        if kind == "user":
            self.user(line, ts, record)
        elif kind == "assistant":
            self.assistant(line, ts, record)
        elif kind == "attachment":
            self.attachment(line, ts, record)
        elif kind not in KNOWN_TYPES:
            ev.unknown_types[kind] = ev.unknown_types.get(kind, 0) + 1

    def attachment(self, line: int, ts: str | None, record: dict[str, Any]) -> None:
        """The CLI's notice that a background helper stopped: the helper had finished by this
        line, as a foreground helper has by its call's answer."""
        given = record.get("attachment")
        item: dict[str, Any] = given if isinstance(given, dict) else {}
        prompt = item.get("prompt")
        if item.get("commandMode") != NOTIFICATION_MODE or not isinstance(prompt, str):
            return
        self.notice(line, ts, prompt)

    def notice(self, line: int, ts: str | None, prompt: str) -> None:
        """A `<task-notification>` the CLI wrote: the helper it names had stopped by `line`."""
        call, status = _NOTICE_CALL.search(prompt), _NOTICE_STATUS.search(prompt)
        if call is None or status is None or status.group(1).strip() not in _STOPPED:
            return
        finished = self.evidence.add(
            "subagent_finished", line, timestamp=ts, call_id=call.group(1), text=status.group(1)
        )
        self.evidence.spawn_finished(finished.id, call_id=call.group(1))

    def start(self, line: int, record: dict[str, Any]) -> None:
        ev = self.evidence
        if record.get("parentUuid") not in (None, *self.uuids):
            # The first message the file holds follows one it does not: its start is gone.
            ev.opaque.append((f"L{line}", SESSION_TRUNCATED))
        agent_id = record.get("agentId")
        ev.session_id = record.get("sessionId")
        ev.thread_id = agent_id or ev.session_id
        ev.parent_thread_id = ev.session_id if agent_id else None
        ev.cwd = record.get("cwd")
        ev.cli_version = record.get("version")
        ev.originator = f"claude-code ({record.get('entrypoint') or 'cli'})"
        ev.add(
            "session_start",
            line,
            timestamp=record.get("timestamp"),
            path=ev.cwd,
            detail=f"session {ev.thread_id}, cli {ev.cli_version}, cwd {ev.cwd} (not proof)",
        )

    def user(self, line: int, ts: str | None, record: dict[str, Any]) -> None:
        given = record.get("message")
        message: dict[str, Any] = given if isinstance(given, dict) else {}
        content = message.get("content")
        origin = record.get("origin")
        if isinstance(origin, dict) and origin.get("kind") == NOTIFICATION_MODE:
            # Later releases (2.1.330) write the notice as a user record of its own, marked by
            # its `origin`, where 2.1.197 writes an attachment: the CLI's, never a prompt.
            text = "".join(_text_blocks(content))
            if text.lstrip().startswith("<task-notification>"):
                self.notice(line, ts, text)
            return
        if isinstance(content, list):
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    self.result(line, ts, block, record.get("toolUseResult"))
        source = record.get("sourceToolUseID")
        if record.get("isMeta") and isinstance(source, str) and source in self.loaded_skills:
            self.skill_body(line, ts, source, "".join(_text_blocks(content)))
        elif record.get("isMeta") and source is None:
            self.command_skill(line, ts, record.get("parentUuid"), "".join(_text_blocks(content)))
        command = _USER_COMMAND.match(content) if isinstance(content, str) else None
        if command is not None and not record.get("isMeta"):
            self.user_commands[str(record.get("uuid"))] = command.group(1).strip()
        if self.evidence.first_user_message is None and record.get("parentUuid") is None:
            texts = [t for t in _text_blocks(content) if not _REMINDER.match(t)]
            if texts:
                self.evidence.first_user_message = "".join(texts)

    def assistant(self, line: int, ts: str | None, record: dict[str, Any]) -> None:
        if record.get("isApiErrorMessage"):
            return
        message = record.get("message") or {}
        message_id = str(message.get("id") or record.get("uuid"))
        usage = message.get("usage")
        if isinstance(usage, dict) and message_id not in self.counted_messages:
            # Every block of one API message repeats its usage: count each message once.
            self.counted_messages.add(message_id)
            for key, value in usage.items():
                if isinstance(value, int) and not isinstance(value, bool):
                    self.usage[key] = self.usage.get(key, 0) + value
        for block in message.get("content") or []:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text":
                if message_id != self.final_message_id:
                    self.final_message_id, self.final_texts = message_id, []
                self.final_texts.append(str(block.get("text", "")))
                self.evidence.said(line, str(block.get("text", "")))
            elif block.get("type") == "tool_use":
                self.final_message_id, self.final_texts = None, []
                self.tool_use(line, ts, block)
        if message.get("stop_reason") == "end_turn":
            self.ended = True
            recovered = record.get(RECOVERED_KEY)
            self.recovered = (
                f"line {recovered.get('line')} of {recovered.get('from')}"
                if isinstance(recovered, dict)
                else None
            )

    def tool_use(self, line: int, ts: str | None, block: dict[str, Any]) -> None:
        call_id = str(block.get("id"))
        raw = block.get("input")
        arguments: dict[str, Any] = raw if isinstance(raw, dict) else {}
        name = str(block.get("name"))
        self.ended = False
        self.evidence.add(
            "tool_call",
            line,
            timestamp=ts,
            call_id=call_id,
            tool=name,
            text=excerpt(_ARGUMENTS_ENCODER.encode(arguments)),
        )
        self.pending[call_id] = _PendingCall(line, ts, name, arguments, self.cwd_for(None))
        if name == "Bash" and arguments.get("run_in_background") is True:
            self.evidence.detached_calls.add(call_id)
        if name == MESSAGE_TOOL:
            # A message to a finished helper resumes it (the runner does not offer the tool;
            # a session that calls it anyway bounds no helper by its end so far).
            target = arguments.get("to")
            self.evidence.spawn_woken(str(target) if isinstance(target, str) else None)
        if name in SPAWN_TOOLS:
            # A Claude Code sub-agent never inherits the parent's context; it has no nickname.
            prompt = str(arguments.get("prompt") or "")
            self.evidence.spawned(line, call_id, prompt, False, timestamp=ts, tool=name)

    def result(self, line: int, ts: str | None, block: dict[str, Any], tool_result: Any) -> None:
        call_id = str(block.get("tool_use_id"))
        text = _result_text(block.get("content"))
        failed = bool(block.get("is_error"))
        record = self.evidence.add(
            "tool_result", line, timestamp=ts, call_id=call_id, text=excerpt(text)
        )
        call = self.pending.pop(call_id, None)
        if call is not None and call.name in SPAWN_TOOLS:
            child = tool_result.get("agentId") if isinstance(tool_result, dict) else None
            self.evidence.spawn_answered(call_id, record.id, str(child) if child else None, None)
            if isinstance(tool_result, dict) and tool_result.get("status") == "completed":
                # A foreground helper answers when it is done (a background one: `async_launched`).
                self.evidence.spawn_finished(record.id, call_id=call_id)
        if call is None:
            if call_id not in self.answered:
                # An answer to a call the session does not record: the file was changed after
                # the CLI wrote it (a command can rewrite its own session: Claude Code runs
                # commands unsandboxed) or lost records. Whatever that call did is not shown.
                self.evidence.opaque.append((record.id, SESSION_REWRITTEN))
            return
        self.answered.add(call_id)
        if failed and (
            any(marker in text for marker in DENIAL_MARKERS) or text.startswith(COMPOUND_DENIAL)
        ):
            self.evidence.add(
                "tool_denied",
                line,
                timestamp=ts,
                call_id=call_id,
                tool=call.name,
                text=excerpt(text),
                detail="the agent CLI refused the call; it did not run",
            )
            return
        if failed and _unavailable(call.name, text):
            # The CLI has no such tool in this run: nothing ran, whatever its input names.
            self.evidence.call_outcomes[call_id] = "failed"
            return
        self.perform(call_id, call)
        if call.name == SKILL_TOOL and not failed:
            self.loaded_skills.add(call_id)
        exit_code = None
        if call.name == "Bash":
            match = _EXIT.match(tool_result if isinstance(tool_result, str) else text)
            exit_code = int(match.group(1)) if match else (None if failed else 0)
            command = self.calls.get(call_id)
            if command is not None:
                command.exit_code = exit_code
        self.evidence.call_outcomes[call_id] = "failed" if failed else "ok"

    def command_skill(self, line: int, ts: str | None, parent: object, text: str) -> None:
        """A skill the user's `/name` prompt loaded: the meta message holding its body answers
        the command record it follows, and names the skill's folder, whose name is the skill's
        (Claude Code names skills by folder). No tool call: who loaded it was the user."""
        name = self.user_commands.get(str(parent))
        found = _SKILL_BASE.match(text)
        if name is None or found is None:
            return
        folder = found.group(1).strip()
        if posixpath.basename(folder.rstrip("/")) != name:
            return
        self.evidence.add(
            "skill_loaded",
            line,
            timestamp=ts,
            tool=SKILL_TOOL,
            text=name,
            path=folder,
            detail=f"the user's /{name} command loaded the skill (Claude Code's slash command)",
        )

    def skill_body(self, line: int, ts: str | None, call_id: str, text: str) -> None:
        """The commands Claude Code ran itself to load a skill: its body's pre-run commands whose
        text the loaded body no longer holds (replaced by their output). They are recorded as
        the Skill call's commands, judged as any command is; the transcript names only the
        folder, so the commands are read from its SKILL.md (one changed since gives commands
        the trace does not show: a disagreement, never a cover)."""
        found = _SKILL_BASE.match(text)
        if found is None:
            return
        folder = found.group(1).strip()
        # Only a skill of the attempt's own places (the workspace, the agent's home, where the
        # runner links the skill): a name in a transcript makes the evaluator read no other file.
        places = [os.path.realpath(p) for p in (self.evidence.cwd, self.home) if p]
        real = os.path.realpath(os.path.join(folder, "SKILL.md"))
        if not any(real.startswith(place.rstrip("/") + "/") for place in places):
            return
        try:
            skill = Path(real).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return
        body = _FRONT_MATTER.sub("", skill, count=1)
        for pattern in (_PRERUN_BLOCK, _PRERUN_INLINE):
            for match in pattern.finditer(body):
                written = match.group(0).replace("${CLAUDE_SKILL_DIR}", folder)
                command = match.group(1).replace("${CLAUDE_SKILL_DIR}", folder).strip()
                if command and written not in text:
                    self.observe_command(line, ts, call_id, SKILL_TOOL, command, None, "skill")
            body = pattern.sub("", body)

    def perform(self, call_id: str, call: _PendingCall) -> None:
        """The accesses of a call that ran, as of the directory it ran in."""
        ev = self.evidence
        args = call.arguments
        ev.add(
            "tool_workdir_observed",
            call.line,
            timestamp=call.timestamp,
            call_id=call_id,
            tool=call.name,
            path=call.cwd,
            source="record-cwd",
        )
        saved, self.turn_cwd = self.turn_cwd, call.cwd
        try:
            if call.name == "Bash":
                self.observe_command(
                    call.line,
                    call.timestamp,
                    call_id,
                    "Bash",
                    str(args.get("command") or ""),
                    None,
                    "record-cwd",
                )
            elif call.name in FILE_TOOLS:
                key, kind, access = FILE_TOOLS[call.name]
                if args.get(key):
                    self.file_access(call_id, call, kind, str(args[key]), access)
                    if kind == "file_write_observed" and call.name == "Write":
                        path = join_path(call.cwd, str(args[key]))
                        content = args.get("content")
                        self.contents[path] = content if isinstance(content, str) else None
                    elif kind == "file_write_observed":
                        self.contents[join_path(call.cwd, str(args[key]))] = None
            elif call.name == "Glob":
                base = str(args.get("path") or ".")
                pattern = str(args.get("pattern") or "")
                target = pattern if pattern.startswith("/") else posixpath.join(base, pattern)
                self.file_access(call_id, call, "file_read_observed", target, "list")
            elif call.name in WEB_FETCH_TOOLS:
                self.observe_fetch(call.line, call.timestamp, call_id, call.name, args)
            elif call.name == WEB_SEARCH_TOOL:
                query = str(args.get("query") or "")
                self.observe_search(call.line, call.timestamp, call_id, call.name, query)
            elif call.name == "Grep":
                where = str(args.get("path") or ".")
                self.file_access(call_id, call, "file_read_observed", where, "read")
        finally:
            self.turn_cwd = saved

    def file_access(
        self, call_id: str, call: _PendingCall, kind: RecordKind, path: str, access: str
    ) -> None:
        self.observe_path(
            kind,
            call.line,
            call.timestamp,
            call_id,
            call.name,
            path,
            call.cwd,
            access,
            "tool-input",
            f"{call.name} {path}",
        )

    def close(self, stats: ReadStats) -> SessionEvidence:
        ev = self.evidence
        for call_id, call in list(self.pending.items()):
            # No result was recorded (the run was killed): what it asked for may have happened.
            self.perform(call_id, call)
        self.pending.clear()
        if self.final_texts and self.ended:
            ev.final_answer = "".join(self.final_texts)
            ev.add("final_answer", stats.lines, text=ev.final_answer, source="last-assistant-text")
        ev.complete = self.ended and ev.final_answer is not None
        if ev.complete:
            detail = "the last assistant turn ended (end_turn)"
            if self.recovered:
                detail += (
                    f"; its text recovered from the CLI's stream, {self.recovered}: the CLI "
                    "exited before writing it (docs/agents.md)"
                )
            ev.add("session_end", stats.lines, detail=detail)
        ev.token_usage = dict(self.usage) or None
        ev.line_count = stats.lines
        ev.bad_lines = stats.bad_lines
        ev.malformed = list(stats.malformed)
        ev.settle_outcomes()
        return ev


def is_claude_transcript(first: dict[str, Any] | None) -> bool:
    """Whether a session file's first record is a Claude Code transcript record."""
    if not first:
        return False
    return "sessionId" in first or first.get("type") in ("queue-operation", "summary")


def normalize_claude_transcript(
    path: Path, *, home: str | None = None, skill_links: Mapping[str, str] | None = None
) -> SessionEvidence:
    normalizer = ClaudeNormalizer(path, home, skill_links)
    stats = ReadStats()
    for line, record in read_objects(path, stats):
        try:
            normalizer.record(line, record)
        except (TypeError, AttributeError, ValueError, KeyError, RecursionError) as exc:
            why = f"malformed {record.get('type')} record ({type(exc).__name__})"
            stats.skip(line, why)
            normalizer.evidence.opaque.append((f"L{line}", why))
    for line, why in unreadable_lines(stats):
        normalizer.evidence.opaque.append((f"L{line}", why))
    return normalizer.close(stats)
