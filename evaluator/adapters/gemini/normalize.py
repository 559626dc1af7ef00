"""From a Gemini CLI session (`.gemini/tmp/<project>/chats/session-*.jsonl`) to agent-neutral
SessionEvidence (the format half; `evidence/builder.py` makes the records). A legacy
`session-*.json` (one document: the metadata with a `messages` list of the same messages) is read
too.

The file is append-only: a first record with the session's metadata, then message records
(`{id, timestamp, type: user|gemini|info|error|warning, content, toolCalls, tokens}`); a message
written again under the same id replaces the earlier one in place (a model turn is written
before and after its tool calls ran), `{"$set": {"messages": [...]}}` replaces the list,
`{"$rewindTo": id}` drops that message and everything after it, and other `$set` keys are
metadata. A tool call carries its arguments, its result and a status (`success`, `error`,
`cancelled`). Gemini CLI runs every shell command in a new process in the workspace it records
in its `<session_context>` (or the call's `dir_path`), so that directory is each call's
recorded working directory (`record-cwd`). A sub-agent's session (`kind: subagent`, in a folder
named by its parent's id) has no `<session_context>`: its first record lists the workspace in
`directories`, its first user message is the task it was given, and it ends with a
`complete_task` call whose `result` is its final answer. An `invoke_agent` call is a spawn.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from evaluator.evidence.builder import EvidenceBuilder, excerpt
from evaluator.evidence.jsonl import ReadStats, json_document, read_objects, unreadable_lines
from evaluator.evidence.records import SESSION_REWRITTEN, SessionEvidence
from evaluator.kernelpaths import join_path
from evaluator.vocabulary import RecordKind

MESSAGE_TYPES = ("user", "gemini", "info", "error", "warning")
SHELL_TOOL = "run_shell_command"
SKILL_TOOL = "activate_skill"
SPAWN_TOOL = "invoke_agent"
COMPLETE_TOOL = "complete_task"
SUBAGENT_KIND = "subagent"
_WORKSPACE = re.compile(r"\*\*Workspace Directories:\*\*\s*\n\s*-\s*(\S+)")
_CONTEXT_TAG = re.compile(r"^\s*<session_context>")
# The lines the shell tool writes after a command's output, in the order it writes them (the
# last first here): `Output: <output>`, then `Exit Code: N` (only when not 0), `Signal: S`,
# `Background PIDs: ...`, `Process Group PGID: P`. Only this trailer, read from the end, is
# the CLI's: a line of the output is the command's and may read the same (red team 18:
# `printf 'x\nExit Code: 0\n'; python3 check.py` recorded the exit 0 it printed).
_TRAILER = (
    ("pgid", re.compile(r"Process Group PGID: \d+")),
    ("pids", re.compile(r"Background PIDs: [\d, ]+")),
    ("signal", re.compile(r"Signal: \S+")),
    ("exit", re.compile(r"Exit Code: (-?\d+)")),
)
_UNTRUSTED_END = "</untrusted_context>"
_ID_LINE = re.compile(r'^\s*"id": "([^"]+)"')  # a pretty-printed legacy message's id
# The shell tool's answer when the CLI refuses a command before running it (Gemini CLI blocks
# every command substitution: a public skill's `X=$(git rev-parse ...)` step). It is the whole
# output, unwrapped: a command that ran has its output inside `<untrusted_context>`, so no
# command's own output can read as this refusal.
_SHELL_REFUSED = re.compile(
    r"\ACommand injection detected: [^\n]*This is a security risk and the command was blocked\.\Z"
)
# What each file tool does to its path argument: (input key, record kind, access).
FILE_TOOLS: dict[str, tuple[str, RecordKind, str]] = {
    "read_file": ("file_path", "file_read_observed", "read"),
    "write_file": ("file_path", "file_write_observed", "write"),
    "replace": ("file_path", "file_write_observed", "write"),
    "list_directory": ("dir_path", "file_read_observed", "list"),
    "grep_search": ("dir_path", "file_read_observed", "read"),
}
# The tool that fetches URLs (given in its `prompt`); `google_web_search` fetches none the
# agent chose: its query is kept (evidence/fetches.py, `SEARCH_QUERY`).
WEB_FETCH_TOOL = "web_fetch"
WEB_SEARCH_TOOL = "google_web_search"
# `read_many_files` (not offered by 0.61.0's default tools, but a session of another version or
# settings may hold it): every `include` entry, a path or glob of the workspace, is read.
READ_MANY_TOOL = "read_many_files"
# Tools that touch no file of the agent's choosing: the skill, sub-agent and planning tools (a
# plan lives in the CLI's own temporary directory, whatever path the model gives), the web tools
# (`web_fetch` refuses `file:` URLs), the model's own notes, tasks and questions (the task
# tracker keeps its tasks in the CLI's own temporary directory).
PATHLESS_TOOLS = frozenset(
    {
        SKILL_TOOL,
        SPAWN_TOOL,
        COMPLETE_TOOL,
        "web_fetch",
        "google_web_search",
        "write_todos",
        "ask_user",
        "enter_plan_mode",
        "exit_plan_mode",
        "update_topic",
        "tracker_create_task",
        "tracker_update_task",
        "tracker_get_task",
        "tracker_list_tasks",
        "tracker_add_dependency",
        "tracker_visualize",
    }
)


def _texts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    if isinstance(content, list):
        return [str(p["text"]) for p in content if isinstance(p, dict) and "text" in p]
    return []


def result_text(result: Any) -> str:
    """The text a tool call's result gave the model (its functionResponse outputs)."""
    texts = []
    for part in result if isinstance(result, list) else []:
        response = part.get("functionResponse") if isinstance(part, dict) else None
        body = response.get("response") if isinstance(response, dict) else None
        if isinstance(body, dict):
            for key in ("output", "error", "content"):
                if isinstance(body.get(key), str):
                    texts.append(str(body[key]))
                    break
            else:
                texts.append(json.dumps(body, ensure_ascii=False))
    return "\n".join(texts)


