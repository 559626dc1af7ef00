"""Claude Code as an agent: the scripted server's Messages API, the session store on real
transcripts (found, not-found, ambiguous, the parent→child links), the runner's guards."""

from __future__ import annotations

import dataclasses
import json
import shutil
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from evaluator.adapters import get_store, normalize_session
from evaluator.adapters.claude.runner import ClaudeCodeRunner, ancestor_context, read_stream_events
from evaluator.adapters.claude.subagent import LAUNCHER_HEAD as CLAUDE_LAUNCHER_HEAD
from evaluator.adapters.codex.runner import CodexExecRunner
from evaluator.agents import AgentHandle
from evaluator.contract.models import CaseSetup
from evaluator.errors import EnvironmentProblem
from evaluator.modelserver import BehaviorLibrary, ScriptedModelServer
from evaluator.modelserver.anthropic import read_messages_thread
from evaluator.modelserver.behaviors import coverage_problems
from evaluator.pipeline.attempt import offline_mismatches
from evaluator.prompting import agent_prompt, launcher_prompt
from evaluator.sessions.base import ChildQuery
from tests.cli.test_validate import run_cli
from tests.conftest import ROOT
from tests.support import (
    attempt_spawning_two_helpers,
    behavior,
    claude_or_skip,
    demo_case,
    run_attempt,
    scratch_dir,
    serving,
)

BEHAVIORS = ROOT / "agentic-evals/targets/db-migrations/behaviors/follows-skill"

PROMPT = "default currency per account"


