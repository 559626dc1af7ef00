"""From a Codex rollout to SessionEvidence: commands, working directories, reads, writes, final
answer (the format half; `evidence/builder.py` turns what ran into records).

Function-call arguments are the primary record of what ran (codex writes no item for sandbox-
denied or killed commands); `item_completed` items and older `exec_command_*` events enrich them
with the real cwd, codex's own parse and exit codes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evaluator.adapters.codex.rollout import RolloutEntry, rollout_entry
from evaluator.evidence.builder import EvidenceBuilder, argv_command, excerpt, file_uri_path
from evaluator.evidence.jscode import scan_javascript
from evaluator.evidence.jsonl import (
    JSON_DECODER,
    MAY_NEST_DEEP,
    ReadStats,
    loads,
    read_objects,
    unreadable_lines,
)
from evaluator.evidence.records import KEPT_TOOL_TEXT_BYTES, SessionEvidence
from evaluator.modelserver.responses_items import content_text, is_injected, output_text
from evaluator.vocabulary import Outcome

if TYPE_CHECKING:
    from evaluator.evidence.content import ToolText

KNOWN_LINE_TYPES = {
    "session_meta",
    "response_item",
    "event_msg",
    "turn_context",
    "world_state",
    "token_usage_record",
    "inter_agent_communication_metadata",
    "compacted",
}
_FAILED_OUTPUTS = (
    "patch rejected",
    "verification failed",
    "apply_patch verification failed",
    "Script failed",
    "Script error",
    "aborted by user",
    "unsupported call",
)
_EXIT_PATTERNS = (
    re.compile(r"Process exited with code (-?\d+)"),
    re.compile(r"^Exit code: (-?\d+)", re.MULTILINE),
)

# The tools that start a sub-agent, as Codex records them (under its namespaces).
# Codex's own web search (a hosted tool: the model service runs it, the rollout records it).
WEB_SEARCH_TOOL = "web_search"
SPAWN_TOOLS = ("spawn_agent", "multi_agent_v1.spawn_agent", "collaboration.spawn_agent")
# The calls whose output gives each awaited helper's state by its thread id (multi-agent v1:
# `{"status": {"<child id>": {"completed": "..."}}, "timed_out": false}`); v2's `wait_agent`
# names no helper, so it shows none finished.
WAIT_TOOLS = ("wait_agent", "multi_agent_v1.wait_agent")
# An exec output whose process had not exited when the call answered (`yield_time_ms`).
STILL_RUNNING = "Process running with session ID"
# Codex's answer to a command its exec policy refused before starting it (`rm -f style commands
# are not permitted`, "blocked by policy"): nothing of the command ran.
REFUSED_EXEC = 'exec_command failed: CreateProcess { message: "Rejected('

# The calls that give a helper more to do after it finished (by its id in `target` or `id`;
# v2's name it by task path): its acts then go on past the end a wait showed.
WAKE_TOOLS = frozenset({"send_input", "resume_agent", "followup_task", "send_message"})
# A helper's state that no later act of its follows (`running` and `pending_init` do not end it).
_ENDED_STATES = ("completed", "errored", "shutdown")
# The tool that shows the model an image file: Codex opens the file in its own process (no
# process for the trace to see, outside its command sandbox), by a path the model chooses,
# relative to the working directory (red team 14: `/etc/hostname`, a file next to the eval).
VIEW_IMAGE_TOOL = "view_image"
# Tools that touch no file of the agent's choosing (by name, whatever the namespace): the
# multi-agent tools of both versions, the model's plan, goals and questions, the deferred-tool
# search. Any other function or custom tool (an MCP server's, a newer CLI's) may touch any path:
# what it did is not shown, unless Codex answered that it has no such tool.
PATHLESS_TOOLS = frozenset(
    {
        "spawn_agent",
        "wait_agent",
        "close_agent",
        "resume_agent",
        "send_input",
        "followup_task",
        "interrupt_agent",
        "list_agents",
        "send_message",
        "update_plan",
        "request_user_input",
        "get_goal",
        "create_goal",
        "update_goal",
        "tool_search",
        "wait",
        WEB_SEARCH_TOOL,
    }
)
# Codex's answer to a call of a tool it does not offer: nothing ran.
UNSUPPORTED_CALL = "unsupported call: "
# The user-role message Codex itself puts into a parent's turn when a helper it spawned ends,
# waited for or not: `<subagent_notification>\n{"agent_path": "<child id>", "status":
# {"completed": "..."}}\n</subagent_notification>`. Only Codex writes a user-role item; the
# model cannot, and a tool output holding the same text is a tool output, never this. Codex
# marks the item's content as its notification (`content_item_kinds`): an item without that mark
# (a prompt written to look like one) is no end.
NOTIFICATION_OPEN, NOTIFICATION_CLOSE = "<subagent_notification>", "</subagent_notification>"
NOTIFICATION_KIND = "multi_agent.subagent_notification"


def _notice_kind(item: dict[str, Any]) -> bool:
    meta = item.get("internal_chat_message_metadata_passthrough")
    kinds = meta.get("content_item_kinds") if isinstance(meta, dict) else None
    return isinstance(kinds, list) and NOTIFICATION_KIND in kinds


def _ended(state: object) -> bool:
    return state in _ENDED_STATES or (
        isinstance(state, dict) and any(key in state for key in _ENDED_STATES)
    )


def _json_object(text: str) -> dict[str, Any]:
    try:
        value = loads(text)
    except (ValueError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}


def output_exit_code(output: Any) -> int | None:
    # Only text that opens an object or array can decode to an object (or nest too deeply).
    if isinstance(output, str) and output.lstrip(" \t\n\r").startswith(("{", "[")):
        try:
            decoded = loads(output)
        except ValueError:
            decoded = None
        if isinstance(decoded, dict):
            code = (decoded.get("metadata") or {}).get("exit_code")
            return int(code) if isinstance(code, int) else None
    text = output_text(output)
    for pattern in _EXIT_PATTERNS:
        match = pattern.search(text)
        if match:
            return int(match.group(1))
    return None


def output_outcome(output: Any, code: int | None) -> Outcome:
    """Whether a tool call took effect, from its exit code or, without one, its output text."""
    if code is not None:
        return "ok" if code == 0 else "failed"
    text = output_text(output)
    if any(marker in text for marker in _FAILED_OUTPUTS):
        return "failed"
    if "Script completed" in text or "Success. Updated the following files" in text:
        return "ok"
    return "unknown"


class CodexNormalizer(EvidenceBuilder):
    def __init__(
        self, path: Path, home: str | None, skill_links: Mapping[str, str] | None = None
    ) -> None:
        super().__init__(path, home, skill_links)
        self.meta_seen = 0
        self.skipping_fork_copy = False
        self.wait_calls: set[str] = set()
        # Calls of tools of unknown accesses, by call id (the record's id): opaque unless
        # Codex answers that it has no such tool.
        self.unknown_calls: dict[str, tuple[str, str]] = {}

    # --------------------------------------------------------------------- entries
    def session_meta(self, line: int, ts: str | None, p: dict[str, Any]) -> None:
        self.meta_seen += 1
        ev = self.evidence
        if self.meta_seen > 1:
            # A forked child carries a copy of the parent's meta and early records next.
            self.skipping_fork_copy = True
            return
        ev.thread_id = p.get("id")
        ev.session_id = p.get("session_id") or p.get("id")
        ev.cwd = p.get("cwd")
        ev.cli_version = p.get("cli_version")
        ev.originator = p.get("originator")
        spawn = (
            ((p.get("source") or {}).get("subagent") or {})
            if isinstance(p.get("source"), dict)
            else {}
        )
        thread_spawn = spawn.get("thread_spawn") if isinstance(spawn, dict) else None
        ev.parent_thread_id = p.get("parent_thread_id") or (thread_spawn or {}).get(
            "parent_thread_id"
        )
        ev.agent_nickname = p.get("agent_nickname") or (thread_spawn or {}).get("agent_nickname")
        ev.add(
            "session_start",
            line,
            timestamp=ts or p.get("timestamp"),
            path=ev.cwd,
            detail=f"thread {ev.thread_id}, cli {ev.cli_version}, cwd {ev.cwd} (not proof)",
        )

    def web_search(self, line: int, ts: str | None, p: dict[str, Any]) -> None:
        """Codex's own web search (a tool the model service runs, recorded as the item it
        streamed): a page it opened (`open_page`, `find_in_page`) is a fetch of that URL; a
        search (`search`) is its query, the pages behind its results unseen."""
        given = p.get("action")
        action: dict[str, Any] = given if isinstance(given, dict) else {}
        call_id = str(p.get("id") or "") or None
        url = action.get("url")
        if action.get("type") in ("open_page", "find_in_page") and isinstance(url, str):
            self.observe_fetch(line, ts, call_id or "", WEB_SEARCH_TOOL, {"url": url})
        elif action.get("type") == "search":
            self.observe_search(line, ts, call_id, WEB_SEARCH_TOOL, str(action.get("query") or ""))

    def response_item(self, line: int, ts: str | None, p: dict[str, Any]) -> None:
        kind = p.get("type")
        ev = self.evidence
        if kind == "message":
            text = content_text(p.get("content"))
            if p.get("role") == "user":
                if ev.first_user_message is None and not is_injected(text):
                    ev.first_user_message = text
                elif text.lstrip().startswith(NOTIFICATION_OPEN) and _notice_kind(p):
                    self.helper_notified(line, ts, text)
            elif p.get("role") == "assistant":
                self.last_assistant = text
                ev.said(line, text)
        elif kind == "function_call":
            self.function_call(line, ts, p)
        elif kind == "local_shell_call":
            action = p.get("action") or {}
            call_id = p.get("call_id") or p.get("id")
            ev.add("tool_call", line, timestamp=ts, call_id=call_id, tool="local_shell")
            workdir = action.get("working_directory")
            self.observe_command(
                line,
                ts,
                call_id,
                "local_shell",
                argv_command(action.get("command")),
                workdir,
                "local-shell-workdir",
            )
        elif kind == "custom_tool_call":
            name = str(p.get("name"))
            call_id = p.get("call_id")
            raw_input = str(p.get("input") or "")
            record = ev.add(
                "tool_call",
                line,
                timestamp=ts,
                call_id=call_id,
                tool=name,
                text=excerpt(raw_input),
            )
            if name == "apply_patch":
                self.observe_patch(line, ts, call_id, raw_input, self.cwd_for(None), "patch-header")
            elif name == "exec":
                self.javascript(line, ts, call_id, raw_input)
            elif name not in PATHLESS_TOOLS:
                self.unknown_call(call_id, record.id, name)
        elif kind == "web_search_call":
            self.web_search(line, ts, p)
        elif kind in ("function_call_output", "custom_tool_call_output"):
            call_id = p.get("call_id")
            output = p.get("output")
            code = output_exit_code(output)
            text = output_text(output)
            result = ev.add(
                "tool_result",
                line,
                timestamp=ts,
                call_id=call_id,
                exit_code=code,
                text=excerpt(text),
            )
            if any(spawn.call_id == str(call_id) for spawn in ev.spawns):
                answer = _json_object(text)
                ev.spawn_answered(
                    str(call_id),
                    result.id,
                    str(answer.get("agent_id") or "") or None,
                    str(answer.get("nickname") or "") or None,
                )
            if str(call_id) in self.wait_calls:
                self.helpers_ended(result.id, text)
            if call_id and STILL_RUNNING in text:
                ev.detached_calls.add(str(call_id))
            call = self.calls.get(str(call_id))
            if call is not None and call.exit_code is None and code is not None:
                call.exit_code = code
            if call_id:
                self.evidence.call_outcomes[str(call_id)] = output_outcome(output, code)
            if call_id and text.startswith(REFUSED_EXEC):
                # Like Claude Code's permission denial: the trace has no process of it to show.
                self.evidence.call_outcomes[str(call_id)] = "failed"
                ev.add(
                    "tool_denied",
                    line,
                    timestamp=ts,
                    call_id=call_id,
                    tool="exec_command",
                    text=excerpt(text),
                    detail="the agent CLI refused the call; it did not run",
                )
            unknown = self.unknown_calls.pop(str(call_id), None)
            if unknown is not None and text.strip() != UNSUPPORTED_CALL + unknown[1]:
                ev.opaque.append((unknown[0], f"{unknown[1]} is a tool of unknown accesses"))
            if call_id in self.pwd_calls:
                for candidate in text.splitlines():
                    candidate = candidate.strip()
                    if candidate.startswith("/") and " " not in candidate:
                        ev.add(
                            "tool_workdir_observed",
                            line,
                            timestamp=ts,
                            call_id=call_id,
                            path=candidate,
                            source="pwd-output",
                        )

    def function_call(self, line: int, ts: str | None, p: dict[str, Any]) -> None:
        ev = self.evidence
        name = str(p.get("name"))
        namespace = p.get("namespace")
        tool = f"{namespace}.{name}" if namespace else name
        call_id = p.get("call_id")
        raw_args = p.get("arguments")
        try:
            if not isinstance(raw_args, str):
                args = raw_args or {}
            elif (
                len(raw_args) >= MAY_NEST_DEEP
                and raw_args.count("[") + raw_args.count("{") >= MAY_NEST_DEEP
            ):
                args = loads(raw_args)  # deep: `json.loads` alone, as the reader does
            else:
                # msgspec gives `json.loads`'s value at a tenth of its cost; what it refuses
                # (NaN, a lone surrogate) `loads` decides (see `evidence/jsonl.py`).
                try:
                    args = JSON_DECODER.decode(raw_args)
                except ValueError:
                    args = loads(raw_args)
        except ValueError:
            args = {}
        if not isinstance(args, dict):
            args = {}
        call = ev.add(
            "tool_call",
            line,
            timestamp=ts,
            call_id=call_id,
            tool=tool,
            text=excerpt(raw_args if isinstance(raw_args, str) else json.dumps(raw_args)),
        )
        if name == "exec_command":
            self.observe_command(
                line,
                ts,
                call_id,
                tool,
                str(args.get("cmd") or ""),
                args.get("workdir"),
                "workdir-arg",
            )
        elif name in ("shell", "container.exec"):
            self.observe_command(
                line,
                ts,
                call_id,
                tool,
                argv_command(args.get("command")),
                args.get("workdir"),
                "workdir-arg",
            )
        elif name == "shell_command":
            self.observe_command(
                line,
                ts,
                call_id,
                tool,
                str(args.get("command") or ""),
                args.get("workdir"),
                "workdir-arg",
            )
        elif name == "apply_patch":
            self.observe_patch(
                line,
                ts,
                call_id,
                str(args.get("input") or ""),
                self.cwd_for(args.get("workdir")),
                "patch-header",
            )
        elif name == "write_stdin":
            chars = str(args.get("chars") or "")
            if chars.strip():
                ev.opaque.append((call.id, "write_stdin typed input into a running process"))
        elif name == VIEW_IMAGE_TOOL:
            self.observe_path(
                "file_read_observed",
                line,
                ts,
                call_id,
                tool,
                str(args.get("path") or "."),
                self.cwd_for(None),
                "read",
                "tool-input",
                f"{tool} {args.get('path')}",
            )
        elif tool in WAIT_TOOLS and call_id:
            self.wait_calls.add(str(call_id))
        elif name in WAKE_TOOLS and namespace in ("multi_agent_v1", "collaboration", None):
            target = args.get("target") or args.get("id")
            ev.spawn_woken(str(target) if isinstance(target, str) else None)
        elif tool in SPAWN_TOOLS and call_id:
            fork = args.get("fork_context")
            ev.spawned(
                line,
                str(call_id),
                str(args.get("message") or ""),
                fork if isinstance(fork, bool) else None,
                timestamp=ts,
                tool=tool,
            )
        elif name not in PATHLESS_TOOLS:
            self.unknown_call(call_id, call.id, tool)

    def unknown_call(self, call_id: Any, record_id: str, tool: str) -> None:
        if call_id:
            self.unknown_calls[str(call_id)] = (record_id, tool)
        else:
            self.evidence.opaque.append((record_id, f"{tool} is a tool of unknown accesses"))

    def helpers_ended(self, record_id: str, text: str) -> None:
        """A wait's output: each helper it shows in a final state had finished by this record."""
        states = _json_object(text).get("status")
        if not isinstance(states, dict):
            return
        for child, state in states.items():
            if _ended(state):
                self.evidence.spawn_finished(record_id, child_id=str(child))

    def helper_notified(self, line: int, ts: str | None, text: str) -> None:
        """Codex's notice to the parent that a helper ended: the helper had finished by this
        line, as by a wait's output that shows it so (a helper never waited for is bounded
        too)."""
        body = text.lstrip().removeprefix(NOTIFICATION_OPEN).split(NOTIFICATION_CLOSE, 1)[0]
        notice = _json_object(body.strip())
        child, state = notice.get("agent_path"), notice.get("status")
        if not isinstance(child, str) or not _ended(state):
            return
        record = self.evidence.add(
            "subagent_finished", line, timestamp=ts, text=f"sub-agent {child} finished"
        )
        self.evidence.spawn_finished(record.id, child_id=child)

    def javascript(self, line: int, ts: str | None, call_id: str | None, source: str) -> None:
        scan = scan_javascript(source)
        for command in scan.commands:
            self.observe_command(line, ts, None, "exec.exec_command", command, None, "workdir-arg")
        for patch in scan.patches:
            self.observe_patch(line, ts, call_id, patch, self.cwd_for(None), "patch-header")
        for path in scan.paths:
            self.observe_path(
                "file_read_observed",
                line,
                ts,
                call_id,
                "exec",
                path,
                self.cwd_for(None),
                "path",
                "js-literal",
                path,
            )
        for reason in scan.opaque:
            self.evidence.opaque.append((f"L{line}", reason))

    def event(self, line: int, ts: str | None, p: dict[str, Any]) -> None:
        kind = p.get("type")
        ev = self.evidence
        if kind == "item_completed":
            self.item(line, ts, p.get("item") or {})
        elif kind in ("exec_command_begin", "exec_command_end"):
            # Older rollouts: begin carries cwd and parsed_cmd; end the exit code (newer ends
            # repeat the cwd and parse, so an end with a cwd stands for the whole command).
            call = self.calls.get(str(p.get("call_id")))
            if call is not None and isinstance(p.get("exit_code"), int):
                call.exit_code = p["exit_code"]
            if kind == "exec_command_begin" or p.get("cwd"):
                self.command_item(
                    line,
                    ts,
                    p.get("call_id"),
                    p.get("command"),
                    p.get("cwd"),
                    p.get("parsed_cmd"),
                    p.get("exit_code"),
                    "exec-begin-cwd",
                )
        elif kind == "patch_apply_end":
            success = p.get("success")
            status = None if success is None else ("completed" if success else "failed")
            self.file_changes(line, ts, p.get("call_id"), p.get("changes"), status)
        elif kind == "task_started":
            if self.skipping_fork_copy and (p.get("turn_attribution") or {}).get("parent_turn_id"):
                self.skipping_fork_copy = False
        elif kind == "task_complete":
            message = p.get("last_agent_message")
            if message is not None:
                ev.final_answer = str(message)
            ev.complete = True
            ev.aborted = False
            if ev.final_answer is not None:
                ev.add(
                    "final_answer", line, timestamp=ts, text=ev.final_answer, source="task_complete"
                )
            ev.add("session_end", line, timestamp=ts, detail=f"turn {p.get('turn_id')} complete")
        elif kind == "turn_aborted":
            ev.aborted = True
            ev.complete = False
            ev.add("session_end", line, timestamp=ts, detail=f"turn aborted: {p.get('reason')}")
        elif kind == "token_count":
            info = p.get("info") or {}
            if isinstance(info, dict) and info.get("total_token_usage"):
                ev.token_usage = info["total_token_usage"]
        elif kind == "agent_message" and p.get("message"):
            self.last_assistant = str(p["message"])
            self.evidence.said(line, self.last_assistant)

    def item(self, line: int, ts: str | None, item: dict[str, Any]) -> None:
        kind = item.get("type")
        if kind == "CommandExecution":
            self.command_item(
                line,
                ts,
                item.get("id"),
                item.get("command"),
                item.get("cwd"),
                item.get("parsed_cmd"),
                item.get("exit_code"),
                "item-cwd",
            )
        elif kind == "FileChange":
            self.file_changes(line, ts, item.get("id"), item.get("changes"), item.get("status"))
        elif kind == "ImageView" and item.get("path"):
            # The file Codex opened for `view_image` (also a code-mode call's, which has no
            # function call), as the CLI resolved it.
            path = file_uri_path(str(item["path"]))
            self.observe_path(
                "file_read_observed",
                line,
                ts,
                item.get("id"),
                VIEW_IMAGE_TOOL,
                path,
                self.cwd_for(None),
                "read",
                "tool-input",
                f"{VIEW_IMAGE_TOOL} {path}",
            )

    def file_changes(
        self, line: int, ts: str | None, call_id: Any, changes: Any, status: Any = None
    ) -> None:
        """FileChange / patch_apply_end: a map keyed by absolute path, or a list of {path}."""
        if call_id and isinstance(status, str) and status:
            self.evidence.call_outcomes[str(call_id)] = "ok" if status == "completed" else "failed"
        if isinstance(changes, dict):
            for path, change in changes.items():
                if isinstance(change, dict) and change.get("type") == "add":
                    content = change.get("content")
                    self.contents[str(path)] = content if isinstance(content, str) else None
                elif path:
                    self.contents[str(path)] = None
        if isinstance(changes, dict):
            paths = list(changes)
        else:
            paths = [c.get("path") for c in changes or [] if isinstance(c, dict)]
        for path in paths:
            if path:
                self.observe_path(
                    "file_write_observed",
                    line,
                    ts,
                    call_id,
                    "apply_patch",
                    str(path),
                    "/",
                    "write",
                    "file-change",
                )

    def command_item(
        self,
        line: int,
        ts: str | None,
        call_id: Any,
        command: Any,
        cwd: Any,
        parsed: Any,
        exit_code: Any,
        source: str,
    ) -> None:
        ev = self.evidence
        call = self.calls.get(str(call_id)) if call_id else None
        real_cwd = file_uri_path(str(cwd)) if cwd else None
        if real_cwd:
            ev.add(
                "tool_workdir_observed",
                line,
                timestamp=ts,
                call_id=call_id,
                path=real_cwd,
                source=source,
            )
        if call is None and command:
            # Code-mode commands exist only as items; the item is the whole record.
            call = self.observe_command(
                line,
                ts,
                str(call_id) if call_id else None,
                "exec.exec_command",
                argv_command(command),
                real_cwd,
                source,
            )
        if call is not None and isinstance(exit_code, int):
            call.exit_code = exit_code
        if call_id and isinstance(exit_code, int):
            self.evidence.call_outcomes[str(call_id)] = "ok" if exit_code == 0 else "failed"
        if call is not None:
            # The shell parse of the command is the evidence; codex's own parse is a guess
            # that must not add paths the parse contradicts (`grep PATTERN`, URLs).
            return
        for entry in parsed or []:
            if not isinstance(entry, dict) or entry.get("type") not in (
                "read",
                "list_files",
                "search",
            ):
                continue
            access = {"read": "read", "list_files": "list", "search": "read"}[entry["type"]]
            self.observe_path(
                "file_read_observed",
                line,
                ts,
                call_id,
                "exec_command",
                str(entry.get("path") or "."),
                real_cwd or self.cwd_for(None),
                access,
                "parsed_cmd",
                str(entry.get("cmd") or ""),
            )


