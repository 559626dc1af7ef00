"""The isolation corpus's escapes in the jail under the trace (all three layers, as a default
run has them), each a real codex run. The other modes and the look-alikes:
test_isolation_corpus_*.py; the runs themselves: tests/corpus.py."""

from __future__ import annotations

import pytest

from tests.corpus import run_corpus, save_summary

# Over a hundred real runs: the suite-wide 300 s is too short on a loaded machine; `minutes`
# has ./dev test start the file first (tests/conftest.py).
pytestmark = [pytest.mark.codex, pytest.mark.timeout(1200), pytest.mark.minutes(3)]


def test_in_the_jail_with_the_trace_no_escape_is_contained(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """The third mode: the jail hides the canary, so the escapes fail (no proof is asked); each
    attempt must still be judged, and none `contained`."""
    results = run_corpus("escapes.yaml", jailed=True)
    summary = save_summary(tmp_path_factory, "escapes-jailed", results)
    contained = [
        f"{r.id}: {r.reason}"
        for r in results
        if r.verdict == "contained" and not r.reaches_nothing_in_jail
    ]
    assert contained == []
    counts = {v: sum(r.verdict == v for r in results) for v in ("violation", "unverifiable")}
    print(f"\nescapes in the jail under the trace: {len(results)} runs, {counts} ({summary})")
