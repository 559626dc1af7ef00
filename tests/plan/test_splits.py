"""Stable splits: an explicit `split:` wins; otherwise a per-case hash that no new case disturbs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluator.cli.main import main
from evaluator.contract.models import SplitSettings
from evaluator.plan import case_split, open_repo, select_cases
from tests.conftest import copy_demo


def splits_of(repo: Path, settings: SplitSettings) -> dict[str, str]:
    selection = select_cases(open_repo(repo, None), None, ("bootstrap", "routing", "workflow"))
    return {c.case_id: case_split(c, settings) for c in selection.cases}


def test_adding_a_case_never_moves_another(tmp_path: Path) -> None:
    repo = copy_demo(tmp_path)
    before = splits_of(repo, SplitSettings())
    suite_dir = repo / "targets/db-migrations/cases/routing"
    source = (suite_dir / "routing-backfill.yaml").read_text()
    (suite_dir / "routing-extra.yaml").write_text(
        source.replace('case_id: "routing-backfill"', 'case_id: "routing-extra"')
    )
    suite = suite_dir / "suite.yaml"
    suite.write_text(
        suite.read_text().replace(
            '  - "targets/db-migrations/cases/routing/routing-backfill.yaml"',
            '  - "targets/db-migrations/cases/routing/routing-backfill.yaml"\n'
            '  - "targets/db-migrations/cases/routing/routing-extra.yaml"',
        )
    )
    after = splits_of(repo, SplitSettings())
    assert "routing-extra" in after
    assert {k: after[k] for k in before} == before


def test_the_seed_and_fractions_drive_the_hash_and_an_explicit_split_wins(
    tmp_path: Path,
) -> None:
    repo = copy_demo(tmp_path)
    assert set(splits_of(repo, SplitSettings(val_fraction=0.0)).values()) == {"train"}
    seeds = {tuple(splits_of(repo, SplitSettings(seed=s)).values()) for s in range(5)}
    assert len(seeds) > 1
    case = repo / "targets/db-migrations/cases/routing/routing-backfill.yaml"
    case.write_text(case.read_text() + 'split: "test"\n')
    assert splits_of(repo, SplitSettings(val_fraction=0.0))["routing-backfill"] == "test"


def test_list_split_shows_only_that_split(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = copy_demo(tmp_path)
    (repo / "agentic-eval.yaml").write_text(
        "default_target: db-migrations\nsplits: {seed: 3, val_fraction: 0.5}\n"
    )
    with pytest.raises(SystemExit):
        main(["list", "--repo", str(repo), "--json"])
    every = json.loads(capsys.readouterr().out)["cases"]
    with pytest.raises(SystemExit):
        main(["list", "--repo", str(repo), "--split", "val", "--json"])
    val = json.loads(capsys.readouterr().out)["cases"]
    assert val == [c for c in every if c["split"] == "val"]
    assert 0 < len(val) < len(every)
