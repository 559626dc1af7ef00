"""`agentic-eval score` end to end: real Codex against scripted behaviours, VERDICT line and exit."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from evaluator.cli.main import main
from tests.conftest import ROOT
from tests.support import codex_or_skip, scratch_dir

pytestmark = pytest.mark.codex
FOLLOWS = ROOT / "agentic-evals/targets/db-migrations/behaviors/follows-skill"
SKILL = ROOT / ".agents/skills/db-migrations/SKILL.md"


@pytest.fixture(autouse=True)
def _codex() -> None:
    codex_or_skip()


def behaviors(directory: Path, *specs: dict[str, Any]) -> Path:
    directory.mkdir(parents=True)
    for spec in specs:
        name = spec["name"].replace("/", "-")
        (directory / f"{name}.yaml").write_text(yaml.safe_dump(spec))
    return directory


def score(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    *args: str,
) -> tuple[int, list[str]]:
    with scratch_dir() as scratch, pytest.raises(SystemExit) as info:
        main(
            [
                "score",
                "--repo",
                str(ROOT / "agentic-evals"),
                "--runs-dir",
                str(tmp_path / "runs"),
                "--scratch-root",
                str(scratch),
                *args,
            ]
        )
    return int(info.value.code or 0), capsys.readouterr().out.splitlines()


def test_pass_prints_the_score_and_exits_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = score(
        tmp_path,
        capsys,
        "--behaviors",
        str(FOLLOWS),
        "--case",
        "routing-add-column",
        "--case",
        "routing-backfill",
        "--json",
    )
    assert code == 0
    assert out[-1] == "VERDICT: PASS hard=1.000 soft=1.000 cases=2 blocked=0"
    summary = json.loads(out[-2])
    assert summary["coverage"] == 1.0 and summary["passed"] == 2
    assert Path(summary["run_dir"], "report.md").is_file()


def test_fail_below_min_pass_rate_exits_1_and_the_threshold_decides(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    wrong_route = {
        "name": "wrong-route",
        "match": {"prompt_contains": "default currency per account"},
        "steps": [
            {"cmd": "cat .agents/skills/db-migrations/references/rename-table.md"},
            {"final": "done"},
        ],
    }
    directory = behaviors(tmp_path / "b", wrong_route, *_follow("routing-backfill"))
    args = ["--behaviors", str(directory), "--case", "routing-add-column"]
    code, out = score(tmp_path, capsys, *args, "--case", "routing-backfill", "--run-id", "a")
    assert code == 1
    assert out[-1] == "VERDICT: FAIL hard=0.500 soft=0.500 cases=2 blocked=0"
    code, out = score(
        tmp_path,
        capsys,
        *args,
        "--case",
        "routing-backfill",
        "--run-id",
        "b",
        "--min-pass-rate",
        "0.5",
    )
    assert code == 0 and out[-1].startswith("VERDICT: PASS hard=0.500")


def test_all_blocked_by_the_eval_is_an_error_not_a_score(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("DATABASE_URL", raising=False)  # the case's setup cannot be reproduced
    code, out = score(
        tmp_path, capsys, "--behaviors", str(FOLLOWS), "--case", "bootstrap-needs-database-url"
    )
    assert code == 3
    assert out[-1] == "VERDICT: ERROR no-verdict cases=1 blocked=1"
    assert any("environment 1" in line for line in out)


def test_an_agent_outage_is_an_error_never_a_zero(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outage = {
        "name": "outage",
        "match": {"prompt_contains": "default currency per account"},
        "steps": [{"http_error": 500}],
    }
    directory = behaviors(tmp_path / "b", outage, *_follow("routing-backfill"))
    code, out = score(
        tmp_path,
        capsys,
        "--behaviors",
        str(directory),
        "--case",
        "routing-add-column",
        "--case",
        "routing-backfill",
    )
    assert code == 3
    assert out[-1] == "VERDICT: ERROR agent-outage=1 cases=2 blocked=1"


def test_a_timeout_counts_as_not_passed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Excluded, it would leave no verdict (ERROR); counted against the skill, it is a FAIL.
    slow = {
        "name": "slow",
        "match": {"prompt_contains": "default currency per account"},
        "steps": [{"cmd": "true", "delay_s": 60}, {"final": "late"}],
    }
    directory = behaviors(tmp_path / "b", slow)
    code, out = score(
        tmp_path,
        capsys,
        "--behaviors",
        str(directory),
        "--case",
        "routing-add-column",
        "--timeout",
        "3",
    )
    assert code == 1
    assert out[-1] == "VERDICT: FAIL hard=0.000 soft=0.000 cases=1 blocked=1"
    assert any("timeout 1, counted as not passed" in line for line in out)


def test_the_candidate_skill_reaches_every_workspace_and_never_the_source(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = SKILL.read_bytes()
    candidate = tmp_path / "candidate.md"
    text = "# candidate\r\n<!-- SLOW_UPDATE_START -->\nkeep  me\n<!-- SLOW_UPDATE_END -->\n"
    candidate.write_bytes(text.encode())
    code, out = score(
        tmp_path,
        capsys,
        "--behaviors",
        str(FOLLOWS),
        "--case",
        "routing-add-column",
        "--skill",
        str(candidate),
        "--run-id",
        "cand",
        "--json",
    )
    assert code == 0, out
    assert SKILL.read_bytes() == before
    run_dir = tmp_path / "runs/cand"
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert (run_dir / manifest["candidate_skill"]).read_bytes() == text.encode()
    session = (run_dir / "case-artifacts/routing-add-column/accepted-session.jsonl").read_text()
    assert "keep  me" in session  # the agent's `cat SKILL.md` printed the candidate


def test_split_selects_only_that_split(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = score(
        tmp_path,
        capsys,
        "--behaviors",
        str(FOLLOWS),
        "--suite",
        "routing",
        "--split",
        "train",
        "--json",
    )
    summary = json.loads(out[-2])
    assert [c["case_id"] for c in summary["per_case"]] == ["routing-rename-table"]
    assert code == 0


def _follow(case_id: str) -> list[dict[str, Any]]:
    return [yaml.safe_load((FOLLOWS / f"{case_id}.yaml").read_text())]


def test_bad_input_still_ends_with_a_verdict_line_and_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = score(tmp_path, capsys, "--behaviors", str(FOLLOWS), "--case", "no-such-case")
    assert code == 2
    assert out[-1].startswith("VERDICT: ERROR input-error: ")
    assert "unknown case id(s): no-such-case" in out[-1]


def test_soft_is_the_mean_over_the_k_tries_as_hard_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The seeded flaky behaviour passes tries 1 and 3 of 3 (every entry) and fails try 2
    (every entry). `soft` was the share of one try's entries (the case's listed entries are the
    first failing try's): 0.000 beside hard 0.667, so SkillOpt's `mixed` gate (its
    soft_gate config) read 0.333 for a case that passed two tries in three."""
    flaky = ROOT / "agentic-evals/targets/db-migrations/behaviors/flaky"
    common = ("--behaviors", str(flaky), "--case", "routing-add-column", "--attempts", "3")
    code, out = score(tmp_path, capsys, *common, "--metric", "mixed", "--min-pass-rate", "0.6")
    assert out[-1].startswith("VERDICT: PASS hard=0.667 soft=0.667 mixed=0.667"), out[-3:]
    assert code == 0
    # The gate reads the same figures back from the run directory.
    (run,) = (tmp_path / "runs").glob("*/manifest.json")
    with pytest.raises(SystemExit):
        main(["gate", "--candidate", str(run.parent), "--metric", "soft", "--json"])
    gated = json.loads(capsys.readouterr().out)
    assert gated["candidate_score"] == pytest.approx(2 / 3)
