"""The adapter seam: an agent the evaluator knows only through an adapter registered in one line
runs a case end to end; and what each shipped adapter declares."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from evaluator.adapters import (
    adapter_for_runner,
    all_adapters,
    get_adapter,
    get_runner,
    option_aliases,
    register_adapter,
    runner_names,
    session_adapter,
    unregister_adapter,
)
from evaluator.adapters.claude.runner import PERMISSION_MODES
from evaluator.errors import InputError
from evaluator.evidence.jsonl import first_object
from tests.cli.test_validate import run_cli
from tests.conftest import ROOT
from tests.support import run_scripted

FOLLOWS_SKILL = ROOT / "agentic-evals/targets/db-migrations/behaviors/follows-skill"


@pytest.fixture
def toy() -> Iterator[None]:
    register_adapter("toy", "tests.toy_adapter", runners=("toy-agent",))
    try:
        yield
    finally:
        unregister_adapter("toy")


def test_an_adapter_registered_in_one_line_runs_a_case(toy: None, tmp_path: Path) -> None:
    assert "toy-agent" in runner_names()
    outcome = run_scripted(
        repo=ROOT / "agentic-evals",
        agent="toy-agent",
        cases=("routing-add-column",),
        behaviors=FOLLOWS_SKILL,  # the toy agent needs no model; the run needs no key
        runs_dir=tmp_path / "runs",
        sandbox="none",
        trace="off",
    )
    (result,) = outcome.results
    assert result.status == "pass", result.notes
    manifest = json.loads((outcome.run_dir.path / "manifest.json").read_text())
    assert (manifest["agent"], manifest["agent_version"]) == ("toy-agent", "0.1")
    report = (outcome.run_dir.path / "report.md").read_text()
    assert "- Agent: toy-agent (0.1)" in report
    assert "toy-agent (0.1)" in (outcome.run_dir.path / "report.html").read_text()
    session = json.loads(
        (
            outcome.run_dir.path / "case-artifacts/routing-add-column/accepted-session.json"
        ).read_text()
    )
    assert session["thread_id"] == result.thread_id


@pytest.fixture
def greedy() -> Iterator[None]:
    """A second toy adapter whose session check accepts every file."""
    register_adapter("greedy", "tests.greedy_adapter", runners=("greedy-agent",))
    try:
        yield
    finally:
        unregister_adapter("greedy")


def test_the_runners_own_adapter_reads_its_session_whatever_else_claims_it(
    greedy: None, toy: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With an adapter registered (before the toy) that claims every session file and cannot
    read any, a sniff in registry order would pick it, and it is ambiguous anyway; a run
    (and `session inspect` of its attempt) still reads each session with the adapter of the
    agent that ran, and only a bare file of unknown origin is refused, with a reason."""
    outcome = run_scripted(
        repo=ROOT / "agentic-evals",
        agent="toy-agent",
        cases=("routing-add-column",),
        behaviors=FOLLOWS_SKILL,
        runs_dir=tmp_path / "runs",
        sandbox="none",
        trace="off",
    )
    (result,) = outcome.results
    assert result.status == "pass", result.notes
    attempt = outcome.run_dir.path / "case-artifacts/routing-add-column/attempts/attempt-01"
    session = attempt / "accepted-session.jsonl"
    with pytest.raises(InputError, match=r"claimed by several agents \(greedy, toy\)"):
        session_adapter(session)
    code, out, err = run_cli(["session", "inspect", str(attempt), "--json"], capsys)
    assert code == 0, err
    assert json.loads(out)["thread_id"] == result.thread_id
    as_file = ["session", "inspect", str(session), "--workspace", str(tmp_path)]
    code, out, err = run_cli(as_file, capsys)
    assert code == 2 and "name its agent" in err and "Traceback" not in err
    code, out, err = run_cli([*as_file, "--agent", "toy", "--json"], capsys)
    assert code == 0, err
    assert json.loads(out)["thread_id"] == result.thread_id


RECORDED = ROOT / "tests/fixtures/recorded"
# Every real session the project keeps, by the agent that wrote it.
RECORDED_BY_AGENT = {
    "codex": [
        RECORDED / "codex-exec.jsonl",
        *sorted((RECORDED / "subagents/codex-exec").glob("*.jsonl")),
        *sorted((ROOT / "tests/fixtures/rollouts").glob("*.jsonl")),
    ],
    "claude": [
        RECORDED / "claude-code.jsonl",
        *sorted((RECORDED / "subagents/claude-code").glob("*.jsonl")),
    ],
    "gemini": [
        RECORDED / "gemini-cli.jsonl",
        RECORDED / "gemini-cli-0.33.0-legacy.json",
        *sorted((RECORDED / "subagents/gemini-cli").glob("*.jsonl")),
    ],
}


