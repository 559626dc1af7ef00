"""Normalised session evidence: ordered records with stable ids, each pointing at its source line."""

from __future__ import annotations

import codecs
import json
import locale
import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, cast

import msgspec

from evaluator.clipping import clip

if TYPE_CHECKING:
    from evaluator.evidence.content import ToolText

from evaluator.vocabulary import (
    ACCESS_RECORD_KINDS,
    OUTCOMES,
    RECORD_KINDS,
    AccessKind,
    Outcome,
    RecordKind,
)

# A sub-agent's message is kept whole up to this size; a longer one is marked cut.
MAX_SPAWN_MESSAGE = 16384

__all__ = ["RECORD_KINDS", "EvidenceRecord", "SessionEvidence"]

# Sources of a working directory that come from what really ran, not from what was assumed.
RELIABLE_CWD_SOURCES = (
    "item-cwd",
    "workdir-arg",
    "pwd-output",
    "exec-begin-cwd",
    "local-shell-workdir",
    "record-cwd",  # Claude Code: the `cwd` its transcript records with each tool call
)


# Tool calls and results are written to the spill file only; judging and isolation never need them.
SPILL_ONLY_KINDS = ("tool_call", "tool_result")
# An opaque reason: the session file holds an answer to a tool call it does not record, or a
# model turn whose call is gone. A CLI writes its session whole, so only a command of the
# agent's rewrote it (Claude Code and Gemini CLI run commands unsandboxed).
SESSION_REWRITTEN = "the session answers a tool call it does not record"
# Likewise: the file's first message answers one before it (its start was deleted, and the CLI
# wrote the rest anew).
SESSION_TRUNCATED = "the session does not begin with its first message"
SESSION_TAMPERED = (SESSION_REWRITTEN, SESSION_TRUNCATED)
# The same observation (kind, path, access, source) repeated: only the first few stay in memory.
RETAINED_REPEATS = 5
SPILL_IN_MEMORY_BYTES = 8 * 1024 * 1024


# A msgspec Struct: made from keyword values in C (a dataclass's `__init__` of 19 fields was
# most of a record's cost), written by msgspec as `to_json()` writes it (fields in order, every
# None left out: `omit_defaults`, each default being None), and, holding only strings, numbers
# and booleans (nothing that can refer back to it), left out of the cyclic collector (`gc=False`).
class EvidenceRecord(msgspec.Struct, omit_defaults=True, gc=False):
    id: str
    kind: RecordKind
    line: int
    timestamp: str | None = None
    call_id: str | None = None
    tool: str | None = None
    command: str | None = None
    workdir: str | None = None
    path: str | None = None
    access: AccessKind | None = None
    source: str | None = None
    exit_code: int | None = None
    text: str | None = None
    detail: str | None = None
    ref: str | None = None
    # Whether the action behind a file access took effect (`failed`: the tool call failed).
    outcome: Outcome | None = None
    # True for a lexical guess (text that looks like a path), which the complete trace of its
    # tool call may contradict (isolation/trace.py); None for an observed access.
    guess: bool | None = None
    # True for a read or run of a file whose whole content is the agent's own text (it typed
    # it, or a command that read no other file wrote it): its output shows no workspace file.
    own_text: bool | None = None
    # True for a run in a script the session wrote that its own shell may not have reached
    # (after `||`, in a branch or a loop, after `&&`): whether the script ran it is not shown.
    may_not_run: bool | None = None

    def to_json(self) -> dict[str, Any]:
        # Called for every record of a session: the field names are looked up once, not per call.
        return {
            name: value for name in _RECORD_FIELDS if (value := getattr(self, name)) is not None
        }