def legacy_messages(
    path: Path, stats: ReadStats
) -> tuple[dict[str, Any], list[tuple[int, dict[str, Any]]]] | None:
    """A legacy session (`session-*.json`, one JSON document rewritten whole, which CLIs before
    the JSONL log wrote and 0.61.0 still reads): its metadata and its `messages`, each with the
    line its id is written on; None when the file is not one."""
    document = json_document(path) if path.suffix == ".json" else None
    if document is None or not isinstance(document.get("messages"), list):
        return None
    id_lines: dict[str, int] = {}
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            stats.lines = number
            found = _ID_LINE.match(raw.decode("utf-8", "replace"))
            if found:
                id_lines.setdefault(found.group(1), number)
    meta = {k: v for k, v in document.items() if k != "messages"}
    messages = [
        (id_lines.get(str(m.get("id")), 1), m) for m in document["messages"] if isinstance(m, dict)
    ]
    return meta, messages


def session_messages(
    path: Path, stats: ReadStats
) -> tuple[dict[str, Any], list[tuple[int, dict[str, Any]]]]:
    """The session's metadata record and its messages as the file leaves them, each with the
    line it was last written on."""
    legacy = legacy_messages(path, stats)
    if legacy is not None:
        return legacy
    meta: dict[str, Any] = {}
    order: list[str] = []
    messages: dict[str, tuple[int, dict[str, Any]]] = {}
    anonymous = 0
    for line, record in read_objects(path, stats):
        if not meta and "sessionId" in record and "type" not in record:
            meta = record
            continue
        if "$rewindTo" in record:
            target = str(record["$rewindTo"])
            if target in order:
                for dropped in order[order.index(target) :]:
                    messages.pop(dropped, None)
                order = order[: order.index(target)]
            continue
        if "$set" in record:
            update = record["$set"]
            if isinstance(update, dict) and isinstance(update.get("messages"), list):
                order, messages = [], {}
                for message in update["messages"]:
                    if isinstance(message, dict):
                        key = str(message.get("id") or f"anon-{anonymous}")
                        anonymous += 1
                        order.append(key)
                        messages[key] = (line, message)
            continue
        key = str(record.get("id") or f"anon-{anonymous}")
        anonymous += 1
        if key not in messages:
            order.append(key)
        messages[key] = (line, record)
    return meta, [messages[key] for key in order]


