"""Older and unusual rollout formats, from small hand-written fixtures derived from the facts."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from evaluator.adapters import normalize_session, tool_text_source
from evaluator.adapters.codex.runner import read_exec_events
from evaluator.agents.base import AgentHandle
from evaluator.evidence import SessionEvidence
from evaluator.evidence.content import ToolText
from evaluator.evidence.jsonl import ReadStats, read_objects
from evaluator.evidence.tool_texts import session_texts
from evaluator.isolation import assess_isolation
from evaluator.surrogates import well_formed

FIXTURES = Path(__file__).parents[1] / "fixtures/rollouts"


def test_oldest_bare_layout_with_shell_argv_and_json_outputs() -> None:
    ev = normalize_session(FIXTURES / "oldest-bare.jsonl")
    assert ev.thread_id == "0197aaaa-0000-7000-8000-000000000001"
    assert ev.first_user_message == "read the notes"
    commands = ev.of_kind("command_observed")
    assert [(c.command, c.exit_code) for c in commands] == [
        ("cat notes.txt", 0),
        ("cat /etc/passwd", 0),
    ]
    reads = [r.path for r in ev.of_kind("file_read_observed")]
    assert reads == ["/ws/notes.txt", "/etc/passwd"]
    assert ev.final_answer == "The notes say hello."
    assert not ev.complete  # no task_complete in this layout
    report = assess_isolation(ev, Path("/ws"), record_violations=False)
    assert report.verdict == "violation"
    assert [v.path for v in report.violations] == ["/etc/passwd"]


def test_envelope_without_ordinal_with_exec_events_and_function_apply_patch() -> None:
    ev = normalize_session(FIXTURES / "envelope-no-ordinal.jsonl")
    assert ev.cli_version == "0.42.0"
    assert ev.first_user_message == "fix the readme"
    (command,) = ev.of_kind("command_observed")
    assert command.workdir == "/ws/docs" and command.exit_code == 0
    reads = {(r.path, r.source) for r in ev.of_kind("file_read_observed")}
    assert ("/ws/docs/README.md", "shell-parse") in reads
    # codex's own parse is not used when the command's shell parse is available
    assert ("/ws/docs/README.md", "parsed_cmd") not in reads
    writes = {(r.path, r.source) for r in ev.of_kind("file_write_observed")}
    assert ("/ws/docs/README.md", "patch-header") in writes  # relative to the turn cwd /ws
    assert ("/ws/docs/INDEX.md", "patch-header") in writes
    assert ("/ws/docs/INDEX.md", "file-change") in writes
    assert ev.complete and ev.final_answer == "Renamed the readme."


def test_local_shell_code_mode_unknown_types_and_truncated_last_line() -> None:
    ev = normalize_session(FIXTURES / "local-shell-and-code-mode.jsonl")
    assert ev.bad_lines == 1  # the truncated last line
    assert ev.unknown_types == {"some_future_line": 1}
    commands = [c.command for c in ev.of_kind("command_observed")]
    assert commands[0] == "ls -la sub"
    assert "cat notes.txt" in commands
    writes = {r.path for r in ev.of_kind("file_write_observed")}
    assert "/tmp/leak.txt" in writes  # from the JS source: the nested patch left no item
    reads = {r.path for r in ev.of_kind("file_read_observed")}
    assert "/etc/shadow" in reads and "/ws/sub" in reads
    report = assess_isolation(ev, Path("/ws"), record_violations=False)
    assert report.verdict == "violation"
    assert {v.path for v in report.violations} == {"/tmp/leak.txt", "/etc/shadow"}
    assert ev.complete and ev.final_answer == "Looked."


def test_forked_child_uses_its_own_meta_and_skips_the_copied_parent_turn() -> None:
    ev = normalize_session(FIXTURES / "forked-child.jsonl")
    assert ev.thread_id == "019c0000-0000-7000-8000-00000000000c"
    assert ev.parent_thread_id == "019c0000-0000-7000-8000-00000000000p"
    assert ev.agent_nickname == "Heisenberg"
    assert ev.first_user_message == "review notes.txt"
    assert [c.command for c in ev.of_kind("command_observed")] == ["cat notes.txt"]
    report = assess_isolation(ev, Path("/ws"), record_violations=False)
    assert report.verdict == "contained"


def test_record_ids_are_stable_and_point_at_lines() -> None:
    first = normalize_session(FIXTURES / "envelope-no-ordinal.jsonl").to_json()
    second = normalize_session(FIXTURES / "envelope-no-ordinal.jsonl").to_json()
    assert first["records"] == second["records"]
    ids = [r["id"] for r in first["records"]]
    assert ids == [f"msg-{i}" for i in range(1, first["record_count"] + 1)]
    assert all(1 <= r["line"] <= first["line_count"] for r in first["records"])
    kinds = {r["kind"] for r in first["records"]}
    assert {
        "session_start",
        "tool_call",
        "tool_result",
        "command_observed",
        "final_answer",
    } <= kinds


def test_spilled_records_round_trip_and_keep_late_exit_codes(tmp_path: Path) -> None:
    evidence = normalize_session(FIXTURES / "oldest-bare.jsonl")
    out = tmp_path / "accepted-session.json"
    evidence.write_json(out)
    written = json.loads(out.read_text())
    assert written["records"] == evidence.to_json()["records"]
    commands = [r for r in written["records"] if r["kind"] == "command_observed"]
    assert [c["exit_code"] for c in commands] == [0, 0]  # set after the command record was made
    again = SessionEvidence.from_json(written)
    assert again.to_json()["records"] == written["records"]


def test_repeated_observations_stay_on_disk_not_in_memory(tmp_path: Path) -> None:
    session = tmp_path / "s.jsonl"
    lines = [{"type": "session_meta", "payload": {"id": "t", "cwd": "/ws"}}]
    for index in range(40):
        args = json.dumps({"cmd": "cat notes.txt"})
        lines.append(
            {
                "type": "response_item",
                "payload": {
                    "type": "function_call",
                    "name": "exec_command",
                    "arguments": args,
                    "call_id": f"c{index}",
                },
            }
        )
    session.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    evidence = normalize_session(session)
    reads = evidence.of_kind("file_read_observed")
    assert len(reads) == 5  # the first five of forty identical reads
    assert len(evidence.of_kind("command_observed")) == 40
    everything = evidence.to_json()["records"]
    assert sum(r["kind"] == "file_read_observed" for r in everything) == 40


# Lines msgspec and json.loads read differently, or only one of them reads, and lines nested
# around the depth where either gives up (it depends on the stack below the reader).
JSON_EDGE_LINES = [
    b'{"a": 1}',
    b'{"a": NaN, "b": Infinity}',
    b'{"a": "\\ud800"}',
    b'\xef\xbb\xbf{"a": 1}',
    b'{"a": "\xff"}',
    b'{"a": 1.0e400}',
    b'{"a": 123456789012345678901234567890, "b": -0.0, "c": 1.5e-400}',
    b'{"a": 1, "a": 2}',
    b'{"a": 1} trailing',
    b'"a string"',
    b"   ",
    b'{"a":' * 995 + b"1" + b"}" * 995,
    *(b'{"a":' + b"[" * depth + b"]" * depth + b"}" for depth in range(850, 1001)),
    # Around the depth from which the reader asks json.loads alone (MAY_NEST_DEEP), and lines
    # with that many brackets that do not nest: inside strings, side by side, or both.
    *(b'{"a":' + b"[" * depth + b"]" * depth + b"}" for depth in range(490, 511)),
    *(b'{"a":' + b'[{"b":' * depth + b"1" + b"}]" * depth + b"}" for depth in range(245, 256)),
    b'{"a": "' + b"[{" * 600 + b'", "b": NaN}',
    b'{"a": "' + b"[{" * 600 + b'"}',
    b'{"a": [' + b",".join([b"[]", b"{}"] * 600) + b"]}",
    b'{"a": "' + b"[" * 600 + b'", "b": ' + b"[" * 499 + b"]" * 499 + b"}",
    # Long lines (read by msgspec first, their nesting judged after) at every depth around both
    # decoders' limits, arrays and objects.
    *(
        b'{"pad": "' + b"x" * 2100 + b'", "a":' + b"[" * d + b"]" * d + b"}"
        for d in range(850, 1001)
    ),
    *(
        b'{"pad": "' + b"x" * 2100 + b'", "a":' + b'{"a":' * d + b"1" + b"}" * d + b"}"
        for d in range(850, 1001)
    ),
    *(
        b'{"a":' + b"[" * d + b"]" * d + b', "pad": "' + b"x" * 2100 + b'"}'
        for d in range(490, 511)
    ),
    b'{"a": "' + b"[" * 600 + b'", "b": ' + b"[" * 499 + b"]" * 498 + b"}",
]


def _read_with_json_loads(path: Path, stats: ReadStats) -> Iterator[tuple[int, dict[str, Any]]]:
    """The session reader as it was before msgspec: `json.loads` on every line, each lone
    surrogate replaced by U+FFFD (`well_formed`, red team 12b)."""
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            stats.lines = number
            if not raw.strip():
                continue
            try:
                record = well_formed(json.loads(raw))
            except ValueError:
                stats.skip(number, "not JSON (truncated?)")
                continue
            except RecursionError:
                stats.skip(number, "JSON nested too deeply to read")
                continue
            if not isinstance(record, dict):
                stats.skip(number, "not a JSON object")
                continue
            yield number, record


def test_the_session_reader_reads_every_line_as_json_loads_does(tmp_path: Path) -> None:
    session = tmp_path / "edges.jsonl"
    session.write_bytes(b"\n".join(JSON_EDGE_LINES) + b"\n")
    new, old = ReadStats(), ReadStats()
    assert repr(list(read_objects(session, new))) == repr(list(_read_with_json_loads(session, old)))
    assert (new.lines, new.bad_lines, new.malformed) == (old.lines, old.bad_lines, old.malformed)
    assert "JSON nested too deeply to read" in {why for _, why in old.malformed}


def _exec_events_with_json_loads(stdout: Path, handle: AgentHandle) -> None:
    """Codex's `--json` stream read as it was before msgspec (the fields it sets)."""
    for line in stdout.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict) and event.get("type") == "thread.started":
            handle.root_thread_id = handle.root_thread_id or event.get("thread_id")


