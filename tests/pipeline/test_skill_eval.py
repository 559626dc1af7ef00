"""The skill-eval skill's tooling: `install-skill`, `attempt new`/`collect` on their own, the
original workspace script, and the dogfooding target's self-test (real codex)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from evaluator.contract.models import Case
from evaluator.evidence import SessionEvidence
from evaluator.judge import JudgeContext, judge_case
from evaluator.prompting import agent_prompt, in_session_prompt, user_prompt_of
from evaluator.workspace.naming import attempt_folder
from tests.cli.test_validate import run_cli
from tests.conftest import ROOT, copy_demo
from tests.support import codex_or_skip, scratch_dir

CASE = "routing-add-column"


def test_install_skill_puts_the_skill_where_each_agent_looks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    places = {
        "--workspace": tmp_path / "repo/.agents/skills/skill-eval",
        "--codex-home": tmp_path / "codex/skills/skill-eval",
        "--claude-dir": tmp_path / "claude/skills/skill-eval",
    }
    for option, expected in places.items():
        base = {"--workspace": "repo", "--codex-home": "codex", "--claude-dir": "claude"}[option]
        code, out, err = run_cli(["install-skill", option, str(tmp_path / base)], capsys)
        assert (code, out.strip()) == (0, str(expected)), err
        assert (expected / "SKILL.md").read_text() == (ROOT / "skill-eval/SKILL.md").read_text()
        assert os.access(expected / "scripts/create_case_workspace.sh", os.X_OK)
    code, _, err = run_cli(["install-skill", "--codex-home", str(tmp_path / "codex")], capsys)
    assert code == 2 and "already installed (pass --force" in err
    assert (
        run_cli(["install-skill", "--codex-home", str(tmp_path / "codex"), "--force"], capsys)[0]
        == 0
    )
    code, _, err = run_cli(
        ["install-skill", "--workspace", "a", "--claude-dir", str(tmp_path)], capsys
    )
    assert code == 2 and "give an agent home or --workspace, not both" in err
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    code, _, err = run_cli(["install-skill", "--workspace", str(blocker / "sub")], capsys)
    assert code == 2 and "cannot install there" in err and "Traceback" not in err


def test_in_session_prompt_names_the_workspace_and_strips_back_to_the_case_prompt() -> None:
    prompt = in_session_prompt("Add a column.\n\nThanks", "/w/case/attempt-01")
    assert prompt.startswith("Add a column.\n\nThanks\n\n")
    assert "/w/case/attempt-01" in prompt
    assert user_prompt_of(prompt) == "Add a column.\n\nThanks"
    assert user_prompt_of(agent_prompt("Add a column.")) == "Add a column."


def _new(tmp_path: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str, str]:
    repo = tmp_path / "src/agentic-evals"
    if not repo.exists():
        copy_demo(tmp_path / "src")
    return run_cli(
        [
            "attempt",
            "new",
            CASE,
            "--repo",
            str(repo),
            "--runs-dir",
            str(tmp_path / "runs"),
            "--run-id",
            "live",
            "--case-workspace-root",
            str(tmp_path / "attempts"),
            *extra,
        ],
        capsys,
    )


def test_attempt_new_plans_the_run_and_builds_one_fresh_workspace(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _new(tmp_path, capsys, "--suite", "routing", "--json")
    assert code == 0, err
    made = json.loads(out)
    workspace = Path(made["workspace"])
    assert workspace == attempt_folder(tmp_path / "attempts", CASE, 1).resolve()
    assert (workspace / ".agents/skills/db-migrations/SKILL.md").is_file()
    assert not (workspace / "agentic-evals").exists()
    assert made["prompt"].startswith("I want to store a default currency per account.")
    assert str(workspace) in made["prompt"] and made["created_run"] is True
    manifest = json.loads((tmp_path / "runs/live/manifest.json").read_text())
    assert manifest["agent"] == "codex-in-session" and manifest["run_state"] == "running"
    assert manifest["suite_ids"] == ["routing"]
    # What skill was evaluated is recorded as for a CLI run (history and compare rely on it).
    assert len(manifest["skill_hash"]) == 64
    assert manifest["resolved_case_ids"] == [
        "routing-add-column",
        "routing-rename-table",
        "routing-backfill",
    ]
    # One attempt at a time per case: the pending one must be collected first.
    code, _, err = _new(tmp_path, capsys)
    assert code == 2 and "not collected yet" in err
    code, _, err = _new(tmp_path, capsys, "--target", "skill-eval")
    assert code == 2 and "evaluates target 'db-migrations'" in err


def test_attempt_new_refuses_a_case_outside_the_plan(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _new(tmp_path, capsys, "--case", "routing-backfill")
    assert code == 2
    assert err.startswith("agentic-eval: CASE_ID: case 'routing-add-column' is not in run live")
    assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "runs/live").exists()


def test_collect_without_a_child_session_blocks_the_case_and_writes_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _new(tmp_path, capsys, "--case", CASE)[0] == 0
    store = tmp_path / "codex-home"
    store.mkdir()
    collect = [
        "attempt",
        "collect",
        CASE,
        "--run-id",
        "live",
        "--runs-dir",
        str(tmp_path / "runs"),
        "--codex-home",
        str(store),
        "--parent-thread",
        "01a20000-0000-7000-8000-000000000000",
        "--json",
    ]
    code, out, err = run_cli(collect, capsys)
    # No child session: the agent never started, an outage with no verdict (exit 3 as `run`
    # and `judge` give it; 1 before session 17).
    assert code == 3, err
    collected = json.loads(out)
    assert collected["attempt_status"] == "blocked" and collected["case_status"] == "blocked"
    assert "accepted session not-found" in collected["reason"]
    run_dir = tmp_path / "runs/live"
    result = json.loads((run_dir / f"case-results/{CASE}.json").read_text())
    assert (result["status"], result["blocked_reason"]) == ("blocked", "insufficient-evidence")
    assert json.loads((run_dir / "manifest.json").read_text())["run_state"] == "completed"
    assert (run_dir / "report.md").is_file() and (run_dir / "transcript.md").is_file()
    # Nothing left to collect, and no parent thread outside a Codex session.
    code, _, err = run_cli(collect, capsys)
    assert code == 2 and "no attempt waiting to be collected" in err
    env_thread = os.environ.pop("CODEX_THREAD_ID", None)
    try:
        code, _, err = run_cli(collect[:-3], capsys)
    finally:
        if env_thread is not None:
            os.environ["CODEX_THREAD_ID"] = env_thread
    assert code == 2 and "--parent-thread is required" in err


def test_create_case_workspace_script_keeps_its_signature_and_prints_the_workspace(
    tmp_path: Path,
) -> None:
    source = tmp_path / "src"
    copy_demo(source)
    script = ROOT / "skill-eval/scripts/create_case_workspace.sh"
    done = subprocess.run(
        [str(script), str(source), str(tmp_path / "attempts"), CASE, "--target", "db-migrations"],
        cwd=tmp_path,
        env={**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        str(attempt_folder(tmp_path / "attempts", CASE, 1).resolve())
    ]
    assert (Path(done.stdout.strip()) / ".agents/skills/db-migrations/SKILL.md").is_file()


@pytest.mark.codex
def test_the_skill_eval_target_tells_good_evaluator_agents_from_broken_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    codex_or_skip()
    with scratch_dir() as scratch:
        code, out, err = run_cli(
            [
                "selftest",
                "--repo",
                str(ROOT / "agentic-evals"),
                "--target",
                "skill-eval",
                "--workers",
                "2",
                "--runs-dir",
                str(tmp_path / "runs"),
                "--scratch-root",
                str(scratch),
                "--json",
            ],
            capsys,
        )
    report = json.loads(out)
    mismatched = [g for g in report["goldens"] if not g["matches"]]
    vacuous = [e for e in report["entries"] if e["vacuous"]]
    assert (code, mismatched, vacuous) == (0, [], []), err
    goldens = {g["behavior"]: g["status"] for g in report["goldens"]}
    assert len(goldens) == 13
    assert goldens["behaviors/follows-skill/in-session-spawns-fresh-children.yaml"] == "pass"
    assert (
        goldens["behaviors/golden/in-session-spawns-fresh-children/leaks-assertions.yaml"] == "fail"
    )
    # The leak is caught by the forbidden entry, not by a side effect.
    leak = next(
        e
        for e in report["entries"]
        if e["case_id"] == "in-session-spawns-fresh-children"
        and e["polarity"] == "forbidden"
        and e["index"] == 0
    )
    assert leak["statuses"] == {
        behavior: ("fail" if behavior.endswith("leaks-assertions.yaml") else "pass")
        for behavior in leak["statuses"]
    }


def _spawning_evidence(message: str, answer: str) -> SessionEvidence:
    """A session that spawned one sub-agent, as every normaliser records it."""
    evidence = SessionEvidence(session_path="s.jsonl", complete=True, final_answer=answer)
    evidence.spawned(3, "c1", message, False)
    result = evidence.add("tool_result", 4, call_id="c1", text='{"nickname":"Noether"}')
    evidence.spawn_answered("c1", result.id, "01a2", "Noether")
    evidence.add("final_answer", 5, text=answer)
    return evidence


@pytest.mark.parametrize(
    "check,message,answer,expected",
    [
        ({"kind": "agent_spawned", "fork_context": False}, "Hi", "x", "pass"),
        ({"kind": "agent_spawned", "fork_context": True}, "Hi", "x", "fail"),
        ({"kind": "agent_spawned", "message_contains": "Hi there"}, "Hi there.", "x", "pass"),
        ({"kind": "agent_spawned", "message_contains": "grader"}, "Hi", "x", "fail"),
        # A message too long to keep whole cannot prove what it lacks: never a guess.
        ({"kind": "agent_spawned", "message_contains": "grader"}, "Hi " * 6000, "x", "blocked"),
        ({"kind": "spawned_agents_named"}, "Hi", "Sub-agent Noether ran it.", "pass"),
        ({"kind": "spawned_agents_named"}, "Hi", "A sub-agent ran it.", "fail"),
    ],
)
def test_sub_agent_checks(
    check: dict[str, object], message: str, answer: str, expected: str
) -> None:
    case = Case.model_validate(
        {
            "case_id": "c",
            "title": "t",
            "input": {"user_prompt": "p"},
            "assert": {"required": [{"description": "d", "checks": [check]}]},
        }
    )
    context = JudgeContext(
        evidence=_spawning_evidence(message, answer),
        workspace=Path("/ws"),
        ref_prefix="e.json",
        workspace_available=False,
    )
    assert judge_case(case, context).entries[0].status == expected


def test_evidence_saved_before_spawns_were_recorded_blocks_the_sub_agent_checks() -> None:
    saved = _spawning_evidence("Hi", "Noether did it.").to_json()
    del saved["spawns"]  # an accepted-session.json written before this field existed
    case = Case.model_validate(
        {
            "case_id": "c",
            "title": "t",
            "input": {"user_prompt": "p"},
            "assert": {"required": [{"description": "d", "checks": [{"kind": "agent_spawned"}]}]},
        }
    )
    context = JudgeContext(
        evidence=SessionEvidence.from_json(saved),
        workspace=Path("/ws"),
        ref_prefix="e.json",
        workspace_available=False,
    )
    assert judge_case(case, context).entries[0].status == "blocked"


@pytest.mark.parametrize(
    "check,expected",
    [
        ({"kind": "agent_spawned", "fork_context": False}, "pass"),
        ({"kind": "agent_spawned", "fork_context": True}, "fail"),
        ({"kind": "agent_spawned", "message_contains": "Add a column"}, "pass"),
        ({"kind": "spawned_agents_named"}, "blocked"),  # Claude's sub-agents have no nickname
    ],
)
def test_sub_agent_checks_of_a_spawn_without_nickname(
    check: dict[str, object], expected: str
) -> None:
    evidence = SessionEvidence(session_path="s.jsonl", complete=True)
    # What the Claude normaliser records for an Agent call: no fork, no nickname.
    evidence.spawned(1, "t1", "Add a column, please.", False, tool="Agent")
    result = evidence.add("tool_result", 2, call_id="t1", text="done")
    evidence.spawn_answered("t1", result.id, None, None)
    evidence.add("final_answer", 3, text="The sub-agent added it.")
    case = Case.model_validate(
        {
            "case_id": "c",
            "title": "t",
            "input": {"user_prompt": "p"},
            "assert": {"required": [{"description": "d", "checks": [check]}]},
        }
    )
    context = JudgeContext(
        evidence=evidence, workspace=Path("/ws"), ref_prefix="e.json", workspace_available=False
    )
    assert judge_case(case, context).entries[0].status == expected