def _answered_ids(result: Any) -> list[str]:
    """The call ids a result's `functionResponse` parts answer."""
    parts = result if isinstance(result, list) else [result]
    found = []
    for part in parts:
        response = part.get("functionResponse") if isinstance(part, dict) else None
        if isinstance(response, dict) and response.get("id") is not None:
            found.append(str(response["id"]))
    return found


def shell_trailer(text: str) -> dict[str, re.Match[str]]:
    """The shell tool's own lines after a command's output (`_TRAILER`), read from the end, each
    at most once and in the tool's order: a line above them is the output's."""
    lines = text.rstrip().splitlines()
    if lines and lines[-1].strip() == _UNTRUSTED_END:
        lines.pop()
    found: dict[str, re.Match[str]] = {}
    for name, pattern in _TRAILER:
        match = pattern.fullmatch(lines[-1]) if lines else None
        if match is not None:
            found[name] = match
            lines.pop()
    return found


class GeminiNormalizer(EvidenceBuilder):
    def __init__(
        self, path: Path, home: str | None, skill_links: Mapping[str, str] | None = None
    ) -> None:
        super().__init__(path, home, skill_links)
        self.usage: dict[str, int] = {}
        self.final_text: str | None = None
        self.final_line = 0
        self.completed: tuple[int, str] | None = None  # a sub-agent's `complete_task` result
        self.project_root_read = False
        # The last model turn called no tool, and nothing came after it yet: the model does not
        # speak twice in a row unless a call's answer came between (see `message`).
        self.turn_without_calls = False
        self.recorded_calls: set[str] = set()  # ids of the tool calls the model turns record

    def start(self, meta: dict[str, Any]) -> None:
        ev = self.evidence
        ev.session_id = ev.thread_id = meta.get("sessionId")
        ev.originator = f"gemini-cli ({meta.get('kind') or 'main'})"
        if meta.get("kind") == SUBAGENT_KIND:  # its parent is named by its folder alone
            directories = meta.get("directories")
            if isinstance(directories, list) and directories and isinstance(directories[0], str):
                ev.cwd = directories[0]
        ev.add(
            "session_start",
            1,
            timestamp=meta.get("startTime"),
            detail=f"session {ev.thread_id}, project {meta.get('projectHash')}",
        )

    def message(self, line: int, record: dict[str, Any]) -> None:
        ev = self.evidence
        kind = str(record.get("type"))
        ts = record.get("timestamp")
        if kind == "user":
            # The CLI sends each call's answer back as a user message of `functionResponse`
            # parts; one that answers a call no model turn records means the call was erased
            # from the file (a command can rewrite its own session: Gemini CLI runs commands
            # unsandboxed). Whatever that call did is not shown.
            if any(a not in self.recorded_calls for a in _answered_ids(record.get("content"))):
                ev.opaque.append((f"L{line}", SESSION_REWRITTEN))
            for text in _texts(record.get("content")):
                if _CONTEXT_TAG.match(text):
                    found = _WORKSPACE.search(text)
                    if found and ev.cwd is None:
                        ev.cwd = found.group(1)
                elif ev.first_user_message is None and text.strip():
                    ev.first_user_message = text
            self.final_text = None
        elif kind == "gemini":
            if self.turn_without_calls:
                # Two model turns in a row: the first one's call and its answer are gone from
                # the file (see the `functionResponse` check above).
                ev.opaque.append((f"L{line}", SESSION_REWRITTEN))
            tokens = record.get("tokens")
            if isinstance(tokens, dict):
                for key, value in tokens.items():
                    if isinstance(value, int) and not isinstance(value, bool):
                        self.usage[key] = self.usage.get(key, 0) + value
            calls = [c for c in record.get("toolCalls") or [] if isinstance(c, dict)]
            for call in calls:
                self.tool_call(line, ts, call)
            text = "".join(_texts(record.get("content")))
            ev.said(line, text)
            self.final_text = text if text.strip() and not calls else None
            self.final_line = line
            self.turn_without_calls = not calls
            return
        elif kind not in MESSAGE_TYPES:
            ev.unknown_types[kind] = ev.unknown_types.get(kind, 0) + 1
        self.turn_without_calls = False

    def tool_call(self, line: int, ts: str | None, call: dict[str, Any]) -> None:
        ev = self.evidence
        call_id = str(call.get("id"))
        self.recorded_calls.add(call_id)
        name = str(call.get("name"))
        raw = call.get("args")
        args: dict[str, Any] = raw if isinstance(raw, dict) else {}
        ts = call.get("timestamp") or ts
        ev.add(
            "tool_call",
            line,
            timestamp=ts,
            call_id=call_id,
            tool=name,
            text=excerpt(json.dumps(args, ensure_ascii=False)),
        )
        status = call.get("status")
        text = result_text(call.get("result"))
        if name == SPAWN_TOOL:
            prompt = str(args.get("prompt") or "")
            ev.spawned(line, call_id, prompt, False, timestamp=ts, tool=name)
        if call.get("result") is not None:
            result = ev.add("tool_result", line, timestamp=ts, call_id=call_id, text=excerpt(text))
            if any(answered != call_id for answered in _answered_ids(call.get("result"))):
                ev.opaque.append((result.id, SESSION_REWRITTEN))
            if name == SPAWN_TOOL:
                ev.spawn_answered(call_id, result.id, None, str(args.get("agent_name") or ""))
        if name == COMPLETE_TOOL and status == "success":
            answer = args.get("result")
            if isinstance(answer, dict) and isinstance(answer.get("response"), str):
                answer = answer["response"]
            final = answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False)
            self.completed = (line, final)
        refused = name == SHELL_TOOL and _SHELL_REFUSED.match(text) is not None
        if status == "cancelled" or refused:
            ev.add(
                "tool_denied",
                line,
                timestamp=ts,
                call_id=call_id,
                tool=name,
                text=excerpt(text),
                detail=(
                    "the agent CLI refused the command before running it"
                    if refused
                    else "the agent CLI cancelled the call; it did not run"
                ),
            )
            return
        self.perform(line, ts, call_id, name, args, text)
        failed = status == "error"
        if name == SHELL_TOOL:
            trailer = shell_trailer(text)
            match = trailer.get("exit")
            if "signal" in trailer:
                exit_code = None  # ended by a signal: no exit code, whatever the output says
            else:
                exit_code = int(match.group(1)) if match else (None if failed else 0)
            if args.get("is_background") is True:
                # The call answers once the command is moved to the background ("Command moved
                # to background (PID: N)"): its success is the move, not the command's end,
                # which may come after the session's, or never (red team 13).
                ev.detached_calls.add(call_id)
                exit_code = None if match is None else exit_code
            command = self.calls.get(call_id)
            if command is not None:
                command.exit_code = exit_code
            failed = failed or bool(exit_code)
        if status in ("success", "error"):
            ev.call_outcomes[call_id] = "failed" if failed else "ok"

    def workspace_unknown(self) -> bool:
        """Whether no workspace is recorded for the calls to run in: not in the session (a
        legacy one records no `<session_context>`), nor beside it in the store the CLI left it
        in (`tmp/<project>/.project_root`, the folder the project is named by)."""
        ev = self.evidence
        if ev.cwd is None and not self.project_root_read:
            self.project_root_read = True
            chats = Path(ev.session_path).parent
            root_file = chats.parent / ".project_root"
            if chats.name == "chats" and root_file.is_file():
                root = root_file.read_text(encoding="utf-8", errors="replace").strip()
                ev.cwd = root if root.startswith("/") else None
        return ev.cwd is None

    def perform(
        self,
        line: int,
        ts: str | None,
        call_id: str,
        name: str,
        args: dict[str, Any],
        result: str = "",
    ) -> None:
        """The accesses of a call that ran, as of the directory it ran in."""
        if result.startswith(f'Tool "{name}" not found'):
            return  # the CLI has no such tool: nothing ran
        if self.workspace_unknown():
            why = f"{name} ran in a working directory the session does not record"
            self.evidence.opaque.append((f"L{line}", why))
            return
        cwd = self.cwd_for(None)
        self.evidence.add(
            "tool_workdir_observed",
            line,
            timestamp=ts,
            call_id=call_id,
            tool=name,
            path=cwd,
            source="record-cwd",
        )
        if name == SHELL_TOOL:
            workdir = args.get("dir_path")
            self.observe_command(
                line,
                ts,
                call_id,
                name,
                str(args.get("command") or ""),
                str(workdir) if workdir else None,
                "workdir-arg",
            )
        elif name in FILE_TOOLS:
            key, kind, access = FILE_TOOLS[name]
            target = str(args.get(key) or ".")
            self.observe_path(kind, line, ts, call_id, name, target, cwd, access, "tool-input")
            if kind == "file_write_observed":
                content = args.get("content") if name == "write_file" else None
                self.contents[join_path(cwd, target)] = (
                    content if isinstance(content, str) else None
                )
        elif name == "glob":
            base = str(args.get("dir_path") or ".")
            pattern = str(args.get("pattern") or "")
            target = pattern if pattern.startswith("/") else posixpath.join(base, pattern)
            self.observe_path(
                "file_read_observed", line, ts, call_id, name, target, cwd, "list", "tool-input"
            )
        elif name == READ_MANY_TOOL:
            included = args.get("include")
            for entry in included if isinstance(included, list) else [included]:
                self.observe_path(
                    "file_read_observed",
                    line,
                    ts,
                    call_id,
                    name,
                    str(entry or "."),
                    cwd,
                    "read",
                    "tool-input",
                )
        elif name == WEB_FETCH_TOOL:
            self.observe_fetch(line, ts, call_id, name, args)
        elif name == WEB_SEARCH_TOOL:
            self.observe_search(line, ts, call_id, name, str(args.get("query") or ""))
        elif name not in PATHLESS_TOOLS:
            # A tool the table does not know (a newer CLI's, `save_memory` writing the CLI's
            # GEMINI.md, an MCP server's) may touch any path: what it did is not shown.
            self.evidence.opaque.append((f"L{line}", f"{name} is a tool of unknown accesses"))

    def close(self, stats: ReadStats) -> SessionEvidence:
        ev = self.evidence
        if self.final_text is not None:
            ev.final_answer = self.final_text
            ev.add("final_answer", self.final_line, text=ev.final_answer, source="last-model-text")
            ending = "the last model turn answered in text"
        elif self.completed is not None:
            line, ev.final_answer = self.completed
            ev.add("final_answer", line, text=ev.final_answer, source=COMPLETE_TOOL)
            ending = f"the sub-agent called {COMPLETE_TOOL}"
        ev.complete = ev.final_answer is not None
        if ev.complete:
            ev.add("session_end", stats.lines, detail=ending)
        ev.token_usage = dict(self.usage) or None
        ev.line_count = stats.lines
        ev.bad_lines = stats.bad_lines
        ev.malformed = list(stats.malformed)
        ev.settle_outcomes()
        return ev


def normalize_gemini_session(
    path: Path, *, home: str | None = None, skill_links: Mapping[str, str] | None = None
) -> SessionEvidence:
    normalizer = GeminiNormalizer(path, home, skill_links)
    stats = ReadStats()
    meta, messages = session_messages(path, stats)
    normalizer.start(meta)
    for line, record in messages:
        try:
            normalizer.message(line, record)
        except (TypeError, AttributeError, ValueError, KeyError, RecursionError) as exc:
            why = f"malformed {record.get('type')} record ({type(exc).__name__})"
            stats.skip(line, why)
            normalizer.evidence.opaque.append((f"L{line}", why))
    for line, why in unreadable_lines(stats):
        normalizer.evidence.opaque.append((f"L{line}", why))
    return normalizer.close(stats)
