"""The `--json` objects of the commands that run agents (the real Codex CLI against the scripted
server, on the demo's behaviours) validate against their schemas (see test_json_outputs.py)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from tests.cli.test_json_outputs import check_output, run_json, schema_of
from tests.conftest import copy_demo
from tests.support import scratch_dir
from tests.triggers.test_trigger_run_agents import FIXTURES, source_workspace

BEHAVIORS = "targets/db-migrations/behaviors/follows-skill"
CASES = ["--case", "routing-add-column", "--case", "workflow-answer-names-file"]

pytestmark = pytest.mark.codex


def test_run_score_gate_and_compare(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = copy_demo(tmp_path)
    runs = tmp_path / "runs"
    with scratch_dir() as scratch:
        common = ["--repo", str(repo), "--behaviors", str(repo / BEHAVIORS), *CASES]
        common += ["--runs-dir", str(runs), "--scratch-root", str(scratch)]
        code, out, err = run_json(["run", *common, "--run-id", "a"], capsys)
        assert code == 0, err
        assert check_output("run", out)["counts"]["pass"] == 2
        code, out, err = run_json(["score", *common, "--run-id", "b"], capsys)
        assert code == 0, err
        line, verdict = out.splitlines()
        assert verdict.startswith("VERDICT: PASS")
        jsonschema.validate(json.loads(line), schema_of("score"))
    code, out, err = run_json(
        ["gate", "--candidate", str(runs / "b"), "--current", str(runs / "a")], capsys
    )
    decision = check_output("gate", out)
    assert code == (1 if decision["action"] == "reject" else 0), err
    code, out, err = run_json(["compare", str(runs / "a"), str(runs / "b")], capsys)
    assert code == 0, err
    check_output("compare", out)


def test_evaluate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = copy_demo(tmp_path)
    with scratch_dir() as scratch:
        argv = ["evaluate", "--repo", str(repo), "--behaviors", str(repo / BEHAVIORS)]
        argv += ["--case", "routing-add-column", "--attempts", "1", "--baseline", "none"]
        argv += ["--runs-dir", str(tmp_path / "runs"), "--scratch-root", str(scratch)]
        code, out, err = run_json(argv, capsys)
    assert code in (0, 1), err
    assert len(check_output("evaluate", out)["variants"]) == 2


def test_selftest(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = copy_demo(tmp_path)
    with scratch_dir() as scratch:
        argv = ["selftest", "--repo", str(repo), "--case", "routing-add-column"]
        argv += ["--runs-dir", str(tmp_path / "runs"), "--scratch-root", str(scratch)]
        code, out, err = run_json(argv, capsys)
    assert code == 0, err
    assert check_output("selftest", out)["ok"]


def test_triggers(capsys: pytest.CaptureFixture[str]) -> None:
    with scratch_dir() as scratch:
        repo = source_workspace(scratch / "source")
        trigger_file = scratch / "triggers.csv"
        trigger_file.write_text(
            "id,should_trigger,prompt\n"
            "add-column,true,Add a nullable avatar_url column to the users table.\n"
            "fill-pdf,false,Fill the name field of intake.pdf with Ada Lovelace.\n"
        )
        argv = ["triggers", "--repo", str(repo), "--attempts", "1", "--triggers", str(trigger_file)]
        argv += ["--behaviors", str(FIXTURES / "behaviors")]
        argv += ["--skill", str(FIXTURES / "descriptions/good.md")]
        argv += ["--runs-dir", str(scratch / "runs"), "--scratch-root", str(scratch / "s")]
        code, out, err = run_json(argv, capsys)
    assert code == 0, err
    assert check_output("triggers", out)["triggers"]["prompts"]


def test_triggers_exit_3_when_an_outage_blocks_a_prompt(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The model answers HTTP 500 to one prompt (an outage, as `run` calls it): the prompt got
    no verdict. `triggers` exited 1 (a suspect or incomplete measure, as if the description had
    been measured); it is the machine's error, exit 3 with `run`'s line."""
    import shutil

    behaviors = tmp_path / "behaviors"
    shutil.copytree(FIXTURES / "behaviors", behaviors)
    (behaviors / "fill-pdf.yaml").write_text(
        json.dumps(
            {
                "name": "fill-pdf",
                "match": {"prompt_contains": "intake.pdf"},
                "steps": [{"http_error": 500}],
            }
        )
    )
    with scratch_dir() as scratch:
        repo = source_workspace(scratch / "source")
        trigger_file = scratch / "triggers.csv"
        trigger_file.write_text(
            "id,should_trigger,prompt\n"
            "add-column,true,Add a nullable avatar_url column to the users table.\n"
            "fill-pdf,false,Fill the name field of intake.pdf with Ada Lovelace.\n"
        )
        argv = ["triggers", "--repo", str(repo), "--attempts", "1", "--triggers", str(trigger_file)]
        argv += ["--behaviors", str(behaviors), "--skill", str(FIXTURES / "descriptions/good.md")]
        argv += ["--runs-dir", str(scratch / "runs"), "--scratch-root", str(scratch / "s")]
        code, out, err = run_json(argv, capsys)
        assert code == 3, err
        assert check_output("triggers", out)["exit_code"] == 3
        from evaluator.cli.main import main

        with pytest.raises(SystemExit) as info:
            main([*argv[:-2], "--scratch-root", str(scratch / "s2")])
        assert info.value.code == 3
        said = capsys.readouterr().out
    assert (
        "exit 3: the agent's model or tooling failed on 1 case, which got no verdict: fill-pdf"
        in said
    )
