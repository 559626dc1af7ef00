"""The gate story end to end with the real Codex CLI: scripted agents that follow what they read
in SKILL.md, so a helpful skill edit is accepted and a harmful one rejected."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluator.cli.main import main
from tests.conftest import ROOT
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