@pytest.mark.parametrize("agent", sorted(RECORDED_BY_AGENT))
def test_each_recorded_session_is_recognised_by_its_own_adapter_only(agent: str) -> None:
    for path in RECORDED_BY_AGENT[agent]:
        first = first_object(path)
        claimed = [adapter.name for adapter in all_adapters() if adapter.recognizes_session(first)]
        assert claimed == [agent], path
        assert session_adapter(path) is get_adapter(agent)


def test_options_are_typed_per_adapter() -> None:
    claude = get_adapter("claude")
    assert claude.options({"permission_mode": "plan"}).permission_mode == "plan"  # type: ignore[attr-defined]
    with pytest.raises(InputError, match="agent option 'colour' for codex"):
        get_runner("codex-exec", {"colour": "blue"})
    with pytest.raises(InputError, match="unknown agent 'nope'"):
        adapter_for_runner("nope")


def test_each_shipped_adapter_declares_its_agent() -> None:
    for name, protocol in (("codex", "responses"), ("claude", "messages")):
        adapter = get_adapter(name)
        assert adapter.protocol == protocol
        assert str(adapter.skill_dir) in adapter.discovery_dirs
        assert adapter.cli() is not None and adapter.trigger_signal
    assert get_adapter("codex").in_session and not get_adapter("claude").in_session
    # The short flags are declared where each adapter is registered, without importing it.
    (choices,) = [a.choices for name, a in option_aliases() if a.key == "permission_mode"]
    assert choices == PERMISSION_MODES


def test_a_trace_no_adapter_taught_says_it_is_unusable(toy: None, tmp_path: Path) -> None:
    """The toy adapter declares no tool-call recogniser: under the trace its attempt cannot be
    contained, and the trace report says why (never a blind `contained`)."""
    from evaluator.isolation.trace import UNUSABLE
    from evaluator.sandbox import Tracer

    if Tracer().unavailable():
        pytest.skip("strace cannot trace here")
    outcome = run_scripted(
        repo=ROOT / "agentic-evals",
        agent="toy-agent",
        cases=("routing-add-column",),
        behaviors=FOLLOWS_SKILL,
        runs_dir=tmp_path / "runs",
        sandbox="none",
        trace="on",
    )
    (result,) = outcome.results
    assert result.status != "pass"
    attempt = json.loads(
        (
            outcome.run_dir.path
            / "case-artifacts/routing-add-column/attempts/attempt-01/attempt.json"
        ).read_text()
    )
    assert attempt["trace_report"]["verdict"] == "unverifiable"
    assert attempt["trace_report"]["reason"] == UNUSABLE
    assert attempt["isolation"] == "unverifiable"


def test_a_behaviour_may_name_an_adapter_registered_in_one_line(toy: None, tmp_path: Path) -> None:
    """The names `match.agent` accepts are the registry's: a new adapter needs no edit there."""
    from evaluator.adapters import adapter_names
    from evaluator.modelserver import load_behaviors

    doc = {
        "name": "t",
        "match": {"prompt_contains": "x", "agent": "toy"},
        "steps": [{"final": "y"}],
    }
    (tmp_path / "t.yaml").write_text(json.dumps(doc))
    (behaviour,) = load_behaviors(tmp_path, adapter_names()).behaviors
    assert behaviour.match.agent == "toy"
    unregister_adapter("toy")
    with pytest.raises(InputError, match="unknown agent 'toy'"):
        load_behaviors(tmp_path, adapter_names())