_RECORD_FIELDS: tuple[str, ...] = EvidenceRecord.__struct_fields__
# One encoder for every spilled record (json.dumps with options builds a new one per call).
_SPILL_ENCODER = json.JSONEncoder(ensure_ascii=False)
# The encoding the spill always had (a text-mode temporary file's). A lone surrogate, which it
# cannot encode, no longer reaches a record: the session readers replace each (`jsonl.loads`;
# one failed the attempt as `blocked (environment)` before, red team 12b).
_SPILL_ENCODING = locale.getpreferredencoding(False)


# msgspec writes a record of strings, integers and booleans about five times faster, and reads
# back the same; like the spill's encoding, it refuses a lone surrogate (UnicodeEncodeError).
# Anything else (a float, which it would write as null when NaN; a list; a dict) goes to `json`.
_FAST_ENCODER = msgspec.json.Encoder() if codecs.lookup(_SPILL_ENCODING).name == "utf-8" else None
_FAST_TYPES = (str, int, bool)


def _spill_line(record: EvidenceRecord, values: dict[str, Any]) -> bytes:
    """`record.to_json()`, encoded, of a record just made from the keyword `values`."""
    if (
        _FAST_ENCODER is not None
        and type(record.line) is int
        and type(record.kind) is str
        and type(record.id) is str
    ):
        for value in values.values():
            if value is not None and type(value) not in _FAST_TYPES:
                break
        else:
            return _FAST_ENCODER.encode(record) + b"\n"
    return (_SPILL_ENCODER.encode(record.to_json()) + "\n").encode(_SPILL_ENCODING)


# The tool texts of a session file up to this many bytes are kept from its one reading
# (`SessionEvidence.tool_texts`); a larger one's are streamed from the file again, keeping memory
# bounded and the reading of a large session as cheap as it was.
KEPT_TOOL_TEXT_BYTES = 2 * 1024 * 1024
# Reads a spilled line back as `json.loads` does (what msgspec refuses, a NaN, goes to `json`).
_FAST_DECODER = msgspec.json.Decoder() if _FAST_ENCODER is not None else None


def _spilled(line: bytes) -> dict[str, Any]:
    if _FAST_DECODER is not None:
        try:
            decoded: dict[str, Any] = _FAST_DECODER.decode(line)
            return decoded
        except msgspec.DecodeError:
            pass
    loaded: dict[str, Any] = json.loads(line.decode(_SPILL_ENCODING))
    return loaded


class SpillFile:
    """Every record of a session, one JSON line each, in order: in memory until large, then a
    deleted-on-close file. Lines are encoded as they come and written in batches: a write per
    record costs more than making the record."""

    BATCH = 512

    def __init__(self) -> None:
        self._file: IO[bytes] = tempfile.SpooledTemporaryFile(  # noqa: SIM115
            max_size=SPILL_IN_MEMORY_BYTES, mode="w+b"
        )
        self._pending: list[bytes] = []

    def write(self, line: bytes) -> None:
        pending = self._pending
        pending.append(line)
        if len(pending) >= self.BATCH:
            self._flush()

    def _flush(self) -> None:
        if self._pending:
            self._file.write(b"".join(self._pending))
            self._pending.clear()

    def lines(self) -> Iterator[bytes]:
        """Every line written so far, from the first; writing may go on afterwards."""
        self._flush()
        self._file.seek(0)
        try:
            yield from self._file
        finally:
            self._file.seek(0, 2)

    def close(self) -> None:
        self._pending.clear()
        self._file.close()


@dataclass
class SubagentSpawn:
    """A sub-agent the session started, in every agent's terms: the message it was given,
    whether it inherits the parent's context, and (once the call answered) its id and
    nickname. Each agent's normaliser fills it from its own spawn tool."""

    record: str  # the `subagent_spawned` record's id, what verdicts cite
    call_id: str
    message: str
    message_cut: bool  # the message was longer than MAX_SPAWN_MESSAGE
    fork_context: bool | None  # None: the agent did not say
    child_id: str | None = None
    nickname: str | None = None
    result_record: str | None = None  # the id of the call's result record
    # The parent's record that shows the helper had finished (the spawn's own result when the
    # agent waited for it, a wait's result naming it done): what the parent did after it, the
    # helper did not see happen. None: its end is not recorded (a background helper).
    finished_record: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {name.name: getattr(self, name.name) for name in fields(self)}


