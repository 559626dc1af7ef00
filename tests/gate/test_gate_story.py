"""The gate story end to end with the real Codex CLI: scripted agents that follow what they read
in SKILL.md, so a helpful skill edit is accepted and a harmful one rejected."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluator.cli.main import main
from tests.conftest import ROOT, copy_demo
from tests.support import codex_or_skip, scratch_dir

pytestmark = pytest.mark.codex
READS_SKILL = ROOT / "agentic-evals/targets/db-migrations/behaviors/reads-skill"
SKILL = ROOT / ".agents/skills/db-migrations/SKILL.md"
CASES = ["--case", "routing-add-column", "--case", "workflow-keeps-shipped-migrations"]


@pytest.fixture(autouse=True)
def _codex() -> None:
    codex_or_skip()


def variants(tmp_path: Path) -> dict[str, Path]:
    """`broken` lacks the routing row for new columns; `harmful` drops the immutability rule."""
    text = SKILL.read_text()
    row = next(line for line in text.splitlines(True) if "references/add-column.md" in line)
    rule = "Never edit an existing migration file: migrations that have shipped are\nimmutable."
    assert rule in text
    files = {"broken": text.replace(row, ""), "harmful": text.replace(rule, "")}
    for name, content in files.items():
        (tmp_path / f"{name}.md").write_text(content)
    return {name: tmp_path / f"{name}.md" for name in files}


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str]]:
    with pytest.raises(SystemExit) as info:
        main(list(args))
    return int(info.value.code or 0), capsys.readouterr().out.splitlines()


def test_a_helpful_edit_is_accepted_and_a_harmful_one_rejected(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    skills = variants(tmp_path)
    runs = tmp_path / "runs"
    with scratch_dir() as scratch:
        common = ["--behaviors", str(READS_SKILL), *CASES, "--runs-dir", str(runs)]
        common += ["--scratch-root", str(scratch)]
        code, out = cli(
            capsys, "score", *common, "--run-id", "broken", "--skill", str(skills["broken"])
        )
        assert (code, out[-1]) == (1, "VERDICT: FAIL hard=0.500 soft=0.500 cases=2 blocked=0")
        code, out = cli(capsys, "score", *common, "--run-id", "fixed")
        assert (code, out[-1]) == (0, "VERDICT: PASS hard=1.000 soft=1.000 cases=2 blocked=0")
        code, out = cli(
            capsys, "score", *common, "--run-id", "harmful", "--skill", str(skills["harmful"])
        )
        assert (code, out[-1]) == (1, "VERDICT: FAIL hard=0.500 soft=0.500 cases=2 blocked=0")

    code, out = cli(
        capsys,
        "gate",
        "--candidate",
        str(runs / "fixed"),
        "--current",
        str(runs / "broken"),
        "--json",
    )
    assert code == 0 and json.loads("\n".join(out))["action"] == "accept_new_best"
    code, out = cli(
        capsys,
        "gate",
        "--candidate",
        str(runs / "harmful"),
        "--current",
        str(runs / "fixed"),
        "--best",
        str(runs / "fixed"),
        "--no-regression",
        "--json",
    )
    decision = json.loads("\n".join(out))
    assert code == 1 and decision["action"] == "reject"
    assert decision["regressions"] == [
        {"case_id": "workflow-keeps-shipped-migrations", "current": "pass", "candidate": "fail"}
    ]
    # The harmful agent really did append to the shipped migration: the evidence says so.
    result = json.loads(
        (runs / "harmful/case-results/workflow-keeps-shipped-migrations.json").read_text()
    )
    forbidden = next(a for a in result["assertions"] if a["polarity"] == "forbidden")
    assert forbidden["status"] == "fail"


def test_a_run_holding_held_out_test_cases_is_not_gated(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A case of the `test` split is what the optimised skill is judged on at the end; `score`
    without `--split` scores it too, and `gate` used to select skills on it. The manifest now
    records each case's split and `gate` refuses such a run (exit 2), naming the cases."""
    repo = copy_demo(tmp_path / "user")
    case_file = repo / "targets/db-migrations/cases/routing/routing-rename-table.yaml"
    case_file.write_text(case_file.read_text() + "split: test\n")
    runs = tmp_path / "runs"
    with scratch_dir() as scratch:
        common = ["--repo", str(repo), "--behaviors", str(READS_SKILL), "--runs-dir", str(runs)]
        common += ["--scratch-root", str(scratch), "--case", "workflow-keeps-shipped-migrations"]
        code, _ = cli(capsys, "score", *common, "--case", "routing-rename-table", "--run-id", "all")
        assert code == 0
        manifest = json.loads((runs / "all/manifest.json").read_text())
        assert manifest["case_splits"] == {
            "workflow-keeps-shipped-migrations": "train",
            "routing-rename-table": "test",
        }
        code, out = cli(capsys, "gate", "--candidate", str(runs / "all"), "--json")
        assert code == 2, out
        (error,) = json.loads("\n".join(out))["errors"]
        assert error["field"] == "case_splits"
        assert "held-out test split: routing-rename-table" in error["message"]
        # the same skill scored on its train case only is gated
        code, _ = cli(capsys, "score", *common, "--split", "train", "--run-id", "train")
        assert code == 0
        code, out = cli(capsys, "gate", "--candidate", str(runs / "train"))
        assert code == 0 and out[-1].startswith("GATE: accept_new_best metric=hard candidate=1")