def _messages(
    server: ScriptedModelServer, messages: list[dict[str, Any]], headers: dict[str, str]
) -> tuple[int, list[dict[str, Any]]]:
    request = urllib.request.Request(
        server.base_url.removesuffix("/v1") + "/v1/messages?beta=true",
        data=json.dumps({"model": "m", "messages": messages, "stream": True}).encode(),
        headers={"Content-Type": "application/json", **headers},
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            text = response.read().decode()
            status = response.status
    except urllib.error.HTTPError as exc:
        return exc.code, [json.loads(exc.read())]
    return status, [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: ")]


def _blocks(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The content blocks a stream builds, tool inputs decoded."""
    assert events[0]["type"] == "message_start" and events[-1]["type"] == "message_stop"
    blocks: list[dict[str, Any]] = []
    for event in events:
        if event["type"] == "content_block_start":
            blocks.append(dict(event["content_block"]))
        elif event["type"] == "content_block_delta":
            delta = event["delta"]
            if delta["type"] == "input_json_delta":
                blocks[-1]["input"] = json.loads(delta["partial_json"])
            else:
                blocks[-1]["text"] = delta["text"]
    return blocks


def test_the_server_speaks_both_protocols_from_one_library() -> None:
    steps = [
        {"cmd": "ls", "workdir": "sub"},
        {"patch": "*** Begin Patch\n*** Update File: a.sql\n@@\n -- up\n+ALTER x;\n*** End Patch"},
        {"glob": {"pattern": "*.md", "path": "/etc"}},
        {"final": "ok"},
    ]
    session = {"x-claude-code-session-id": "5e55-1d"}
    prompt = {"type": "text", "text": "hello there"}
    reminder = {"type": "text", "text": "<system-reminder>\ncontext\n</system-reminder>"}
    with ScriptedModelServer(BehaviorLibrary([behavior("b", "hello", steps)])) as server:
        history: list[dict[str, Any]] = [{"role": "user", "content": [reminder, prompt]}]
        status, events = _messages(server, history, session)
        (bash,) = _blocks(events)
        assert status == 200 and bash["input"] == {"command": "cd sub && ls"}
        assert events[-2]["delta"]["stop_reason"] == "tool_use"
        history += [
            {"role": "assistant", "content": [bash]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": bash["id"]}]},
        ]
        # An apply_patch update becomes Read then Edit in one turn (Edit needs a prior Read).
        read, edit = _blocks(_messages(server, history, session)[1])
        assert read["name"] == "Read" and read["input"] == {"file_path": "a.sql"}
        assert edit["input"] == {
            "file_path": "a.sql",
            "old_string": "-- up",
            "new_string": "-- up\nALTER x;",
        }
        assert read["id"] != edit["id"]
        history += [
            {"role": "assistant", "content": [read, edit]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": read["id"]}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": edit["id"]}]},
        ]
        (glob,) = _blocks(_messages(server, history, session)[1])
        assert glob["name"] == "Glob" and glob["input"] == {"pattern": "*.md", "path": "/etc"}
        history += [
            {"role": "assistant", "content": [glob]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": glob["id"]}]},
        ]
        status, events = _messages(server, history, session)
        assert _blocks(events) == [{"type": "text", "text": "ok"}]
        assert events[-2]["delta"]["stop_reason"] == "end_turn"
        assert events[-2]["usage"]["output_tokens"] > 0
        assert [r.thread_id for r in server.records] == ["5e55-1d"] * 4


def test_a_behaviour_may_restrict_itself_to_one_agent() -> None:
    library = BehaviorLibrary(
        [
            behavior("for-codex", PROMPT, [{"final": "codex"}], agent="codex"),
            behavior("for-claude", PROMPT, [{"final": "claude"}], agent="claude"),
        ]
    )
    assert coverage_problems(library, {"c": f"I want a {PROMPT}."}) == []
    with ScriptedModelServer(library) as server:
        status, events = _messages(server, [{"role": "user", "content": PROMPT}], {})
        assert status == 200 and _blocks(events)[0]["text"] == "claude"
        # Behaviours for both agents matching the same prompt for one agent are refused.
        both = BehaviorLibrary([*library.behaviors, behavior("any", PROMPT, [{"final": "x"}])])
        (problem,) = coverage_problems(both, {"c": f"I want a {PROMPT}."})
        assert "'for-codex', 'any'" in str(problem)


def test_chance_branches_are_seeded_by_the_claude_workspace_as_by_codex() -> None:
    system = [
        {"type": "text", "text": "x-anthropic-billing-header: cc_version=2.1.197"},
        {
            "type": "text",
            "text": "# Environment\n - Primary working directory: /var/tmp/x/ws/case-a/attempt-02\n",
        },
    ]
    body = {"system": system, "messages": [{"role": "user", "content": PROMPT}]}
    view = read_messages_thread(body, {"x-claude-code-session-id": "s"})
    assert view.attempt_key == "case-a/attempt-02"


def test_the_claude_launcher_spawns_the_prompt_and_a_wait_is_refused() -> None:
    payload = "line one\n  indented ' quote"
    library = BehaviorLibrary([behavior("w", "waits", [{"wait": {}}, {"final": "x"}])])
    with ScriptedModelServer(library) as server:
        launcher = launcher_prompt(payload, CLAUDE_LAUNCHER_HEAD)
        (agent,) = _blocks(_messages(server, [{"role": "user", "content": launcher}], {})[1])
        assert agent["name"] == "Agent" and agent["input"]["prompt"] == payload
        status, (error,) = _messages(server, [{"role": "user", "content": "waits"}], {})
        assert status == 400 and error["type"] == "error"
        assert "the Agent tool waits for its sub-agent" in error["error"]["message"]


def test_parent_context_is_refused_and_foreign_skills_are_a_fault(tmp_path: Path) -> None:
    workspace = tmp_path / "a" / "ws"
    workspace.mkdir(parents=True)
    assert ancestor_context(workspace) == []
    (tmp_path / "CLAUDE.md").write_text("x")
    (tmp_path / "a" / ".claude").mkdir()
    assert ancestor_context(workspace) == [tmp_path / "a" / ".claude", tmp_path / "CLAUDE.md"]
    runner = ClaudeCodeRunner.__new__(ClaudeCodeRunner)
    with pytest.raises(EnvironmentProblem, match="would load context from outside"):
        runner.prepare_workspace(workspace, Path(".agents/skills/s"))
    stdout = tmp_path / "stdout.jsonl"
    init = {"type": "system", "subtype": "init", "session_id": "s1", "skills": ["mine", "theirs"]}
    stdout.write_text(json.dumps(init) + "\n")
    handle = AgentHandle("claude-code", workspace, tmp_path, stdout, stdout, 0, 0, 0)
    read_stream_events(stdout, handle, {"mine"})
    assert handle.root_thread_id == "s1"
    assert handle.fault == "skills from outside the workspace reached the agent: theirs"


# --------------------------------------------------------------- real transcripts


@pytest.fixture(scope="module")
def two_helpers() -> Iterator[tuple[AgentHandle, Path]]:
    """One real claude-code run whose main agent spawns two sub-agents."""
    claude_or_skip()
    with attempt_spawning_two_helpers("claude-code") as (workspace, handle):
        yield handle, workspace.path


@pytest.mark.claude
def test_the_session_is_found_by_the_id_the_cli_reports(
    two_helpers: tuple[AgentHandle, Path],
) -> None:
    handle, workspace = two_helpers
    assert handle.root_thread_id and handle.fault is None
    store = get_store("claude", handle.agent_home)
    found = store.locate_thread(handle.root_thread_id)
    assert found.status == "found"
    # `projects/<cwd with every non-alphanumeric character as '-'>/<session>.jsonl`
    encoded = "".join(c if c.isalnum() else "-" for c in str(workspace.resolve()))
    assert found.sessions[0].path == handle.agent_home / "projects" / encoded / (
        f"{handle.root_thread_id}.jsonl"
    )
    missing = store.locate_thread("00000000-0000-4000-8000-000000000000")
    assert missing.status == "not-found"


@pytest.mark.claude
def test_two_children_are_ambiguous_until_the_spawn_id_decides(
    two_helpers: tuple[AgentHandle, Path],
) -> None:
    handle, _ = two_helpers
    assert handle.root_thread_id and len(handle.spawned_thread_ids) == 2
    store = get_store("claude", handle.agent_home)
    ambiguous = store.locate_child(ChildQuery(handle.root_thread_id))
    assert ambiguous.status == "ambiguous" and "refusing to guess" in ambiguous.reason
    chosen = handle.spawned_thread_ids[1]
    found = store.locate_child(ChildQuery(handle.root_thread_id, agent_id=chosen))
    assert found.status == "found" and found.sessions[0].thread_id == chosen
    assert found.sessions[0].path.name == f"agent-{chosen}.jsonl"
    assert {c.thread_id for c in store.descendants(handle.root_thread_id)} == set(
        handle.spawned_thread_ids
    )
    assert store.descendants(chosen) == []


@pytest.mark.claude
def test_the_agent_tool_is_recorded_as_neutral_spawns(
    two_helpers: tuple[AgentHandle, Path],
) -> None:
    handle, _ = two_helpers
    assert handle.root_thread_id
    found = get_store("claude", handle.agent_home).locate_thread(handle.root_thread_id)
    evidence = normalize_session(found.sessions[0].path)
    assert [s.message for s in evidence.spawns] == ["first helper task", "second helper task"]
    # Claude Code's sub-agents never inherit the parent's context and have no nickname.
    assert all(s.fork_context is False and s.nickname is None for s in evidence.spawns)
    assert {s.child_id for s in evidence.spawns} == set(handle.spawned_thread_ids)


@pytest.mark.claude
def test_links_decide_and_a_copied_transcript_is_ambiguous(
    two_helpers: tuple[AgentHandle, Path], tmp_path: Path
) -> None:
    handle, _ = two_helpers
    assert handle.root_thread_id
    config = tmp_path / "config"
    shutil.copytree(handle.agent_home / "projects", config / "projects", symlinks=True)
    store = get_store("claude", config)
    (main,) = (config / "projects").glob(f"*/{handle.root_thread_id}.jsonl")
    first, second = handle.spawned_thread_ids
    # A sub-agent whose sidecar names a tool call the parent never made is no child of it.
    meta = main.with_suffix("") / "subagents" / f"agent-{first}.meta.json"
    meta.write_text(json.dumps({**json.loads(meta.read_text()), "toolUseId": "toolu_other"}))
    only = store.locate_child(ChildQuery(handle.root_thread_id))
    assert only.status == "found" and only.sessions[0].thread_id == second
    # The same session id in two project folders: refuse to choose.
    shutil.copytree(main.parent, config / "projects" / "-elsewhere")
    assert store.locate_thread(handle.root_thread_id).status == "ambiguous"


@pytest.mark.claude
def test_the_child_prompt_is_checked_by_the_run_against_the_transcript() -> None:
    """claude-subagent: the accepted session is the child's, its first user message the prompt."""
    claude_or_skip()
    steps = [{"cmd": "pwd"}, {"final": "child"}]
    with scratch_dir() as scratch, serving(behavior("c", PROMPT, steps, thread="child")) as server:
        _, handle = run_attempt(scratch, server, "routing-add-column", runner="claude-subagent")
        assert handle.launched_child and handle.root_thread_id
        (child,) = handle.spawned_thread_ids
        store = get_store(handle.adapter, handle.agent_home)
        located = store.locate_child(ChildQuery(handle.root_thread_id, agent_id=child))
        assert located.status == "found"
        first = json.loads(located.sessions[0].path.read_text().splitlines()[0])
        assert first["message"]["content"] == handle.prompt
        assert handle.prompt == agent_prompt(
            "I want to store a default currency per account."
            " Add a currency column with default 'EUR' to accounts."
        )


def test_a_missing_claude_cli_is_an_environment_error_naming_setup_agents(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("AGENTIC_EVAL_CLAUDE_BIN", str(tmp_path / "nope/claude"))
    args = ["run", "--repo", str(ROOT / "agentic-evals"), "--runs-dir", str(tmp_path)]
    code, _, err = run_cli([*args, "--agent", "claude-code", "--behaviors", str(BEHAVIORS)], capsys)
    assert code == 3 and "claude binary from $AGENTIC_EVAL_CLAUDE_BIN cannot start:" in err
    monkeypatch.delenv("AGENTIC_EVAL_CLAUDE_BIN")
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr("evaluator.adapters.claude.binary.PROJECT_BIN", tmp_path / "missing")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    code, _, err = run_cli([*args, "--agent", "claude-code", "--behaviors", str(BEHAVIORS)], capsys)
    assert code == 3 and "Traceback" not in err
    assert (
        "run `agentic-eval setup-agents --agent claude` (installs"
        " @anthropic-ai/claude-code@2.1.197 with npm" in err
    )
    assert list(tmp_path.iterdir()) == [tmp_path / "cache"] or not list(
        tmp_path.glob("*/manifest.json")
    )


def test_offline_setup_facts_are_a_mismatch_for_an_agent_whose_commands_reach_the_network() -> None:
    _, loaded = demo_case("routing-add-column")
    setup = CaseSetup.model_validate({"network_mode": "offline", "force_fetch_failure": True})
    offline = dataclasses.replace(loaded, case=loaded.case.model_copy(update={"setup": setup}))
    claude = ClaudeCodeRunner.__new__(ClaudeCodeRunner)
    codex = CodexExecRunner.__new__(CodexExecRunner)
    assert offline_mismatches(offline, codex) == []  # Codex's sandbox keeps commands offline
    assert offline_mismatches(offline, claude) == [
        "network_mode: offline cannot be honoured: claude-code's commands can reach the network",
        "force_fetch_failure: true cannot be honoured: claude-code's commands can reach the"
        " network",
    ]
    assert offline_mismatches(loaded, claude) == []  # no such fact stated


def test_a_session_that_answers_a_call_it_does_not_record_is_not_contained(
    tmp_path: Path,
) -> None:
    """Claude Code runs commands unsandboxed: one can erase its own call from the session file
    (red team, docs/isolation.md). The answer the CLI appends afterwards is then an orphan."""
    from evaluator.isolation import assess_isolation

    recorded = Path(__file__).parents[1] / "fixtures" / "recorded" / "claude-code.jsonl"
    lines = recorded.read_text().splitlines()
    kept = [line for line in lines if '"type":"tool_use","id":"toolu_76238731_3_0"' not in line]
    assert len(kept) == len(lines) - 1
    session = tmp_path / "s.jsonl"
    session.write_text("\n".join(kept) + "\n")
    workspace = tmp_path / "ws"
    workspace.mkdir()
    evidence = normalize_session(session)
    assert any("does not record" in why for _, why in evidence.opaque)
    report = assess_isolation(evidence, workspace, record_violations=False)
    assert any("does not record" in why for _, why in report.opaque)
    whole = normalize_session(recorded)
    assert not any("does not record" in why for _, why in whole.opaque)


def test_a_session_whose_start_was_deleted_is_not_contained(tmp_path: Path) -> None:
    """Red team, round 6: a command deletes the transcript; the CLI writes the rest anew, whose
    first message follows one the file no longer holds. Whatever came before is not shown, and
    the block it leaves is the agent's (`SESSION_TAMPERED`, pipeline/attempt.py)."""
    from evaluator.evidence.records import SESSION_TRUNCATED

    recorded = Path(__file__).parents[1] / "fixtures" / "recorded" / "claude-code.jsonl"
    lines = recorded.read_text().splitlines()
    session = tmp_path / "s.jsonl"
    session.write_text("\n".join(lines[len(lines) // 2 :]) + "\n")
    assert SESSION_TRUNCATED in [why for _, why in normalize_session(session).opaque]
    assert SESSION_TRUNCATED not in [why for _, why in normalize_session(recorded).opaque]
