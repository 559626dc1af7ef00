"""CLI behaviours that need no agent run: environment errors and the inspect JSON shape."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from evaluator.cli.main import main
from tests.conftest import ROOT

FIXTURES = Path(__file__).parents[1] / "fixtures/rollouts"


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as info:
        main(args)
    out, err = capsys.readouterr()
    return int(info.value.code or 0), out, err


@pytest.mark.parametrize(
    ("text", "mode", "problem"),
    [
        ("#!/bin/sh\n", 0o644, "not an executable file"),
        (
            "#!/nonexistent/interp\n",
            0o755,
            "its interpreter /nonexistent/interp is missing or not executable",
        ),
    ],
)
def test_an_unstartable_codex_binary_is_a_configuration_error_before_any_attempt(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    text: str,
    mode: int,
    problem: str,
) -> None:
    """A script whose interpreter is missing used to pass the check, start in every attempt
    and exit 1 there: an agent crash, counted against the skill."""
    binary = tmp_path / "bin/codex"
    binary.parent.mkdir()
    binary.write_text(text)
    binary.chmod(mode)
    runs = tmp_path / "runs"
    monkeypatch.setenv("AGENTIC_EVAL_CODEX_BIN", str(binary))
    behaviors = ROOT / "agentic-evals/targets/db-migrations/behaviors/follows-skill"
    args = ["run", "--repo", str(ROOT / "agentic-evals"), "--runs-dir", str(runs)]
    code, _, err = _cli([*args, "--behaviors", str(behaviors)], capsys)
    assert code == 3
    assert err.strip().splitlines() == [
        f"agentic-eval: codex binary from $AGENTIC_EVAL_CODEX_BIN cannot start: {binary}: {problem}"
    ]
    assert not runs.exists() or list(runs.iterdir()) == []


def test_missing_codex_binary_is_an_environment_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTIC_EVAL_CODEX_BIN", str(tmp_path / "nope/codex"))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")  # a real-model run that has credentials
    code, _, err = _cli(
        ["run", "--repo", str(ROOT / "agentic-evals"), "--runs-dir", str(tmp_path)], capsys
    )
    assert code == 3
    assert err.strip().splitlines()[-1] == (
        "agentic-eval: codex binary from $AGENTIC_EVAL_CODEX_BIN cannot start:"
        f" {tmp_path / 'nope/codex'}: no such file"
    )
    assert list(tmp_path.iterdir()) == []  # nothing written before the environment was checked
    monkeypatch.delenv("AGENTIC_EVAL_CODEX_BIN")
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr("evaluator.adapters.codex.binary.PROJECT_BIN", tmp_path / "missing")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    code, _, err = _cli(
        ["run", "--repo", str(ROOT / "agentic-evals"), "--runs-dir", str(tmp_path)], capsys
    )
    assert code == 3
    assert "run `agentic-eval setup-agents` (installs @openai/codex@0.169.0 with npm" in err
    assert "Traceback" not in err


@pytest.mark.usefixtures("stub_agent_clis")  # the binary check comes first
def test_scratch_root_under_tmp_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _cli(
        [
            "run",
            "--repo",
            str(ROOT / "agentic-evals"),
            "--runs-dir",
            str(tmp_path / "r"),
            "--scratch-root",
            "/tmp/agentic-eval-x",
        ],
        capsys,
    )
    assert code == 3 and "under /tmp" in err


def test_session_inspect_json_shape(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # The session ran in /ws; inspected against a workspace that exists, its paths moved there.
    ws = tmp_path / "ws"
    ws.mkdir()
    session = tmp_path / "session.jsonl"
    session.write_text((FIXTURES / "envelope-no-ordinal.jsonl").read_text().replace("/ws", str(ws)))
    code, out, _ = _cli(
        ["session", "inspect", str(session), "--workspace", str(ws), "--json"], capsys
    )
    assert code == 0
    data = json.loads(out)
    assert set(data) == {
        "ok",
        "exit_code",
        "thread_id",
        "session_path",
        "complete",
        "final_answer",
        "commands",
        "reads",
        "writes",
        "isolation",
        "malformed",
    }
    assert data["commands"][0] == {
        "ref": data["commands"][0]["ref"],
        "command": "sed -n '1,5p' README.md",
        "workdir": f"{ws}/docs",
    }
    assert all(
        r["ref"].startswith("msg-") and r["path"].startswith("/")
        for r in data["reads"] + data["writes"]
    )
    assert data["isolation"]["verdict"] == "contained"
    assert set(data["isolation"]) >= {"verdict", "violations"}


def test_session_locate_needs_exactly_one_selector(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _cli(["session", "locate", "--codex-home", str(tmp_path)], capsys)
    assert code == 2 and "exactly one of --thread or --parent-thread" in err
    code, _, err = _cli(
        ["session", "locate", "--codex-home", str(tmp_path), "--thread", "x"], capsys
    )
    assert code == 1 and "not-found" in err


def test_run_without_the_skill_in_the_source_workspace_is_an_input_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if not os.access(ROOT / ".tools/codex/node_modules/.bin/codex", os.X_OK):
        pytest.skip("needs a codex binary to get past the binary check")
    import shutil

    shutil.copytree(ROOT / "agentic-evals", tmp_path / "agentic-evals")
    code, _, err = _cli(
        ["run", "--repo", str(tmp_path / "agentic-evals"), "--runs-dir", str(tmp_path / "runs")],
        capsys,
    )
    assert code == 2
    assert (
        "skill path .agents/skills/db-migrations/SKILL.md not found in the source workspace" in err
    )
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize(
    ("argv", "code", "error"),
    [
        (
            ["explain", "--repo", str(ROOT / "agentic-evals"), "--case", "nope"],
            2,
            {"field": "--case", "message": "unknown case id(s): nope"},
        ),
        (["list", "--repo", "/nonexistent"], 2, {"path": "/nonexistent"}),
        (["explain", "--repo", "/nonexistent"], 2, {"path": "/nonexistent"}),
        (["explain", "--no-such-option"], 2, {"message": "No such option '--no-such-option'."}),
    ],
)
def test_an_error_under_json_is_one_json_object_and_one_line(
    capsys: pytest.CaptureFixture[str], argv: list[str], code: int, error: dict[str, str]
) -> None:
    """A caller that parses stdout gets JSON whatever happened; a person reads stderr."""
    got, out, err = _cli([*argv, "--json"], capsys)
    assert got == code
    payload = json.loads(out)
    assert payload["ok"] is False and payload["exit_code"] == code
    (problem,) = payload["errors"]
    assert error.items() <= problem.items()
    assert err == f"agentic-eval: {problem['text']}\n"
    got, out, err = _cli(argv, capsys)  # without --json: the line only
    assert got == code and out == "" and err.count("\n") == 1


def test_score_under_json_prints_the_error_object_before_its_verdict_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = _cli(["score", "--repo", "/nonexistent", "--json"], capsys)
    first, last = out.strip().splitlines()
    assert code == 2 and json.loads(first)["exit_code"] == 2
    assert last.startswith("VERDICT: ERROR input-error: /nonexistent")