def _exec_outcome(read: Any, stdout: Path) -> str:
    handle = AgentHandle("codex-exec", stdout.parent, stdout.parent, stdout, stdout, 0.0, 0.0, 0)
    try:
        read(stdout, handle)
    except RecursionError:
        return "RecursionError"
    return repr(handle.root_thread_id)


def test_codex_exec_events_are_read_as_json_loads_reads_them(tmp_path: Path) -> None:
    # Each edge line stands where Codex's first event would: what json.loads reads (or the
    # RecursionError it raises, nested deep) is what the reader gets.
    stdout = tmp_path / "stdout.jsonl"
    seen = set()
    for raw in JSON_EDGE_LINES:
        body = raw.replace(b'{"a":', b'{"type": "thread.started", "thread_id": "t", "a":', 1)
        stdout.write_bytes(body + b"\n")
        expected = _exec_outcome(_exec_events_with_json_loads, stdout)
        assert _exec_outcome(read_exec_events, stdout) == expected, raw[:40]
        seen.add(expected)
    assert {"'t'", "None", "RecursionError"} <= seen


def test_spilled_records_come_back_in_order_across_batches() -> None:
    evidence = SessionEvidence(session_path="s.jsonl")
    texts = ["plain", "é and ✓", "nul \x00 and\nnewline", "line\u2028separator"]
    for index in range(1500):  # several batches of the spill
        evidence.add("tool_result", index, call_id=f"c{index}", text=texts[index % len(texts)])
    records = list(evidence.iter_records())
    assert [r["text"] for r in records] == [texts[i % len(texts)] for i in range(1500)]
    evidence.add("final_answer", 1501, text="after reading")  # writing goes on after a read
    assert [r["text"] for r in evidence.iter_records()][-2:] == [texts[1499 % 4], "after reading"]


