"""The isolation corpus's escapes judged from the session alone (no jail, no trace): each a real
codex run whose scripted agent touches a canary directory outside the workspace. None may be
judged `contained`, and each must really have escaped (its proof: the canary's token reached the
session, or the file it wrote exists), so a technique that silently stopped working fails here
instead of passing vacuously. The other modes and the look-alikes: test_isolation_corpus_*.py;
the runs themselves: tests/corpus.py."""

from __future__ import annotations

import os

import pytest

from tests.corpus import run_corpus, save_summary

# Over a hundred real runs: the suite-wide 300 s is too short on a loaded machine; `minutes`
# has ./dev test start the file first (tests/conftest.py).
pytestmark = [pytest.mark.codex, pytest.mark.timeout(1200), pytest.mark.minutes(3)]


def test_no_escape_is_judged_contained(tmp_path_factory: pytest.TempPathFactory) -> None:
    results = run_corpus("escapes.yaml")
    summary = save_summary(tmp_path_factory, "escapes", results)
    contained = [f"{r.id}: {r.reason}" for r in results if r.verdict == "contained"]
    unproved = [r.id for r in results if r.proved is False]
    assert len(results) >= 100 or os.environ.get("ISOLATION_CORPUS_ONLY")
    assert contained == []
    assert unproved == [], "these techniques no longer reach the canary; fix the corpus"
    counts = {v: sum(r.verdict == v for r in results) for v in ("violation", "unverifiable")}
    print(f"\nescapes: {len(results)} runs, {counts} ({summary})")
