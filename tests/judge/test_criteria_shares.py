"""The measured share of entries rules decide: the labels stay in step with the entries, and the
figures `docs/criteria.md` records stay in step with what `benchmarks/criteria_shares.py` prints."""

from __future__ import annotations

import json
import re
from pathlib import Path

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


def test_an_evals_file_is_measured_in_place(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from benchmarks.criteria_shares import main

    skill = tmp_path / "tidy"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: tidy\ndescription: Tidies.\n---\nRun `make tidy`.\n"
    )
    evals = {
        "skill_name": "tidy",
        "evals": [
            {
                "id": 1,
                "prompt": "Tidy the repo.",
                "expectations": ["The agent ran `make tidy`", "The result reads well"],
            }
        ],
    }
    (skill / "evals" / "evals.json").write_text(json.dumps(evals))
    # the skill folder, as `run --evals` takes it: its evals file and skill found the same way
    assert main(["--evals", str(skill)]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert f"{skill}: 1 of 2 entries decided by rules (50%)" in printed
    assert main(["--evals", str(tmp_path)]) == 2  # no evals.json there: said, not a traceback
    assert "no evals.json here" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["heldout-pool.json", "heldout-pool-10.json"])
def test_the_held_out_pool_is_split_by_its_rule_and_holds_no_text(name: str) -> None:
    from benchmarks.criteria_shares import POOL

    pool = json.loads((POOL.parent / name).read_text())
    names = sorted(pool["repos"])
    # the rule fixed before anything was measured: sorted names, alternating TUNE and TEST
    assert [pool["repos"][n]["half"] for n in names] == [
        "tune" if i % 2 == 0 else "test" for i in range(len(names))
    ]
    assert set(pool["labels"].values()) <= {"exact", "judgement"}
    for key in pool["labels"]:
        repo, _, rest = key.partition("@")
        assert repo in pool["repos"]
        assert rest.startswith(pool["repos"][repo]["commit"][:7] + ":")
        assert re.fullmatch(r"[0-9a-f]{7}:[\w./-]+/[\w.-]+#\w+\[\d+\]", rest), key


def test_the_two_held_out_pools_share_no_repo() -> None:
    """Round 10's pool is held out from the first: no repo of one is in the other."""
    from benchmarks.criteria_shares import POOL

    first = json.loads(POOL.read_text())["repos"]
    tenth = json.loads((POOL.parent / "heldout-pool-10.json").read_text())["repos"]
    assert not set(first) & set(tenth)
