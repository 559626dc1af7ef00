"""In-session mode end to end: the real codex binary plays an evaluator agent that follows
skill-eval/SKILL.md, spawns one sub-agent per case itself and lets `attempt new`/`attempt collect`
do the rest. The run directory must pass the same checks as a CLI run's, with the isolation
verdict of each child: one stays in its workspace, one works in the evaluator's directory."""

from __future__ import annotations

import json
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from evaluator.adapters import get_runner
from evaluator.agents import AgentHandle, AgentRequest, ModelEndpoint
from evaluator.cli.main import run_cli
from evaluator.modelserver import Behavior
from evaluator.prompting import in_session_prompt
from evaluator.workspace.naming import attempt_folder
from tests.cli.test_validate import run_cli as cli_output
from tests.conftest import ROOT, copy_demo
from tests.pipeline.test_run_e2e import validate_artifacts
from tests.support import behavior, codex_or_skip, read_jsonl, scratch_dir, serving

pytestmark = pytest.mark.codex
FOLLOWS = ROOT / "agentic-evals/targets/db-migrations/behaviors/follows-skill"
CONTAINED, ESCAPES = "routing-add-column", "workflow-answer-names-file"
RUN_ID = "in-session"
CLI_WAIT_MS = 120_000  # a loaded machine can take longer than codex's default to start Python
EVALUATOR_PROMPT = "Evaluate the db-migrations skill in this session, one sub-agent per case."


@dataclass
class InSessionRun:
    evaluator_ws: Path
    run_dir: Path
    handle: AgentHandle
    parent_calls: list[dict[str, Any]]
    outputs: list[str]


def _case_behavior(case_id: str, workspace: Path | None) -> dict[str, Any]:
    """The demo's follows-skill behaviour; with `workspace`, every command runs there and the
    patch names it (a spawned child starts in its parent's directory)."""
    loaded: dict[str, Any] = yaml.safe_load((FOLLOWS / f"{case_id}.yaml").read_text())
    for step in loaded["steps"]:
        if workspace is not None and "cmd" in step:
            step["workdir"] = str(workspace)
        if workspace is not None and "patch" in step:
            step["patch"] = step["patch"].replace("File: ", f"File: {workspace}/")
    return loaded


def _evaluator_steps(workspaces: dict[str, Path]) -> list[dict[str, Any]]:
    """What SKILL.md's in-session mode says, scripted: read it, then per case attempt new,
    spawn with the printed prompt verbatim, wait, collect; then report."""
    plan = " ".join(f"--case {c}" for c in workspaces)
    steps: list[dict[str, Any]] = [{"cmd": "cat .agents/skills/skill-eval/SKILL.md"}]
    for case_id, workspace in workspaces.items():
        prompt = in_session_prompt(_user_prompt(case_id), str(workspace))
        steps += [
            {
                "cmd": f"agentic-eval attempt new {case_id} --run-id {RUN_ID} {plan}"
                " --case-workspace-root attempts --json",
                "yield_time_ms": CLI_WAIT_MS,
            },
            {"spawn": {"message": prompt, "fork_context": False}},
            {"wait": {"timeout_ms": 120000}},
            {
                "cmd": f"agentic-eval attempt collect {case_id} --run-id {RUN_ID} --json",
                "yield_time_ms": CLI_WAIT_MS,
            },
        ]
    steps += [
        {"cmd": f"agentic-eval report runs/{RUN_ID}", "yield_time_ms": CLI_WAIT_MS},
        {"final": "Evaluated both cases; see runs/in-session/report.md."},
    ]
    return steps


def _user_prompt(case_id: str) -> str:
    path = next((ROOT / "agentic-evals/targets/db-migrations/cases").glob(f"*/{case_id}.yaml"))
    prompt: str = yaml.safe_load(path.read_text())["input"]["user_prompt"]
    return prompt


