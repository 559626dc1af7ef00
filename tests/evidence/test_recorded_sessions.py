"""The evidence and isolation stages on sessions the real agent CLIs recorded, without the CLIs.

tests/record_sessions.py made the fixtures: codex and claude each read SKILL.md, wrote notes.txt,
listed migrations/ and answered, on the demo case routing-add-column. Each session is put back
under a workspace built here, at the place its `{SCRATCH}` stood for.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluator.adapters import normalize_session
from evaluator.adapters.claude import binary as claude_binary
from evaluator.adapters.codex import binary as codex_binary
from evaluator.isolation import assess_isolation
from evaluator.workspace import build_workspace
from tests.record_sessions import CASE, FIXTURES, PLACEHOLDER, RUNNERS, STEPS
from tests.support import demo_case

FINAL_ANSWER = STEPS[-1]["final"]


def _replay(runner: str, scratch: Path) -> tuple[Path, Path]:
    """The recorded session under `scratch`, and the workspace it names, rebuilt."""
    repo, case = demo_case(CASE)
    workspace = build_workspace(
        case_workspace_root=scratch / "workspaces",
        case=case,
        target=repo.targets["db-migrations"],
        source_workspace=repo.source_workspace,
        attempt=1,
    )
    (workspace.path / "notes.txt").write_text(STEPS[1]["write"]["content"], encoding="utf-8")
    text = (FIXTURES / f"{runner}.jsonl").read_text(encoding="utf-8")
    session = scratch / f"{runner}.jsonl"
    # Recorded when a workspace was `workspaces/<case id>/attempt-NN`: put back at today's.
    recorded = f"{PLACEHOLDER}/workspaces/{CASE}/attempt-01"
    text = text.replace(recorded, str(workspace.path)).replace(PLACEHOLDER, str(scratch))
    session.write_text(text, encoding="utf-8")
    return session, workspace.path


@pytest.mark.parametrize("runner", RUNNERS)
def test_a_recorded_session_gives_its_commands_reads_write_and_answer(
    runner: str, tmp_path: Path
) -> None:
    session, workspace = _replay(runner, tmp_path)
    evidence = normalize_session(session)
    assert evidence.complete and evidence.malformed == []
    assert evidence.final_answer == FINAL_ANSWER
    commands = [r.command for r in evidence.of_kind("command_observed")]
    assert "cat .agents/skills/db-migrations/SKILL.md" in commands
    assert "ls migrations" in commands
    reads = {r.path for r in evidence.of_kind("file_read_observed")}
    assert str(workspace / ".agents/skills/db-migrations/SKILL.md") in reads
    writes = {r.path for r in evidence.of_kind("file_write_observed")}
    assert str(workspace / "notes.txt") in writes


@pytest.mark.parametrize("runner", RUNNERS)
def test_a_recorded_session_is_contained_in_its_workspace_and_nowhere_else(
    runner: str, tmp_path: Path
) -> None:
    session, workspace = _replay(runner, tmp_path)
    report = assess_isolation(normalize_session(session), workspace, record_violations=False)
    assert report.verdict == "contained", report.reason
    # the same session judged against another attempt's workspace reaches outside it
    elsewhere = workspace.parent / "02"
    elsewhere.mkdir()
    moved = assess_isolation(normalize_session(session), elsewhere, record_violations=False)
    assert moved.verdict == "violation"


@pytest.mark.parametrize("runner", RUNNERS)
@pytest.mark.parametrize(
    ("where", "line", "verdict"),
    [
        ("middle", "{not json", "unverifiable"),
        ("middle", "[" * 1100 + "]" * 1100, "unverifiable"),
        ("middle", "42", "unverifiable"),
        ("end", '{"type": "assistant", "message": {"con', "contained"),
    ],
    ids=["not-json", "nested-too-deep", "not-an-object", "cut-last-line"],
)
def test_a_line_of_the_session_that_cannot_be_read_may_hide_a_call(
    runner: str, where: str, line: str, verdict: str, tmp_path: Path
) -> None:
    """A CLI writes each line whole: a line the reader cannot decode in the middle of the file
    may hold a tool call no analysis sees, so the session proves no containment (red team 10:
    a line nested past the decoder's depth was skipped with no note). A last line cut short is
    a write the CLI's stop interrupted, as before."""
    session, workspace = _replay(runner, tmp_path)
    lines = session.read_text(encoding="utf-8").splitlines()
    at = len(lines) // 2 if where == "middle" else len(lines)
    session.write_text("\n".join([*lines[:at], line, *lines[at:]]) + "\n", encoding="utf-8")
    evidence = normalize_session(session)
    report = assess_isolation(evidence, workspace, record_violations=False)
    assert report.verdict == verdict, report.reason
    if verdict == "unverifiable":
        assert any(ref == f"L{at + 1}" for ref, _ in report.opaque), report.opaque


def test_the_fixtures_were_recorded_by_the_pinned_agent_versions() -> None:
    """After upgrading a pinned CLI, record again: `python -m tests.record_sessions`."""
    assert f'"cli_version":"{codex_binary.PINNED_VERSION}"' in (
        FIXTURES / "codex-exec.jsonl"
    ).read_text(encoding="utf-8")
    assert f'"version":"{claude_binary.PINNED_VERSION}"' in (
        FIXTURES / "claude-code.jsonl"
    ).read_text(encoding="utf-8")
