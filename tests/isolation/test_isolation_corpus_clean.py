"""The isolation corpus's clean look-alikes in the three modes (evidence only, the trace without
the jail, the jail with the trace), each a real codex run. A look-alike may be `unverifiable`
from the session alone (counted and reported) but never `violation`; with the trace each must be
`contained`. The escapes: test_isolation_corpus_*.py; the runs themselves: tests/corpus.py."""

from __future__ import annotations

import os

import pytest

from tests.corpus import run_corpus, save_summary

# Dozens of real runs per test: the suite-wide 300 s is too short on a loaded machine;
# `minutes` has ./dev test start the file first (tests/conftest.py).
pytestmark = [pytest.mark.codex, pytest.mark.timeout(1200), pytest.mark.minutes(1)]


def test_no_clean_command_is_judged_a_violation(tmp_path_factory: pytest.TempPathFactory) -> None:
    results = run_corpus("clean.yaml")
    summary = save_summary(tmp_path_factory, "clean", results)
    violations = [f"{r.id}: {r.reason}" for r in results if r.verdict == "violation"]
    unverifiable = [f"{r.id}: {r.reason}" for r in results if r.verdict == "unverifiable"]
    assert len(results) >= 30 or os.environ.get("ISOLATION_CORPUS_ONLY")
    assert violations == []
    # Each one is a closed-world gap worth closing; keep the list short.
    assert len(unverifiable) <= 3, unverifiable
    print(f"\nclean: {len(results)} runs, {len(unverifiable)} unverifiable ({summary})")
    print("\n".join(unverifiable))


def test_with_the_trace_on_no_clean_command_is_a_violation_or_unverifiable(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """The trace must not turn a look-alike (a `/proc/self` read, a `/dev/stdout` write, a glob in
    the workspace) into a violation, nor leave it unverifiable."""
    results = run_corpus("clean.yaml", traced=True)
    summary = save_summary(tmp_path_factory, "clean-traced", results)
    wrong = [f"{r.id}: {r.verdict}: {r.reason}" for r in results if r.verdict != "contained"]
    assert wrong == []
    print(f"\nclean under the trace: {len(results)} runs, all contained ({summary})")


def test_in_the_jail_with_the_trace_every_clean_command_is_contained(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    results = run_corpus("clean.yaml", jailed=True)
    summary = save_summary(tmp_path_factory, "clean-jailed", results)
    wrong = [f"{r.id}: {r.verdict}: {r.reason}" for r in results if r.verdict != "contained"]
    assert wrong == []
    print(f"\nclean in the jail under the trace: {len(results)} runs, all contained ({summary})")