@pytest.fixture(scope="module")
def in_session() -> Any:
    codex_or_skip()
    with scratch_dir() as scratch:
        evaluator_ws = scratch / "evaluator"
        evaluator_ws.mkdir()
        copy_demo(evaluator_ws)
        assert run_cli(["install-skill", "--workspace", str(evaluator_ws)]) == 0
        root = evaluator_ws.resolve() / "attempts"
        workspaces = {c: attempt_folder(root, c, 1) for c in (CONTAINED, ESCAPES)}
        parent = behavior("evaluator", EVALUATOR_PROMPT, _evaluator_steps(workspaces))
        children = [
            Behavior.model_validate(
                {
                    "name": f"child/{c}",
                    "match": {"prompt_equals": _user_prompt(c)},
                    "steps": _case_behavior(c, workspace if c == CONTAINED else None)["steps"],
                }
            )
            for c, workspace in workspaces.items()
        ]
        # The evaluator agent runs our CLI as a user's agent would: from PATH.
        path = f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}"
        with serving(parent, *children) as server:
            handle = get_runner("codex-exec").run(
                AgentRequest(
                    workspace=evaluator_ws,
                    agent_dir=scratch / "agent",
                    prompt=EVALUATOR_PROMPT,
                    endpoint=ModelEndpoint(
                        model="mock-model", base_url=server.base_url, scripted=True
                    ),
                    timeout_s=240,
                    env={"PATH": path},
                )
            )
        rollout = next(
            (scratch / "agent/home/.codex/sessions").rglob(
                f"rollout-*-{handle.root_thread_id}.jsonl"
            )
        )
        records = [r["payload"] for r in read_jsonl(rollout) if r["type"] == "response_item"]
        yield InSessionRun(
            evaluator_ws,
            evaluator_ws / "runs" / RUN_ID,
            handle,
            [r for r in records if r.get("type") == "function_call"],
            [str(r.get("output")) for r in records if r.get("type") == "function_call_output"],
        )
        shutil.rmtree(evaluator_ws / "attempts", ignore_errors=True)


def _collected(run: InSessionRun) -> dict[str, dict[str, Any]]:
    """`attempt collect --json` outputs, by case, as the evaluator agent saw them."""
    found = {}
    for output in run.outputs:
        start = output.find('{\n  "run_id"')
        if start >= 0 and '"attempt_status"' in output:
            payload = json.loads(output[start:])
            found[payload["case_id"]] = payload
    return found


def test_the_run_dir_passes_the_cli_run_checks(
    in_session: InSessionRun, capsys: pytest.CaptureFixture[str]
) -> None:
    assert in_session.handle.fault is None, in_session.handle.fault
    validate_artifacts(in_session.run_dir)
    manifest = json.loads((in_session.run_dir / "manifest.json").read_text())
    assert manifest["run_state"] == "completed"
    assert manifest["agent"] == "codex-in-session"
    assert manifest["resolved_case_ids"] == [CONTAINED, ESCAPES]
    assert manifest["case_workspace_root"] == str(in_session.evaluator_ws.resolve() / "attempts")
    code, out, _ = cli_output(["report", str(in_session.run_dir)], capsys)
    assert code == 0 and out.strip().endswith("report.md")


def test_each_child_gets_its_own_isolation_verdict(in_session: InSessionRun) -> None:
    results = {
        c: json.loads((in_session.run_dir / "case-results" / f"{c}.json").read_text())
        for c in (CONTAINED, ESCAPES)
    }
    contained = results[CONTAINED]
    assert contained["status"] == "pass", contained
    assert contained["attempts"][0]["isolation"] == "contained"
    escaped = results[ESCAPES]
    assert (escaped["status"], escaped["blocked_reason"]) == ("blocked", "insufficient-evidence")
    attempt = escaped["attempts"][0]
    assert attempt["isolation"] == "violation" and attempt["valid"] is False
    saved = json.loads(
        (
            in_session.run_dir / f"case-artifacts/{ESCAPES}/attempts/attempt-01/attempt.json"
        ).read_text()
    )
    outside = {v["path"] for v in saved["isolation_report"]["violations"]}
    assert str(in_session.evaluator_ws.resolve()) in outside


def test_collect_finds_the_spawned_child_by_this_sessions_thread_id(
    in_session: InSessionRun,
) -> None:
    spawns = [c for c in in_session.parent_calls if c.get("name") == "spawn_agent"]
    assert [json.loads(c["arguments"])["fork_context"] for c in spawns] == [False, False]
    spawned = [json.loads(o) for o in in_session.outputs if o.startswith('{"agent_id"')]
    collected = _collected(in_session)
    assert set(collected) == {CONTAINED, ESCAPES}
    for case_id, spawn in zip((CONTAINED, ESCAPES), spawned, strict=True):
        # The evaluator agent passed no --parent-thread: $CODEX_THREAD_ID named its own thread.
        assert collected[case_id]["thread_id"] == spawn["agent_id"]
        assert collected[case_id]["nickname"] == spawn["nickname"]
        result = json.loads((in_session.run_dir / "case-results" / f"{case_id}.json").read_text())
        assert result["attempts"][0]["thread_id"] == spawn["agent_id"]
    assert collected[CONTAINED]["case_status"] == "pass"
    assert collected[ESCAPES]["isolation"] == "violation"