def test_spilled_values_of_every_type_read_back_as_json_wrote_them() -> None:
    # A hostile session can put any JSON value where a string is expected (a call id).
    values = [float("nan"), float("inf"), 1.5, 10**30, True, {"a": [1, None]}, "é\u2028", 0]
    evidence = SessionEvidence(session_path="s.jsonl")
    for value in values:
        evidence.add("tool_call", 1, call_id=value)
    expected = [
        json.loads(json.dumps({"id": f"msg-{i}", "kind": "tool_call", "line": 1, "call_id": v}))
        for i, v in enumerate(values, start=1)
    ]
    assert repr(list(evidence.iter_records())) == repr(expected)


def test_file_uris_read_as_urlparse_reads_them() -> None:
    from urllib.parse import unquote, urlparse

    from evaluator.evidence.builder import file_uri_path

    for uri in (
        "file:///var/tmp/ws",
        "file:///a%20b/c",
        "file:///a?b",
        "file:///a#b",
        "file:///a;b/c;d",
        "file://host/x",
        "file:///a\tb\n",
        "file:///",
        "file:////x",
        "file:///a/../b",
        "file:///%C3%A9",
        "file:///a b ",
    ):
        assert file_uri_path(uri) == unquote(urlparse(uri).path), uri
    assert file_uri_path("/plain/path") == "/plain/path"


def _all_texts(evidence: SessionEvidence, path: Path) -> list[ToolText]:
    return list(session_texts(evidence, tool_text_source(path)).texts)


