"""The measured share of entries rules decide: the labels stay in step with the entries, and the
figures `docs/criteria.md` records stay in step with what `benchmarks/criteria_shares.py` prints."""

from __future__ import annotations

import json
import re

import pytest

from benchmarks.criteria_shares import LABELS, PUBLIC, shares
from tests.conftest import ROOT

pytestmark = pytest.mark.skipif(not PUBLIC.is_dir(), reason="no shared public suites")


def test_every_entry_is_labelled_once_with_a_reason() -> None:
    figures = shares()
    assert figures["unlabelled"] == []
    labels = json.loads(LABELS.read_text())
    assert len(labels) == figures["entries"]  # no label for an entry that is gone
    assert {v["label"] for v in labels.values()} <= {"exact", "judgement"}
    assert all(v["why"].strip() for v in labels.values())


def test_the_recorded_figures_are_the_measured_ones() -> None:
    figures = shares()
    doc = (ROOT / "docs/criteria.md").read_text()
    rows = {
        m.group(1): (int(m.group(2)), int(m.group(3)))
        for m in re.finditer(r"^\| (all prose|labelled exact)[^|]*\| (\d+) \| (\d+) \(", doc, re.M)
    }
    assert rows["all prose"] == (figures["entries"], figures["by_rules"])
    assert rows["labelled exact"] == (figures["labelled_exact"], figures["labelled_exact_by_rules"])
    every = re.search(r"^\| every entry[^|]*\| (\d+) \| (\d+) \(", doc, re.M)
    assert every is not None
    assert (int(every.group(1)), int(every.group(2))) == (
        figures["every_entry"],
        figures["without_a_model"],
    )


def test_the_entries_rules_can_fail_are_counted_apart(capsys: pytest.CaptureFixture[str]) -> None:
    from benchmarks.criteria_shares import main

    repo = ROOT / "tests/fixtures/rules-first/agentic-evals"
    assert main(["--repo", str(repo)]) == 0
    printed = capsys.readouterr().out.splitlines()
    # `by rules` counts entries compiled whole only; the two that rules can fail are apart.
    assert f"{repo}: 1 of 5 entries decided by rules (20%)" in printed
    assert (
        f"{repo}: entries rules can fail without a model: 2 of 5 (not compiled whole: otherwise"
        " the model decides)"
    ) in printed
    assert shares()["rules_can_fail"] == 0  # the public suites and the upstream fixture: none
