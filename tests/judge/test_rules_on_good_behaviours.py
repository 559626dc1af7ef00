"""Rules never fail a good behaviour: the demo cases with their structured `checks:` taken away,
so each entry is decided from its prose alone, judged with `--judge rules` on real Codex runs of
the behaviours that follow the skill."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import ROOT, copy_demo
from tests.support import codex_or_skip, scratch_dir

pytestmark = [pytest.mark.codex, pytest.mark.slow]


def _prose_only(repo: Path) -> None:
    for path in (repo / "targets/db-migrations/cases").rglob("*.yaml"):
        data = yaml.safe_load(path.read_text())
        if not isinstance(data, dict) or "assert" not in data:
            continue
        for polarity in ("required", "forbidden"):
            for entry in data["assert"].get(polarity) or []:
                entry.pop("checks", None)
        data.pop("golden", None)
        path.write_text(yaml.safe_dump(data, allow_unicode=True))


def _run(repo: Path, runs: Path, behaviors: str, run_id: str, *cases: str) -> list[dict[str, Any]]:
    options = {
        "--repo": repo,
        "--behaviors": repo / "targets/db-migrations/behaviors" / behaviors,
        "--judge": "rules",
        "--run-id": run_id,
        "--runs-dir": runs,
    }
    with scratch_dir() as scratch:
        done = subprocess.run(
            [sys.executable, "-m", "evaluator", "run", "--scratch-root", str(scratch)]
            + [str(word) for pair in options.items() for word in pair]
            + [word for case in cases for word in ("--case", case)],
            capture_output=True,
            text=True,
            timeout=1200,
            check=False,
            env=dict(os.environ),
            cwd=ROOT,
        )
    # 3: a case the broken behaviours do not script is the scripted model's error, an outage of
    # the agent's model (`run` exits 3 on any outage), and that case is left out below.
    assert done.returncode in (0, 1, 3), done.stderr
    return [
        json.loads(path.read_text())
        for path in sorted((runs / run_id / "case-results").glob("*.json"))
    ]


def _by_rules(results: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    return [
        (r["case_id"], a["entry_id"], a["status"])
        for r in results
        for a in r["assertions"]
        if a["decided_by"] == "rules"
    ]


def test_rules_pass_the_behaviours_that_follow_the_skill_and_catch_broken_ones(
    tmp_path: Path,
) -> None:
    codex_or_skip()
    repo = copy_demo(tmp_path)
    _prose_only(repo)
    good = _run(repo, tmp_path / "runs", "follows-skill", "good")
    assert [r["case_id"] for r in good if r["status"] == "fail"] == []
    decided = _by_rules(good)
    assert len(decided) >= 5  # not vacuous: rules decide entries of most cases
    assert all(status == "pass" for _, _, status in decided), decided
    # The same rules on behaviours that break the skill: what they decide, they fail.
    cases = sorted({case for case, _, _ in decided})
    broken = _run(repo, tmp_path / "runs", "broken", "broken", *cases)
    passed = [r["case_id"] for r in broken if r["status"] == "pass"]
    # That case's prose asks only that the script was invoked: the broken behaviour's failing
    # script does satisfy it (the structured check the case also has asks for exit code 0).
    assert passed == ["workflow-script-must-succeed"]
    assert any(status == "fail" for _, _, status in _by_rules(broken))
