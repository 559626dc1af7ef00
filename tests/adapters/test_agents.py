"""The real Codex CLI, driven by the scripted model server, in fresh attempt workspaces."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from evaluator.agents import ModelEndpoint
from evaluator.prompting import agent_prompt
from tests.support import (
    behavior,
    codex_or_skip,
    demo_case,
    first_user_prompt,
    read_jsonl,
    rollout_files,
    run_attempt,
    scratch_dir,
    serving,
)

pytestmark = pytest.mark.codex

SKILL = ".agents/skills/db-migrations"
GOOD_STEPS = [
    {"cmd": f"cat {SKILL}/SKILL.md"},
    {"cmd": f"cat {SKILL}/references/docs.txt"},
    {"cmd": f"sed -n '1,40p' {SKILL}/references/add-column.md"},
    {"cmd": f"python3 {SKILL}/scripts/new_migration.py account_currency"},
    {
        "patch": "*** Begin Patch\n*** Update File: migrations/0001_account_currency.sql\n"
        "@@\n -- up\n+ALTER TABLE accounts ADD COLUMN currency TEXT DEFAULT 'EUR';\n"
        "*** End Patch\n"
    },
    {"final": "Created migrations/0001_account_currency.sql. Roll back with DROP COLUMN."},
]
PROMPT = "default currency per account"


@pytest.fixture(autouse=True)
def _codex() -> None:
    codex_or_skip()


def test_codex_exec_runs_in_the_workspace_and_records_its_session() -> None:
    with scratch_dir() as scratch, serving(behavior("good", PROMPT, GOOD_STEPS)) as server:
        workspace, handle = run_attempt(scratch, server, "routing-add-column")
        assert handle.fault is None, handle.stderr_path.read_text()
        assert handle.root_thread_id
        # The agent really ran the skill's script and really patched the file it created.
        migration = workspace.path / "migrations/0001_account_currency.sql"
        assert "ADD COLUMN currency" in migration.read_text()
        files = rollout_files(handle.agent_home)
        assert [f.name.endswith(f"-{handle.root_thread_id}.jsonl") for f in files] == [True]
        assert first_user_prompt(files[0]) == handle.prompt
        assert [r.step for r in server.records] == [1, 2, 3, 4, 5, 6]
        assert server.errors() == []
        # Only the skill (and what the agent made) is in the workspace: no eval repo, no evaluator.
        top = sorted(p.name for p in workspace.path.iterdir())
        assert top == [".agents", "migrations"]


def test_a_bad_behaviour_differs_by_what_codex_really_did() -> None:
    outside = Path("/tmp") / f"agentic-eval-escape-{os.getpid()}.txt"
    bad = [
        {"cmd": f"echo escaped > {outside}"},
        {"cmd": "ls"},
        {"final": "Done."},
    ]
    try:
        with scratch_dir() as scratch, serving(behavior("bad", PROMPT, bad)) as server:
            workspace, handle = run_attempt(scratch, server, "routing-add-column")
            assert handle.fault is None
            assert outside.read_text() == "escaped\n"  # the sandbox lets /tmp writes through
            assert not (workspace.path / "migrations").exists()
    finally:
        outside.unlink(missing_ok=True)


def test_codex_subagent_child_gets_the_prompt_verbatim() -> None:
    child_steps = [{"cmd": f"cat {SKILL}/SKILL.md"}, {"final": "Child done."}]
    with (
        scratch_dir() as scratch,
        serving(behavior("child", PROMPT, child_steps, thread="child")) as server,
    ):
        _, handle = run_attempt(scratch, server, "routing-add-column", runner="codex-subagent")
        assert handle.fault is None, handle.stderr_path.read_text()
        assert handle.root_thread_id and len(handle.spawned_thread_ids) == 1
        child_id = handle.spawned_thread_ids[0]
        files = {f.name[-42:-6]: f for f in rollout_files(handle.agent_home)}
        assert set(files) == {handle.root_thread_id, child_id}
        _, case = demo_case("routing-add-column")
        assert first_user_prompt(files[child_id]) == agent_prompt(case.case.input.user_prompt)
        meta = read_jsonl(files[child_id])[0]["payload"]
        assert (
            meta["source"]["subagent"]["thread_spawn"]["parent_thread_id"] == handle.root_thread_id
        )
        behaviours = [(r.behavior, r.is_child) for r in server.records]
        assert ("child", True) in behaviours and ("subagent-launcher", False) in behaviours


def test_timeout_kills_the_process_group_and_keeps_the_evidence() -> None:
    marker = f"agentic-eval-sleep-{os.getpid()}"
    steps = [{"cmd": f"sleep 47.{os.getpid() % 1000}; echo {marker}"}, {"final": "late"}]
    with scratch_dir() as scratch, serving(behavior("slow", PROMPT, steps)) as server:
        started = time.time()
        _, handle = run_attempt(scratch, server, "routing-add-column", timeout_s=10)
        assert handle.timed_out and handle.killed
        assert time.time() - started < 30
        assert "timed out" in (handle.fault or "")
        assert not handle.stalled_on_model  # busy running a command, not waiting for its model
        files = rollout_files(handle.agent_home)
        assert len(files) == 1  # the session written so far is kept
        assert '"exec_command"' in files[0].read_text()
        time.sleep(0.5)
        leftovers = os.popen(f"pgrep -f 'slee[p] 47.{os.getpid() % 1000}'").read().strip()
        assert leftovers == ""


def test_model_server_500_ends_the_agent_with_a_fault() -> None:
    steps = [{"cmd": "ls"}, {"http_error": 500}]
    with scratch_dir() as scratch, serving(behavior("flaky", PROMPT, steps)) as server:
        _, handle = run_attempt(scratch, server, "routing-add-column")
        assert handle.exit_code not in (0, None)
        assert handle.fault
        assert rollout_files(handle.agent_home)
        assert [r.action for r in server.records][:2] == ["cmd", "http_error"]


def test_unmatched_prompt_is_refused_clearly() -> None:
    with (
        scratch_dir() as scratch,
        serving(behavior("other", "no such prompt", [{"final": "x"}])) as server,
    ):
        _, handle = run_attempt(scratch, server, "routing-add-column")
        assert handle.fault
        errors = server.errors()
        assert errors and "no scripted behaviour matches prompt" in (errors[0].error or "")
        assert "no scripted behaviour matches" in handle.stderr_path.read_text() + (
            handle.stdout_path.read_text()
        )


def test_unreachable_model_ends_in_the_timeout_with_codex_error_kept() -> None:
    # Observed: codex 0.169 keeps "Reconnecting... waiting for network" instead of exiting, so
    # only the per-attempt timeout ends it; the handle keeps codex's own error text.
    with scratch_dir() as scratch, serving() as server:
        endpoint = ModelEndpoint(
            model="mock-model", base_url="http://127.0.0.1:9/v1", scripted=True
        )
        _, handle = run_attempt(
            scratch, server, "routing-add-column", endpoint=endpoint, timeout_s=6
        )
        assert handle.timed_out
        assert "Connection failed" in (handle.fault or "")
        # Killed while still reconnecting: the machine's fault, which the pipeline blocks as
        # `environment` and the score counts as an outage, never as the skill's timeout.
        assert handle.stalled_on_model
