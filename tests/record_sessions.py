"""Records the session fixtures of the unit tier: one real attempt per agent CLI.

Each agent (the pinned codex and claude binaries, against the scripted model server) plays the
same behaviour on the demo case routing-add-column: it reads SKILL.md, writes a file, lists a
directory and answers. The session it recorded is copied to tests/fixtures/recorded/<runner>.jsonl
with the attempt's scratch directory replaced by `{SCRATCH}`, so that a unit test can put the
session back under a workspace of its own (tests/evidence/test_recorded_sessions.py) and run the evidence
and isolation stages on what the real binary wrote, without the binary.

Each agent also plays an attempt that spawns two helper sub-agents: that session and both of its
children go to tests/fixtures/recorded/subagents/<runner>/ (`root.jsonl` and the children under
their own file names), which the ATIF export is tested on (tests/interop/test_interop.py).

Run again after upgrading an agent CLI: .venv/bin/python -m tests.record_sessions

A legacy Gemini CLI session (one `.json` document, written by CLIs before the JSONL log, which the
pinned CLI still reads) comes from an older binary installed apart (`npm install
@google/gemini-cli@0.33.0` in a scratch folder): .venv/bin/python -m tests.record_sessions
--legacy-gemini PATH_TO_ITS_BIN/gemini (tests/fixtures/recorded/gemini-cli-<version>-legacy.json).
"""

from __future__ import annotations

import sys
from pathlib import Path

from evaluator.adapters import get_store
from tests.conftest import ROOT
from tests.support import attempt_spawning_two_helpers, behavior, run_attempt, scratch_dir, serving

FIXTURES = ROOT / "tests/fixtures/recorded"
CASE = "routing-add-column"
PLACEHOLDER = "{SCRATCH}"
STEPS = [
    {"cmd": "cat .agents/skills/db-migrations/SKILL.md"},
    {"write": {"path": "notes.txt", "content": "plan: add a currency column\n"}},
    {"cmd": "ls migrations"},
    {"final": "Added the plan to notes.txt; the migrations are listed."},
]
RUNNERS = ("codex-exec", "claude-code", "gemini-cli")
SUBAGENT_RUNNERS = ("codex-exec", "claude-code", "gemini-cli")


def record(runner: str) -> Path:
    with (
        scratch_dir() as scratch,
        serving(behavior("recorded", "default currency per account", STEPS)) as server,
    ):
        _, handle = run_attempt(scratch, server, CASE, runner=runner)
        if handle.fault is not None or handle.root_thread_id is None:
            raise SystemExit(f"{runner}: the attempt failed: {handle.fault or handle.error}")
        found = get_store(handle.adapter, handle.agent_home).locate_thread(handle.root_thread_id)
        if found.status != "found":
            raise SystemExit(f"{runner}: no session: {found.reason}")
        text = found.sessions[0].path.read_text(encoding="utf-8")
        # the scratch directory, as written and as the resolved path the agent may print
        for spelling in {str(scratch), str(scratch.resolve())}:
            text = text.replace(spelling, PLACEHOLDER)
    out = FIXTURES / f"{runner}.jsonl"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    return out


def _placeheld(path: Path, scratch: Path) -> str:
    text = path.read_text(encoding="utf-8")
    for spelling in {str(scratch), str(scratch.resolve())}:
        text = text.replace(spelling, PLACEHOLDER)
    return text


def record_subagents(runner: str) -> Path:
    out = FIXTURES / "subagents" / runner
    with attempt_spawning_two_helpers(runner) as (workspace, handle):
        if handle.fault is not None or handle.root_thread_id is None:
            raise SystemExit(f"{runner}: the attempt failed: {handle.fault or handle.error}")
        scratch = workspace.path.parents[2]
        store = get_store(handle.adapter, handle.agent_home)
        found = store.locate_thread(handle.root_thread_id)
        if found.status != "found":
            raise SystemExit(f"{runner}: no session: {found.reason}")
        root = found.sessions[0]
        children = store.descendants(root.thread_id)
        if len(children) != 2:
            raise SystemExit(f"{runner}: {len(children)} sub-agent session(s), expected 2")
        texts = {"root.jsonl": _placeheld(root.path, scratch)}
        texts |= {child.path.name: _placeheld(child.path, scratch) for child in children}
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("*.jsonl"):
        old.unlink()
    for name, text in texts.items():
        (out / name).write_text(text, encoding="utf-8")
    return out


LEGACY_STEPS = [
    {"cmd": "ls migrations"},
    {"write": {"path": "notes.txt", "content": "plan: add a currency column\n"}},
    {"read": "notes.txt"},
    {"final": "Added the plan to notes.txt; the migrations are listed."},
]


def record_legacy_gemini(binary: Path) -> Path:
    """One session of an older Gemini CLI that writes `session-*.json`, started as our runner
    starts the pinned one (older CLIs take no `--session-id`)."""
    import json
    import subprocess

    from evaluator.adapters.gemini.binary import gemini_version
    from evaluator.adapters.gemini.runner import GeminiCliRunner, settings
    from evaluator.agents import AgentRequest, ModelEndpoint
    from evaluator.prompting import agent_prompt

    prompt = agent_prompt(
        "I want to store a default currency per account. Add a currency column with default"
        " 'EUR' to accounts."
    )
    with (
        scratch_dir() as scratch,
        serving(behavior("legacy", "default currency per account", LEGACY_STEPS)) as server,
    ):
        workspace = scratch / "workspaces" / CASE / "attempt-01"
        home, tmp = scratch / "home", scratch / "tmp"
        for folder in (workspace / "migrations", home / ".gemini", tmp):
            folder.mkdir(parents=True)
        (workspace / "migrations/0000_init.sql").write_text("CREATE TABLE accounts (id INTEGER);\n")
        settings_path = home / ".gemini/settings.json"
        settings_path.write_text(json.dumps(settings(None)))
        endpoint = ModelEndpoint(model=None, base_url=server.base_url, scripted=True)
        request = AgentRequest(workspace, scratch / "agent", prompt, endpoint, 120)
        runner = GeminiCliRunner(binary)
        argv = runner.command(request, "unused")
        at = argv.index("--session-id")
        del argv[at : at + 2]
        env = runner.environment(request, home, settings_path, tmp)
        done = subprocess.run(argv, cwd=workspace, env=env, capture_output=True, timeout=180)
        if done.returncode != 0:
            raise SystemExit(f"legacy gemini: exit {done.returncode}: {done.stderr[-2000:]!r}")
        (session,) = (home / ".gemini/tmp").glob("*/chats/session-*.json")
        text = _placeheld(session, scratch)
    out = FIXTURES / f"gemini-cli-{gemini_version(binary)}-legacy.json"
    out.write_text(text, encoding="utf-8")
    return out


def main(runners: tuple[str, ...] = RUNNERS) -> None:
    for runner in runners:
        path = record(runner)
        print(f"{runner}: {path.relative_to(ROOT)} ({path.stat().st_size} bytes)")
        if runner not in SUBAGENT_RUNNERS:
            continue
        directory = record_subagents(runner)
        print(f"{runner}: {directory.relative_to(ROOT)} (a session and its two sub-agents)")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--legacy-gemini"]:
        print(record_legacy_gemini(Path(sys.argv[2])).relative_to(ROOT))
    else:
        main(tuple(sys.argv[1:]) or RUNNERS)
