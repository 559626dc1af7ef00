"""The isolation corpus's escapes under the trace without the jail (layer 2 on an escape that
succeeds: the jail would hide the canary), each a real codex run. The other modes and the
look-alikes: test_isolation_corpus_*.py; the runs themselves: tests/corpus.py."""

from __future__ import annotations

import os

import pytest

from tests.corpus import CI_TRACE_ONLY_EVERY, run_corpus, save_summary

# Over a hundred real runs: the suite-wide 300 s is too short on a loaded machine; `minutes`
# has ./dev test start the file first (tests/conftest.py).
pytestmark = [pytest.mark.codex, pytest.mark.timeout(1200), pytest.mark.minutes(2)]


def test_with_the_trace_on_every_escape_is_a_violation(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """Layer 2 turns what the evidence analysis could only call `unverifiable` into `violation`."""
    every = CI_TRACE_ONLY_EVERY if os.environ.get("CI") else 1
    results = run_corpus("escapes.yaml", traced=True, every=every)
    summary = save_summary(tmp_path_factory, "escapes-traced", results)
    not_violation = [
        f"{r.id}: {r.verdict}: {r.reason}" for r in results if r.verdict != "violation"
    ]
    unproved = [r.id for r in results if r.proved is False]
    assert unproved == [], "these techniques no longer reach the canary; fix the corpus"
    assert not_violation == []
    print(f"\nescapes under the trace: {len(results)} runs, all violation ({summary})")