def test_the_tool_texts_kept_from_the_one_reading_are_those_read_again(tmp_path: Path) -> None:
    """The content proof takes the tool inputs and outputs the normaliser kept while it read the
    rollout: exactly what reading the file again gives, each output citing its record."""
    recorded = Path(__file__).parents[1] / "fixtures/recorded/codex-exec.jsonl"
    for path in [*sorted(FIXTURES.glob("*.jsonl")), recorded]:
        evidence = normalize_session(path)
        assert evidence.tool_texts is not None, path
        kept = _all_texts(evidence, path)
        assert kept == _all_texts(replace(evidence, tool_texts=None), path), path
    assert any(t.kind == "output" and t.ref for t in kept)
    assert any(t.kind == "input" for t in kept)
    # Texts are kept for the file that was read: another one is read, never given those.
    other = tmp_path / "other.jsonl"
    other.write_bytes((FIXTURES / "oldest-bare.jsonl").read_bytes())
    from_other = _all_texts(evidence, other)
    assert from_other != kept
    assert from_other == _all_texts(replace(evidence, tool_texts=None), other)


def test_tool_texts_the_reader_cannot_take_are_not_kept(tmp_path: Path) -> None:
    """An entry the tool-text reader fails on: nothing kept, so the proof reads the file again
    and meets the entry as it always did; a session with more text than the budget likewise."""
    lines = (FIXTURES / "local-shell-and-code-mode.jsonl").read_text().splitlines()
    hostile = {"type": "response_item", "payload": {"type": "local_shell_call", "action": [1]}}
    path = tmp_path / "rollout.jsonl"
    path.write_text("\n".join([*lines[:3], json.dumps(hostile), *lines[3:]]) + "\n")
    assert normalize_session(path).tool_texts is None
    big = tmp_path / "big.jsonl"
    output = {"type": "function_call_output", "call_id": "l1", "output": "x " * 1024 * 1024}
    filler = [json.dumps({"type": "response_item", "payload": output})] * 3
    big.write_text("\n".join([*lines[:3], *filler, *lines[3:]]) + "\n")
    assert normalize_session(big).tool_texts is None


def test_a_codex_error_event_shows_the_endpoint_body_message_not_its_json(tmp_path: Path) -> None:
    from evaluator.adapters.codex.runner import endpoint_error_message

    body = '{"error": {"message": "no scripted behaviour matches prompt \'a\'", "type": "x"}}'
    assert endpoint_error_message(body) == "no scripted behaviour matches prompt 'a'"
    status = "unexpected status 401 Unauthorized: " + body.replace("no scripted", "bad key; no")
    assert endpoint_error_message(status).startswith("unexpected status 401 Unauthorized: bad key")
    for kept in ("stream disconnected", "{not json", '{"error": "flat"}', "[" * 100_000 + "{"):
        assert endpoint_error_message(kept) == kept
    assert endpoint_error_message("{" + '"a":[' * 100_000) == "{" + '"a":[' * 100_000
    stdout = tmp_path / "stdout.jsonl"
    stdout.write_text(json.dumps({"type": "turn.failed", "error": {"message": body}}) + "\n")
    handle = AgentHandle("codex-exec", tmp_path, tmp_path, stdout, stdout, 0.0, 0.0, 0)
    read_exec_events(stdout, handle)
    assert handle.error == "agent reported an error: no scripted behaviour matches prompt 'a'"


def test_a_codex_error_the_turn_recovered_from_is_no_agent_error(tmp_path: Path) -> None:
    """Codex reports a dropped stream as an `error` event (`Reconnecting... 2/5`) and then
    completes the same turn (over HTTPS, after its WebSocket was closed): the attempt was
    `blocked (environment)` for it though the agent finished. An error no completed turn
    followed, or a failed turn, is still the agent's."""
    reconnect = {"type": "error", "message": "Reconnecting... 2/5 (stream disconnected)"}
    completed = {"type": "turn.completed", "usage": {}}
    failed = {"type": "turn.failed", "error": {"message": "unexpected status 401"}}
    cases = [
        ([reconnect, completed], None),
        ([reconnect, completed, reconnect], "agent reported an error: Reconnecting... 2/5"),
        ([reconnect, reconnect], "agent reported an error: Reconnecting... 2/5"),
        ([failed, completed], "agent reported an error: unexpected status 401"),
        ([reconnect, failed], "agent reported an error: unexpected status 401"),
    ]
    stdout = tmp_path / "stdout.jsonl"
    for events, expected in cases:
        stdout.write_text("".join(json.dumps(e) + "\n" for e in events))
        handle = AgentHandle("codex-exec", tmp_path, tmp_path, stdout, stdout, 0.0, 0.0, 0)
        read_exec_events(stdout, handle)
        if expected is None:
            assert handle.error is None and handle.fault is None, events
        else:
            assert handle.error is not None and handle.error.startswith(expected), events