@dataclass
class SessionEvidence:
    """Header facts, plus the records. `records` holds what judging and isolation use; every
    record, in order, is in the spill file and reaches `accepted-session.json` (`write_json`)."""

    session_path: str
    thread_id: str | None = None
    session_id: str | None = None
    parent_thread_id: str | None = None
    agent_nickname: str | None = None
    cwd: str | None = None
    cli_version: str | None = None
    originator: str | None = None
    first_user_message: str | None = None
    final_answer: str | None = None
    complete: bool = False
    aborted: bool = False
    token_usage: dict[str, Any] | None = None
    records: list[EvidenceRecord] = field(default_factory=list)
    opaque: list[tuple[str, str]] = field(default_factory=list)
    line_count: int = 0
    bad_lines: int = 0
    malformed: list[tuple[int, str]] = field(default_factory=list)  # (line, why) skipped
    unknown_types: dict[str, int] = field(default_factory=dict)
    record_count: int = 0
    _spill: SpillFile | None = field(default=None, repr=False)
    _repeats: dict[tuple[str, str | None, str | None, str | None], int] = field(
        default_factory=dict, repr=False
    )
    # Outcome per tool call, filled as results arrive; access records take theirs from it.
    call_outcomes: dict[str, Outcome] = field(default_factory=dict, repr=False)
    # Every sub-agent the session started, in order (what the sub-agent checks judge); False
    # only for evidence saved before spawns were recorded, which cannot say.
    spawns: list[SubagentSpawn] = field(default_factory=list)
    spawns_recorded: bool = True
    # Tool calls whose work may go on after their result (Claude Code's Bash with
    # `run_in_background`, a Codex exec session still running): their end is not the result's.
    detached_calls: set[str] = field(default_factory=set)
    # What the agent said to the user, in order: every assistant text of the session (its final
    # answer too), as (session line, text), filled by each agent's normaliser. False only for
    # evidence saved before messages were recorded, which cannot say what else was said.
    messages: list[tuple[int, str]] = field(default_factory=list)
    messages_recorded: bool = True
    # (session line, path) of each file or tree a command changed in a way the session does not
    # show (an archive extracted, a patch applied by git): what it made there may have been a
    # symlink, gone from disk by the end of the run (isolation checks paths through them).
    unknown_writes: list[tuple[int, str]] = field(default_factory=list, repr=False)
    # The session's tool inputs and outputs, whole, as the one reading of the file met them
    # (each with the call id an output answers), for the content proof; None when the reader
    # kept none (another agent's, or a file over `KEPT_TOOL_TEXT_BYTES`): it reads them again.
    tool_texts: list[tuple[ToolText, str]] | None = field(default=None, repr=False)

    def said(self, line: int, text: str) -> None:
        """Records one assistant message; the same text again at once (one message the agent's
        file holds twice, as an event and as a response item) is kept once."""
        if text.strip() and (not self.messages or self.messages[-1][1] != text):
            self.messages.append((line, text))

    def outcome_of(self, record: EvidenceRecord | dict[str, Any]) -> Outcome | None:
        kind = record.kind if isinstance(record, EvidenceRecord) else record.get("kind")
        if kind not in ACCESS_RECORD_KINDS:
            return None
        explicit = record.outcome if isinstance(record, EvidenceRecord) else record.get("outcome")
        if explicit in OUTCOMES:
            return cast(Outcome, explicit)
        call_id = record.call_id if isinstance(record, EvidenceRecord) else record.get("call_id")
        return self.call_outcomes.get(str(call_id), "unknown") if call_id else "unknown"

    def settle_outcomes(self) -> None:
        """Gives every access record held in memory its call's outcome (once results are in)."""
        for record in self.records:
            if record.kind in ACCESS_RECORD_KINDS:
                record.outcome = self.outcome_of(record)

    def add(self, kind: RecordKind, line: int, **values: Any) -> EvidenceRecord:
        self.record_count += 1
        record = EvidenceRecord(id=f"msg-{self.record_count}", kind=kind, line=line, **values)
        if self._spill is None:
            self._spill = SpillFile()  # lives as long as the evidence
        if kind != "command_observed":  # its exit code arrives later; written from memory
            self._spill.write(_spill_line(record, values))
        else:
            self._spill.write(b"\n")
        if kind in SPILL_ONLY_KINDS:
            record.text = None
            return record
        if kind in ACCESS_RECORD_KINDS:
            key = (kind, record.path, record.access, record.source)
            seen = self._repeats.get(key, 0)
            self._repeats[key] = seen + 1
            if seen >= RETAINED_REPEATS:
                return record
        self.records.append(record)
        return record

    def spawned(
        self,
        line: int,
        call_id: str,
        message: str,
        fork_context: bool | None,
        *,
        timestamp: str | None = None,
        tool: str | None = None,
    ) -> SubagentSpawn:
        """Records a tool call that started a sub-agent."""
        cut = len(message) > MAX_SPAWN_MESSAGE
        record = self.add(
            "subagent_spawned",
            line,
            timestamp=timestamp,
            call_id=call_id,
            tool=tool,
            text=clip(message, 200),
        )
        spawn = SubagentSpawn(
            record.id, call_id, clip(message, MAX_SPAWN_MESSAGE), cut, fork_context
        )
        self.spawns.append(spawn)
        return spawn

    def spawn_answered(
        self, call_id: str, result_record: str, child_id: str | None, nickname: str | None
    ) -> None:
        """What the spawn call answered: the child's id and nickname, where the agent gives one."""
        for spawn in self.spawns:
            if spawn.call_id == call_id:
                spawn.result_record = result_record
                spawn.child_id = child_id or spawn.child_id
                spawn.nickname = nickname or spawn.nickname

    def spawn_finished(self, record_id: str, *, call_id: str = "", child_id: str = "") -> None:
        """The record that shows a spawned helper (by spawn call or child id) had finished; the
        first one counts."""
        for spawn in self.spawns:
            mine = (call_id and spawn.call_id == call_id) or (
                child_id and spawn.child_id == child_id
            )
            if mine and spawn.finished_record is None:
                spawn.finished_record = record_id

    def spawn_woken(self, child_id: str | None) -> None:
        """A call that gave a finished helper more to do (a message to it, a resume): its acts
        go on past the end recorded so far, so that end bounds nothing until a later one is
        recorded. A target that names no known helper wakes every one (it may be any)."""
        known = any(spawn.child_id == child_id for spawn in self.spawns) if child_id else False
        for spawn in self.spawns:
            if not known or spawn.child_id == child_id:
                spawn.finished_record = None

    def iter_records(self) -> Any:
        """Every record in id order, as JSON-ready dicts (streamed from the spill file)."""
        commands = {r.id: r for r in self.records if r.kind == "command_observed"}
        if self._spill is None:
            return
        for index, line in enumerate(self._spill.lines(), start=1):
            if line == b"\n":
                command = commands.get(f"msg-{index}")
                if command is not None:
                    yield command.to_json()
                continue
            data = _spilled(line)
            if data.get("kind") in ACCESS_RECORD_KINDS and "outcome" not in data:
                data["outcome"] = self.outcome_of(data)
            yield data

    def write_json(self, path: Path) -> None:
        """Streams `accepted-session.json` so a huge session never sits in memory at once."""
        header = self.to_json(include_records=False)
        text = json.dumps(header, indent=2, ensure_ascii=False)
        temp = path.with_name(f".{path.name}.tmp")
        with temp.open("w", encoding="utf-8") as handle:
            handle.write(text[: text.rindex("}")].rstrip() + ',\n  "records": [')
            for index, record in enumerate(self.iter_records()):
                handle.write(
                    ("\n    " if index == 0 else ",\n    ") + _SPILL_ENCODER.encode(record)
                )
            handle.write("\n  ]\n}\n")
        os.replace(temp, path)  # readers never see a half-written file

    def header_only(self) -> SessionEvidence:
        """This evidence without its records (the spill file closed): what goes back to a run's
        driver once the judging that needed the records is done and the bundle holds them."""
        header = replace(
            self, records=[], _spill=None, _repeats={}, call_outcomes={}, tool_texts=None
        )
        if self._spill is not None:
            self._spill.close()
        return header

    def of_kind(self, *kinds: str) -> list[EvidenceRecord]:
        return [r for r in self.records if r.kind in kinds]

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SessionEvidence:
        """Reads back `accepted-session.json` (what `agentic-eval judge` re-judges from)."""
        names = set(_RECORD_FIELDS)
        evidence = cls(session_path=str(data.get("session_path", "")))
        for key in (
            "thread_id",
            "session_id",
            "parent_thread_id",
            "agent_nickname",
            "cwd",
            "cli_version",
            "originator",
            "first_user_message",
            "final_answer",
            "token_usage",
        ):
            setattr(evidence, key, data.get(key))
        evidence.complete = bool(data.get("complete"))
        evidence.aborted = bool(data.get("aborted"))
        evidence.line_count = int(data.get("line_count") or 0)
        evidence.bad_lines = int(data.get("bad_lines") or 0)
        evidence.unknown_types = dict(data.get("unknown_types") or {})
        evidence.malformed = [
            (int(m["line"]), str(m["reason"])) for m in data.get("malformed") or []
        ]
        evidence.opaque = [(o["ref"], o["reason"]) for o in data.get("opaque") or []]
        known = {f.name for f in fields(SubagentSpawn)}
        evidence.spawns_recorded = isinstance(data.get("spawns"), list)
        evidence.spawns = [
            SubagentSpawn(**{k: v for k, v in raw.items() if k in known})
            for raw in data.get("spawns") or []
            if isinstance(raw, dict)
            and known - {"child_id", "nickname", "result_record", "finished_record"} <= set(raw)
        ]
        evidence.messages_recorded = isinstance(data.get("messages"), list)
        evidence.messages = [
            (int(m.get("line") or 0), str(m["text"]))
            for m in data.get("messages") or []
            if isinstance(m, dict) and isinstance(m.get("text"), str)
        ]
        for raw in data.get("records") or []:
            values = {
                k: v for k, v in raw.items() if k in names and k not in ("id", "kind", "line")
            }
            evidence.add(raw["kind"], int(raw.get("line") or 0), **values)
        return evidence

    def to_json(self, include_records: bool = True) -> dict[str, Any]:
        return {
            "format": "agentic-eval/accepted-session@1",
            "session_path": self.session_path,
            "thread_id": self.thread_id,
            "session_id": self.session_id,
            "parent_thread_id": self.parent_thread_id,
            "agent_nickname": self.agent_nickname,
            "cwd": self.cwd,
            "cli_version": self.cli_version,
            "originator": self.originator,
            "first_user_message": self.first_user_message,
            "final_answer": self.final_answer,
            "complete": self.complete,
            "aborted": self.aborted,
            "token_usage": self.token_usage,
            "line_count": self.line_count,
            "bad_lines": self.bad_lines,
            "malformed": [{"line": line, "reason": why} for line, why in self.malformed],
            "unknown_types": self.unknown_types,
            "opaque": [{"ref": ref, "reason": reason} for ref, reason in self.opaque],
            "spawns": [spawn.to_json() for spawn in self.spawns],
            "messages": [{"line": line, "text": text} for line, text in self.messages],
            "record_count": self.record_count,
            **({"records": list(self.iter_records())} if include_records else {}),
        }
