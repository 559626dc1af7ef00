"""`session inspect` on a finished run's attempt directory, whose workspace is gone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.test_validate import run_cli
from tests.conftest import ROOT
from tests.judge.test_consultation import _rollout


def _attempt_dir(tmp_path: Path) -> Path:
    gone = tmp_path / "deleted-workspace"  # a finished run removed it
    attempt = tmp_path / "runs/r1/case-artifacts/c1/attempts/attempt-01"
    attempt.mkdir(parents=True)
    _rollout(attempt / "accepted-session.jsonl", gone, [("cat notes.md", "n"), ("cat /etc/x", "")])
    (attempt / "attempt.json").write_text(json.dumps({"workspace_root": str(gone)}))
    return attempt


def test_an_attempt_directory_is_inspected_with_its_recorded_workspace(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    attempt = _attempt_dir(tmp_path)
    code, out, err = run_cli(["session", "inspect", str(attempt), "--json"], capsys)
    assert code == 0, err
    data = json.loads(out)
    assert [c["command"] for c in data["commands"]] == ["cat notes.md", "cat /etc/x"]
    assert data["isolation"]["verdict"] == "violation"
    assert [v["path"] for v in data["isolation"]["violations"]] == ["/etc/x"]


def test_inspect_refuses_what_it_cannot_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    attempt = _attempt_dir(tmp_path)
    session = str(attempt / "accepted-session.jsonl")
    code, _, err = run_cli(["session", "inspect", session, "--workspace", "/nonexistent"], capsys)
    assert code == 2 and "does not exist" in err
    code, _, err = run_cli(["session", "inspect", session], capsys)
    assert code == 2 and "--workspace is needed with a session file" in err
    code, _, err = run_cli(["session", "inspect", str(tmp_path)], capsys)
    assert code == 2 and "nor an attempt directory" in err


@pytest.mark.parametrize("text", ["notjson\n", "", "\n\n", '{"type": "session_meta"\n'])
def test_a_file_without_a_json_line_is_not_a_session(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str
) -> None:
    session = tmp_path / "x.jsonl"
    session.write_text(text)
    for extra in ([], ["--json"]):
        argv = ["session", "inspect", str(session), "--workspace", str(tmp_path), *extra]
        code, out, err = run_cli(argv, capsys)
        assert code == 2, out
        assert err.count("\n") == 1 and f"{session}: not a session file" in err, err


def test_a_session_with_a_broken_line_is_still_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    attempt = _attempt_dir(tmp_path)
    session = attempt / "accepted-session.jsonl"
    session.write_text(session.read_text() + "not json\n")
    code, out, err = run_cli(["session", "inspect", str(attempt), "--json"], capsys)
    assert code == 0, err
    assert json.loads(out)["malformed"][0]["reason"].startswith("not JSON")


@pytest.mark.parametrize(
    ("recorded", "wrong", "right"),
    [("gemini-cli.jsonl", "codex", "gemini"), ("codex-exec.jsonl", "claude", "codex")],
)
def test_a_session_named_with_another_agent_is_refused_not_read_as_empty(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], recorded: str, wrong: str, right: str
) -> None:
    """Read by another agent's adapter a session yields no record: an inspection with no
    command and `complete=False`, exit 0, would say the agent did nothing."""
    session = str(ROOT / "tests/fixtures/recorded" / recorded)
    argv = ["session", "inspect", session, "--workspace", str(tmp_path), "--agent"]
    code, out, err = run_cli([*argv, wrong], capsys)
    assert code == 2, out
    assert err.count("\n") == 1, err
    assert f"--agent: the session is {right}'s, not {wrong}'s" in err
    code, out, err = run_cli([*argv, right, "--json"], capsys)
    assert code == 0, err
    assert json.loads(out)["commands"]
