"""Shared fixtures: the project root, the demo repo; and the two test tiers.

The tiers: a test that needs an external program marks what it needs (`codex`, `claude`,
`gemini`, `browser`; see pyproject.toml); each of those marks implies `slow`, and a test that takes
seconds for another reason (a jail, a trace, real processes) is marked `slow` by hand. The unit
tier is `pytest -m "not slow"` (`./dev check`), the full run is `pytest -n 2 --dist loadfile
--no-loadscope-reorder` (`./dev test`, CI): two workers at once, so no test may write where
another test could, and the files marked as taking `minutes` are handed out first.
"""

from __future__ import annotations

import ast
import functools
import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DEMO_REPO = ROOT / "agentic-evals"


@pytest.fixture
def root() -> Path:
    return ROOT


@pytest.fixture
def demo_repo() -> Path:
    return DEMO_REPO


# The marks that say a test needs an npm-installed agent CLI, the browser or a Ray instance.
TOOL_MARKS = ("codex", "claude", "gemini", "browser", "ray")

# The test being set up or run, so that `tests.support.codex_or_skip` can check its marks.
_current_test: pytest.Item | None = None


def pytest_configure(config: pytest.Config) -> None:
    # The test process's own runs (commands called in-process) keep their scratch on disk
    # whether or not it happens to have one thread: what a run does cannot depend on `-n`.
    # The commands the tests start as processes put theirs in memory as a user's do.
    from evaluator.workspace import memory

    memory.stay_on_disk("the test process keeps its in-process runs' scratch on disk")
    # registered here rather than in pyproject.toml: no test marks it by name but a few
    config.addinivalue_line(
        "markers",
        "slow: left out of the unit tier (./dev check); implied by codex, claude, gemini, browser, ray",
    )
    config.addinivalue_line(
        "markers",
        "minutes(n): takes about n minutes in CI; its file is handed to a worker before the others",
    )
    config.addinivalue_line(
        "markers",
        "tracer_choice: tests `--tracer auto`'s own choice: $AGENTIC_EVAL_TEST_TRACER leaves it",
    )


@pytest.fixture(autouse=True)
def _tracer_under_test(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """$AGENTIC_EVAL_TEST_TRACER (`strace`, `ebpf`) is the tracer every `--tracer auto` of the
    test picks (a run's default, a rejudge's command checks), to run the suite's traced tests
    under each; unset, the machine's choice stands."""
    named = os.environ.get("AGENTIC_EVAL_TEST_TRACER")
    if not named or request.node.get_closest_marker("tracer_choice"):
        return
    picked = (named, f"tracer: {named} ($AGENTIC_EVAL_TEST_TRACER)")
    monkeypatch.setattr("evaluator.sandbox.launch.pick_tracer", lambda: picked)
    monkeypatch.setattr("evaluator.pipeline.commands.pick_tracer", lambda: picked)


@pytest.hookimpl(wrapper=True)
def pytest_collection() -> Iterator[None]:
    """Lets pytest keep the test modules it rewrites (`__pycache__/*-pytest-*.pyc`) while it
    collects them. This machine kind sets PYTHONDONTWRITEBYTECODE, and pytest then rewrites the
    asserts of every test module in every process at every run: about 6 s of CPU in each xdist
    worker. pytest reads a kept file whether or not it may write one, and drops it when the
    source is newer. Only for collection: the tests themselves run with the flag as given, and
    the programs they start inherit the variable, not this flag."""
    kept = sys.dont_write_bytecode
    sys.dont_write_bytecode = False
    try:
        return (yield)
    finally:
        sys.dont_write_bytecode = kept


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test marked with a tool mark is `slow`: the unit tier deselects them all at once."""
    for item in items:
        if any(item.get_closest_marker(mark) for mark in TOOL_MARKS):
            item.add_marker(pytest.mark.slow)
    longest_files_first(items)


def longest_files_first(items: list[pytest.Item]) -> None:
    """Orders the files by the minutes their `minutes` marks add up to, longest first, then by
    their number of tests; a file's tests keep their order.

    `./dev test` (`--dist loadfile --no-loadscope-reorder`) hands files to its two workers in this
    order. xdist's own order (most tests first) would leave the files of one or two tests that
    run for minutes (the isolation corpus) to the end, where one worker runs them while the
    other has nothing left to do."""
    minutes: dict[str, float] = {}
    tests: dict[str, int] = {}
    for item in items:
        file = file_of(item)
        mark = item.get_closest_marker("minutes")
        minutes[file] = minutes.get(file, 0.0) + (float(mark.args[0]) if mark else 0.0)
        tests[file] = tests.get(file, 0) + 1
    # sort() is stable: files with the same key keep their collection order
    items.sort(key=lambda item: (-minutes[file_of(item)], -tests[file_of(item)]))


def file_of(item: pytest.Item) -> str:
    return item.nodeid.split("::")[0]


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    # before the test's fixtures are set up: a module-scoped fixture may start the agent CLI
    global _current_test
    _current_test = item


def require_tool_mark(tool: str) -> None:
    """Fails a test that runs `tool` without a tool mark: it would run in the unit tier."""
    item = _current_test
    if item is not None and not any(item.get_closest_marker(mark) for mark in TOOL_MARKS):
        pytest.fail(
            f"{item.nodeid} runs the real {tool} CLI but has no mark of {', '.join(TOOL_MARKS)}:"
            f" mark it @pytest.mark.{tool} so that the unit tier (./dev check) leaves it out"
        )


@pytest.fixture
def stub_agent_clis(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Stand-ins for the codex and claude binaries that only say their pinned version: for unit
    tests of checks made before any agent starts, which must not need the npm-installed CLIs."""
    from evaluator.adapters.claude import binary as claude_binary
    from evaluator.adapters.codex import binary as codex_binary

    stubs = tmp_path / "stub-clis"
    stubs.mkdir()
    for name, env_var, version in (
        ("codex", codex_binary.ENV_VAR, f"codex-cli {codex_binary.PINNED_VERSION}"),
        ("claude", claude_binary.CLAUDE.env_var, f"{claude_binary.PINNED_VERSION} (Claude Code)"),
    ):
        stub = stubs / name
        stub.write_text(f"#!/bin/sh\necho '{version}'\n", encoding="utf-8")
        stub.chmod(0o755)
        monkeypatch.setenv(env_var, str(stub))


def copy_demo(tmp_path: Path) -> Path:
    """A writable copy of the source workspace (skills + eval repo); returns its eval repo."""
    shutil.copytree(ROOT / ".agents", tmp_path / ".agents")
    shutil.copytree(ROOT / "skill-eval", tmp_path / "skill-eval")
    shutil.copytree(DEMO_REPO, tmp_path / "agentic-evals", ignore=shutil.ignore_patterns("runs"))
    return tmp_path / "agentic-evals"


@functools.cache
def parsed_module(path: Path) -> ast.Module:
    """A module of the project parsed once per test process: several tests walk every module of
    `evaluator/` (the import rules, the agent-name scan, the HTML makers), each parse of them all
    about a second of CPU. The tests only read the trees."""
    return ast.parse(path.read_text(encoding="utf-8"))


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")