def normalize_codex_rollout(
    path: Path, *, home: str | None = None, skill_links: Mapping[str, str] | None = None
) -> SessionEvidence:
    """Streams the rollout once; memory grows with the number of tool calls, not the file size."""
    normalizer = CodexNormalizer(path, home, skill_links)
    stats = ReadStats()
    # The tool texts the content proof reads, kept from this reading when the file is small
    # (its texts are no larger): a larger one's are streamed again, its reading costs no more.
    kept: list[tuple[ToolText, str]] | None = [] if _small(path) else None
    if kept is not None:
        # Here, not at the top: reading a large session needs no content module.
        from evaluator.adapters.codex.tool_texts import entry_tool_texts
    size = 0
    for number, record in read_objects(path, stats):
        # `read_rollout`'s entries, without its generator in between (one step per line less).
        entry = rollout_entry(number, record)
        if entry is None:
            continue
        if kept is not None and entry.type == "response_item":
            try:
                for text, call_id in entry_tool_texts(entry):
                    kept.append((text, call_id))
                    size += len(text.text)
            except Exception:
                kept = None  # read again by the same reader, which fails there as it did
            if size > KEPT_TOOL_TEXT_BYTES:
                kept = None
        try:
            _normalize_entry(normalizer, entry)
        except (TypeError, AttributeError, ValueError, KeyError, RecursionError) as exc:
            # A record whose fields have unexpected types: skipped and reported with its line.
            # What it did is unknown, so it is opaque to isolation (never a silent pass).
            why = f"malformed {entry.type} record ({type(exc).__name__})"
            stats.skip(entry.line, why)
            normalizer.evidence.opaque.append((f"L{entry.line}", why))
    for line, why in unreadable_lines(stats):
        normalizer.evidence.opaque.append((f"L{line}", why))
    for record_id, tool in normalizer.unknown_calls.values():
        # No answer recorded (the run was killed): what it asked for may have happened.
        normalizer.evidence.opaque.append((record_id, f"{tool} is a tool of unknown accesses"))
    evidence = normalizer.finish(stats)
    evidence.tool_texts = kept
    return evidence


def _small(path: Path) -> bool:
    try:
        return path.stat().st_size <= KEPT_TOOL_TEXT_BYTES
    except OSError:
        return False


def _normalize_entry(normalizer: CodexNormalizer, entry: RolloutEntry) -> None:
    kind = entry.type
    payload = entry.payload
    if kind == "session_meta":
        normalizer.session_meta(entry.line, entry.timestamp, payload)
        return
    if normalizer.skipping_fork_copy and not (
        kind == "event_msg" and payload.get("type") == "task_started"
    ):
        return
    if kind == "turn_context":
        if payload.get("cwd"):
            normalizer.turn_cwd = str(payload["cwd"])
    elif kind == "response_item":
        normalizer.response_item(entry.line, entry.timestamp, payload)
    elif kind == "event_msg":
        normalizer.event(entry.line, entry.timestamp, payload)
    elif kind not in KNOWN_LINE_TYPES:
        unknown = normalizer.evidence.unknown_types
        unknown[kind] = unknown.get(kind, 0) + 1