def _codex_state(home: Path) -> tuple[str, str]:
    """A Codex home's `state_5.sqlite` and rollouts: a root thread and the child it spawned."""
    import sqlite3

    from evaluator.adapters.codex.sessions import STATE_DB

    root, child = "0197aaaa-0000-7000-8000-000000000001", "0197aaaa-0000-7000-8000-000000000002"
    rollouts = home / "sessions"
    rollouts.mkdir()
    paths = {}
    for thread, parent in ((root, None), (child, root)):
        paths[thread] = rollouts / f"rollout-2026-01-01T00-00-00-{thread}.jsonl"
        meta = {"id": thread, "parent_thread_id": parent, "timestamp": "2026-01-01T00:00:00Z"}
        paths[thread].write_text(json.dumps({"type": "session_meta", "payload": meta}) + "\n")
    with sqlite3.connect(home / STATE_DB) as db:
        db.execute(
            "CREATE TABLE threads (id TEXT, rollout_path TEXT, agent_nickname TEXT,"
            " created_at_ms INTEGER)"
        )
        db.execute("CREATE TABLE thread_spawn_edges (parent_thread_id TEXT, child_thread_id TEXT)")
        db.executemany(
            "INSERT INTO threads VALUES (?, ?, NULL, NULL)", [(t, str(p)) for t, p in paths.items()]
        )
        db.execute("INSERT INTO thread_spawn_edges VALUES (?, ?)", (root, child))
    db.close()
    return root, child


def test_a_held_codex_store_opens_its_database_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An attempt locates its session, then its descendants: inside `held` one connection
    serves both (and is closed after); outside, each look-up opens its own."""
    import sqlite3

    from evaluator.adapters.codex.sessions import CodexSessionStore

    monkeypatch.delenv("CODEX_SQLITE_HOME", raising=False)
    root, child = _codex_state(tmp_path)
    opened: list[sqlite3.Connection] = []
    connect = sqlite3.connect

    def counted(*args: object, **kwargs: object) -> sqlite3.Connection:
        opened.append(connect(*args, **kwargs))  # type: ignore[arg-type]
        return opened[-1]

    monkeypatch.setattr(sqlite3, "connect", counted)

    def look_up(store: CodexSessionStore) -> tuple[str, list[str]]:
        found = store.locate_thread(root)
        assert found.status == "found" and found.method == "sqlite"
        return found.sessions[0].thread_id, [r.thread_id for r in store.descendants(root)]

    store = CodexSessionStore(tmp_path)
    apart = look_up(store)
    assert len(opened) == 3  # the thread, its children, the child's children
    with store.held() as held:
        assert look_up(held) == apart == (root, [child])
    assert len(opened) == 4
    with pytest.raises(sqlite3.ProgrammingError):  # closed when the block ended
        opened[-1].execute("SELECT 1")


def test_locating_a_codex_session_loads_no_sqlite_utils(tmp_path: Path) -> None:
    """The store reads `state_5.sqlite` with the standard library: sqlite-utils (numpy, click
    and its plugins with it, about 100 ms) would load inside a run's first attempt."""
    import subprocess
    import sys

    root, child = _codex_state(tmp_path)
    script = (
        "import sys; from pathlib import Path;"
        "from evaluator.adapters.codex.sessions import CodexSessionStore;"
        f"store = CodexSessionStore(Path({str(tmp_path)!r}));"
        f"found = store.locate_thread({root!r});"
        f"print(found.method, [r.thread_id for r in store.descendants({root!r})],"
        " sorted({'sqlite_utils', 'numpy', 'click'} & set(sys.modules)))"
    )
    env = {k: v for k, v in os.environ.items() if k != "CODEX_SQLITE_HOME"}
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.stdout.split(None, 1) == ["sqlite", f"['{child}'] []\n"], done.stderr


def test_preload_imports_what_reading_a_session_needs(tmp_path: Path) -> None:
    """`drive` preloads each lane's adapter before the first attempt: after it, reading and
    judging that agent's session (store, normaliser, tool texts, trace) imports no module of
    the evaluator, so none of it lands in the first attempt."""
    import subprocess
    import sys

    empty = tmp_path / "session.jsonl"
    empty.write_text("")
    script = f"""
import contextlib, sys
from pathlib import Path
from evaluator.adapters import get_adapter
adapter = get_adapter(sys.argv[1])
adapter.preload()
before = set(sys.modules)
home = Path({str(tmp_path)!r})
adapter.session_store(home).locate_thread("0197aaaa-0000-7000-8000-000000000001")
adapter.trace_recognizer()
with contextlib.suppress(Exception):
    adapter.normalize(home / "session.jsonl")
with contextlib.suppress(Exception):
    list(adapter.tool_texts(home / "session.jsonl", {{}}))
print(sorted(m for m in set(sys.modules) - before if m.startswith("evaluator")))
"""
    for name in ("codex", "claude", "gemini"):
        done = subprocess.run(
            [sys.executable, "-c", script, name], cwd=ROOT, capture_output=True, text=True
        )
        assert done.stdout == "[]\n", (name, done.stdout, done.stderr)
