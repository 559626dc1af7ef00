"""The held-out sentences of `tests/fixtures/criteria-heldout.json` (issue 23): no sentence
compiles to checks other than the ones it was written with, no near miss compiles, and the
figures `docs/criteria.md` records are the ones `benchmarks/criteria_heldout.py` measures."""

from __future__ import annotations

import re

from benchmarks.criteria_heldout import outcomes, summary
from tests.conftest import ROOT


def test_no_held_out_sentence_compiles_to_a_wrong_check() -> None:
    unsound = [
        f"{name}: {row.sentence!r}: want {row.expected}, got {row.got}"
        for name, rows in outcomes().items()
        for row in rows
        if row.verdict == "unsound"
    ]
    assert not unsound, "\n".join(unsound)


def test_the_recorded_held_out_figures_are_the_measured_ones() -> None:
    doc = (ROOT / "docs/criteria.md").read_text()
    recorded = {
        m.group(1): tuple(int(g) for g in m.groups()[1:])
        for m in re.finditer(
            r"^\| (tuned|fresh|skill|pool) \(now[^|]*\| (\d+) \| (\d+) of (\d+) \(\d+%\) \| (\d+) of (\d+) \|"
            r" (\d+) \|",
            doc,
            re.M,
        )
    }
    measured = {
        name: (
            counts["sentences"],
            counts["decided"],
            counts["exact"],
            counts["refused"],
            counts["sentences"] - counts["exact"],
            counts["unsound"],
        )
        for name, counts in ((n, summary(rows)) for n, rows in outcomes().items())
    }
    assert recorded == measured
