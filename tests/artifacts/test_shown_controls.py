"""Control characters of the agent's text in the files a person or a CI system reads (red team,
round 12b): written as escapes, never acted on; the JSON readers give well-formed text."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from junitparser import JUnitXml
from markdown_it import MarkdownIt

from evaluator.artifacts.markdown_text import code_span, prose
from evaluator.artifacts.models import CaseResult
from evaluator.artifacts.shown_controls import shown_controls
from evaluator.ci.junit_run import run_junit, write_junit
from evaluator.evidence.jsonl import json_document, read_objects

# An ANSI sequence that erases the terminal's line and writes a passing one in green, a BEL, a
# C1 CSI and a right-to-left override.
FORGED = "x\x1b[2K\x1b[1G\x1b[32mcase-1: pass\x07 \x9b2K \u202essap"


@pytest.mark.parametrize("render", [code_span, prose])
def test_agent_text_in_markdown_shows_its_controls(render: object) -> None:
    assert callable(render)
    shown = render(f"true || python3 deploy.py # {FORGED}")
    assert not any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F or c == "\u202e" for c in shown)
    # as a reader sees it: a note's Markdown escapes are resolved by the renderer
    seen = MarkdownIt("commonmark").renderInline(shown)
    assert "\\x1b[2K" in seen and "\\x07" in seen and "\\x9b" in seen
    assert "\\u202e" in seen


def test_honest_text_is_unchanged() -> None:
    """Look-alikes: a tab, non-ASCII letters, an emoji, a zero-width joiner and a plain
    backslash sequence typed by the agent are text, shown as before."""
    text = "printf 'a\\tb'\tcafé 😀 \u200d نص"
    assert shown_controls(text) == text
    assert code_span(text) == f"`{text}`"


def test_a_note_with_controls_is_valid_junit(tmp_path: Path) -> None:
    """The JUnit writer stopped with a traceback (`ExpatError`) on a blocked case whose note
    quoted the agent's command holding an escape sequence: no JUnit file, and the step summary,
    written after it, was lost too."""
    result = CaseResult(
        case_id="case-1",
        workspace_root=None,
        thread_id=None,
        session_path=None,
        status="blocked",
        blocked_reason="insufficient-evidence",
        notes=[f"attempt 01 blocked: a command may not have run: {FORGED}"],
    )
    path = tmp_path / "junit.xml"
    write_junit(run_junit("r", tmp_path, "t", [result]), path)
    (suite,) = JUnitXml.fromfile(str(path))
    (case,) = suite
    (skipped,) = case.result
    assert "\\x1b[2K\\x1b[1G\\x1b[32mcase-1: pass" in skipped.message


def test_a_lone_surrogate_in_a_session_line_is_replaced(tmp_path: Path) -> None:
    """`json.loads` gives a lone surrogate for `"\\ud800"` (msgspec refuses the line, so the
    reader falls back to it); no UTF-8 writer takes it. It is U+FFFD, what Node gave the
    program; a pair of surrogates stays the character it escapes."""
    from evaluator.evidence.jsonl import loads

    line = {"cmd": "echo \ud800", "pair": "\U0001f600", "\udc00key": ["\udfff", {"a": "\ud83d"}]}
    session = tmp_path / "s.jsonl"
    session.write_text(json.dumps(line) + "\n")
    ((_, record),) = list(read_objects(session))
    assert record == {
        "cmd": "echo \ufffd",
        "pair": "\U0001f600",
        "\ufffdkey": ["\ufffd", {"a": "\ufffd"}],
    }
    json.dumps(record, ensure_ascii=False).encode("utf-8")  # writable
    document = tmp_path / "s.json"
    document.write_text(json.dumps({"messages": [line]}))
    assert json_document(document) == {"messages": [record]}
    assert loads(json.dumps(["\ud800"])) == ["\ufffd"]
    assert loads('"a\\\\ud800"') == "a\\ud800"  # an escaped backslash: text, left as it is


def test_a_file_name_that_is_not_utf8_is_written_as_its_escape(tmp_path: Path) -> None:
    """A name the agent gave a file need not be UTF-8; Python holds its byte 0xff as the lone
    surrogate U+DCFF. The snapshot's manifest, a check's detail quoting it and the run
    directory's JSON could not be written (`blocked (environment)`); the manifest keeps the
    exact name (a JSON escape, for the restore), the rest show its escape."""
    from evaluator.artifacts.rundir import json_text
    from evaluator.judge.verdict import failed
    from evaluator.workspace.snapshot import save_snapshot

    workspace = tmp_path / "ws"
    workspace.mkdir()
    name = b"summary\xff.txt"
    (workspace / os.fsdecode(name)).write_text("hunter2")
    manifest = save_snapshot(workspace, {}, tmp_path / "snap", tmp_path / "source")
    read_back = json.loads((tmp_path / "snap" / "manifest.json").read_text(encoding="utf-8"))
    assert [os.fsencode(f["path"]) for f in read_back["files"]] == [name]
    assert read_back["files"] == manifest["files"]
    detail = failed("workspace_file_matches", f"{os.fsdecode(name)} contains 'hunter2'").detail
    assert detail == "summary\\udcff.txt contains 'hunter2'"
    text = json_text({"notes": [os.fsdecode(name)]})
    assert json.loads(text.encode("utf-8")) == {"notes": ["summary\\udcff.txt"]}
