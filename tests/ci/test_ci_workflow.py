"""docs/ci.md's GitHub Actions workflow, run locally: its own `run:` scripts, in its order, with
the demo's good behaviours as the main branch's run and the broken ones as the pull request's.
Also the K = 5 story: a seeded flaky behaviour against a 5/5 run is `flaky`, not a regression."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from junitparser import Failure as JUnitFailure
from junitparser import JUnitXml, Properties, Skipped, TestCase

from evaluator.cli.main import run_cli
from tests.conftest import ROOT, copy_demo
from tests.support import codex_or_skip, scratch_dir

pytestmark = pytest.mark.codex
BEHAVIORS = ROOT / "agentic-evals/targets/db-migrations/behaviors"
CASES = ("routing-add-column", "routing-rename-table", "workflow-keeps-shipped-migrations")
ANSI = re.compile(r"\x1b\[")


def workflow_steps() -> dict[str, dict[str, Any]]:
    text = (ROOT / "docs/ci.md").read_text()
    block = text.split("```yaml\n", 1)[1].split("```", 1)[0]
    workflow = yaml.safe_load(block)
    steps = workflow["jobs"]["evaluate"]["steps"]
    return {step["id"]: step for step in steps if "id" in step}


@dataclass
class StepRun:
    code: int
    output: str
    outputs: dict[str, str]


@dataclass
class Workspace:
    root: Path
    env: dict[str, str]
    summary: Path

    def step(self, step_id: str, **env: str) -> StepRun:
        """Runs one step's script as GitHub does (`bash -eo pipefail`), here in `root`."""
        script = workflow_steps()[step_id]["run"]
        outputs = self.root / f"output-{step_id}.txt"
        outputs.write_text("")
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
            cwd=self.root,
            env={**self.env, "GITHUB_OUTPUT": str(outputs), **env},
            capture_output=True,
            text=True,
            timeout=240,
        )
        pairs = [line.split("=", 1) for line in outputs.read_text().splitlines() if "=" in line]
        return StepRun(done.returncode, done.stdout + done.stderr, dict(pairs))


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    codex_or_skip()
    root = tmp_path_factory.mktemp("skill-repo")
    copy_demo(root)
    (root / ".venv").symlink_to(ROOT / ".venv")
    summary = root / "step-summary.md"
    env = {
        "PATH": os.environ["PATH"],
        "HOME": os.environ.get("HOME", str(root)),
        "GITHUB_STEP_SUMMARY": str(summary),
        "GITHUB_SERVER_URL": "https://github.example",
        "GITHUB_REPOSITORY": "team/skills",
        "GITHUB_RUN_ID": "42",
    }
    with scratch_dir() as scratch:
        env["SCRATCH"] = str(scratch)
        yield Workspace(root, env, summary)


def eval_args(behaviors: str, scratch: str, *extra: str) -> str:
    cases = " ".join(f"--case {c}" for c in CASES)
    return (
        f"--behaviors {BEHAVIORS / behaviors} {cases} --workers 2 --scratch-root {scratch} "
        + " ".join(extra)
    )


@pytest.fixture(scope="module")
def pipeline(workspace: Workspace) -> dict[str, StepRun]:
    """main's run, its artifact downloaded as runs/base, the pull request's run, the compare."""
    scratch = workspace.env["SCRATCH"]
    main = workspace.step(
        "evaluate", RUN_ID="main-1", EVAL_ARGS=eval_args("follows-skill", scratch)
    )
    # upload-artifact + gh run download: the run directory's files land in runs/base.
    shutil.copytree(workspace.root / "runs/main-1", workspace.root / "runs/base")
    pr = workspace.step("evaluate", RUN_ID="pr7-1", EVAL_ARGS=eval_args("broken", scratch))
    compare = workspace.step("compare", RUN_ID="pr7-1", BASE_DIR="runs/base")
    return {"main": main, "pr": pr, "compare": compare}


def test_the_workflow_scripts_fail_the_pull_request_on_its_regressions(
    workspace: Workspace, pipeline: dict[str, StepRun]
) -> None:
    assert pipeline["main"].code == 0 and pipeline["main"].outputs == {"run-exit": "0"}
    # The broken run fails cases (run exits 1), which alone does not fail the job...
    assert pipeline["pr"].code == 0 and pipeline["pr"].outputs == {"run-exit": "1"}
    # ...the comparison with main does.
    assert pipeline["compare"].code == 1, pipeline["compare"].output
    assert pipeline["compare"].output.splitlines()[-1] == (
        "COMPARE: 3 regression(s): " + ", ".join(CASES)
    )
    comparison = json.loads((workspace.root / "runs/pr7-1/comparison.json").read_text())
    assert comparison["regressions"] == list(CASES)
    assert (workspace.root / "runs/pr7-1/comparison.md").is_file()
    for step in pipeline.values():
        assert not ANSI.search(step.output), "plain output off a terminal"


def _cases(path: Path) -> dict[str, TestCase]:
    xml = JUnitXml.fromfile(str(path))
    return {case.name: case for suite in xml for case in suite}


def _properties(case: TestCase) -> dict[str, str]:
    found = case.child(Properties)
    return {p.name: p.value for p in found} if found is not None else {}


def test_junit_files_parse_and_name_the_failing_assertions(
    workspace: Workspace, pipeline: dict[str, StepRun]
) -> None:
    good = _cases(workspace.root / "reports/main-1.xml")
    assert set(good) == set(CASES) and all(c.is_passed for c in good.values())
    assert {c.classname for c in good.values()} == {
        "db-migrations.routing",
        "db-migrations.workflow",
    }
    assert _properties(good["routing-rename-table"])["attempts"] == "1"
    broken = _cases(workspace.root / "reports/pr7-1.xml")
    (failure,) = broken["routing-rename-table"].result
    assert isinstance(failure, JUnitFailure)
    assert failure.message == (
        "required[0] failed: The rename reference was consulted. [no evidence: no read of"
        " .agents/skills/db-migrations/references/rename-table.md was observed]"
    )
    assert (
        "forbidden[0] observed: The add-column reference was consulted. [evidence:"
        " case-artifacts/routing-rename-table/accepted-session.json#msg-"
    ) in (failure.text or "")
    (skipped,) = broken["routing-add-column"].result  # the agent read outside: blocked
    assert isinstance(skipped, Skipped)
    assert skipped.message.startswith(
        "blocked: insufficient-evidence: attempt 02 invalid: isolation"
    )
    compared = _cases(workspace.root / "reports/compare.xml")
    (regression,) = compared["workflow-keeps-shipped-migrations"].result
    assert isinstance(regression, JUnitFailure)
    assert regression.message.startswith("regression: `required[0]` (required) pass → fail")
    assert "evidence: case-artifacts/workflow-keeps-shipped-migrations/" in regression.message
    assert _properties(compared["routing-add-column"])["classification"] == "regression"


def test_the_step_summary_puts_regressions_first_and_links_the_run(
    workspace: Workspace, pipeline: dict[str, StepRun]
) -> None:
    summary = workspace.summary.read_text()
    sections = summary.split("\n## ")
    assert [s.splitlines()[0].lstrip("# ") for s in sections] == [
        "agentic-eval run: `main-1`",
        "agentic-eval run: `pr7-1`",
        "agentic-eval compare: `main-1` → `pr7-1`",  # run ids, from the manifests
    ]
    assert "**3 of 3 judged cases passed (hard 100%" in sections[0]
    run_pr, compare = sections[1], sections[2]
    assert run_pr.index("| routing-rename-table | fail |") < run_pr.index(
        "| routing-add-column | blocked |"
    )
    assert "**3 regression(s): " in compare and "pass rate 100% → 0%" in compare
    assert "https://github.example/team/skills/actions/runs/42" in compare
    assert "- run dir: `runs/pr7-1`" in run_pr


def test_k5_flaky_behaviour_is_flaky_not_a_regression(
    workspace: Workspace, capsys: pytest.CaptureFixture[str]
) -> None:
    scratch = workspace.env["SCRATCH"]
    common = [
        "--repo",
        str(workspace.root / "agentic-evals"),
        "--case",
        "routing-add-column",
        "--attempts",
        "5",
        "--workers",
        "2",
        "--scratch-root",
        scratch,
        "--runs-dir",
        str(workspace.root / "runs"),
    ]
    good = run_cli(
        ["run", *common, "--behaviors", str(BEHAVIORS / "follows-skill"), "--run-id", "good5"]
    )
    junit = workspace.root / "reports/flaky5.xml"
    flaky = run_cli(
        [
            "score",
            *common,
            "--behaviors",
            str(BEHAVIORS / "flaky"),
            "--run-id",
            "flaky5",
            "--junit",
            str(junit),
            "--min-pass-rate",
            "0.5",
        ]
    )
    assert (good, flaky) == (0, 0)
    capsys.readouterr()
    code = run_cli(
        [
            "compare",
            str(workspace.root / "runs/good5"),
            str(workspace.root / "runs/flaky5"),
            "--json",
        ]
    )
    comparison = json.loads(capsys.readouterr().out)
    assert code == 0
    (case,) = comparison["cases"]
    assert case["classification"] == "flaky"
    assert (case["candidate"]["passed"], case["candidate"]["counted"]) == (3, 5)
    assert case["p_drop"] == pytest.approx(0.1031183, abs=1e-6)  # Boschloo, 5/5 -> 3/5
    assert [f["entry_id"] for f in case["assertion_flips"]] == ["required[0]", "forbidden[0]"]
    (scored,) = _cases(junit).values()
    expected = {"attempts": "5", "passed": "3", "failed": "2", "flaky": "true"}
    assert expected.items() <= _properties(scored).items()
    (failure,) = scored.result
    assert isinstance(failure, JUnitFailure)
    # A stricter reading: 5/5 -> 3/5 is not significant at any usual alpha, 0.3 makes it one.
    assert (
        run_cli(
            [
                "compare",
                str(workspace.root / "runs/good5"),
                str(workspace.root / "runs/flaky5"),
                "--alpha",
                "0.3",
            ]
        )
        == 1
    )


def test_a_pull_request_run_whose_agent_failed_fails_the_job(
    workspace: Workspace, tmp_path: Path
) -> None:
    """The agent's model failed on one case (here: the scripted model has no behaviour for it,
    so Codex reports the model's error): that case was never evaluated. `run` exited 1 for it,
    which the Evaluate step lets through to `compare`; compare saw no verdict on that side
    (`environment-divergence`), no regression, and the job passed with an unevaluated case."""
    outage = tmp_path / "no-behaviour-for-one-case"
    shutil.copytree(BEHAVIORS / "follows-skill", outage)
    (outage / "workflow-keeps-shipped-migrations.yaml").unlink()
    scratch = workspace.env["SCRATCH"]
    pr = workspace.step("evaluate", RUN_ID="pr8-1", EVAL_ARGS=eval_args(str(outage), scratch))
    assert pr.outputs == {"run-exit": "3"}, pr.output
    assert pr.code != 0, "the Evaluate step fails the job"
    assert "the agent's model or tooling failed on 1 case" in pr.output
    assert "workflow-keeps-shipped-migrations" in pr.output


def _all_steps() -> list[dict[str, Any]]:
    text = (ROOT / "docs/ci.md").read_text()
    block = text.split("```yaml\n", 1)[1].split("```", 1)[0]
    steps: list[dict[str, Any]] = yaml.safe_load(block)["jobs"]["evaluate"]["steps"]
    return steps


def test_the_run_history_is_carried_from_main_run_to_main_run(
    workspace: Workspace,
    pipeline: dict[str, StepRun],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Each job starts with an empty `runs/`: without carrying `history.db` over, the history a
    CI job recorded held its own run alone and was thrown away with the runner."""
    steps = _all_steps()
    ids = [step.get("id") for step in steps]
    assert ids.index("restore-history") < ids.index("evaluate") < ids.index("history")
    (upload,) = [s for s in steps if s.get("with", {}).get("path") == "runs/history.db"]
    assert upload["if"] == "always() && github.event_name == 'push'"
    assert upload["with"]["name"] == "${{ env.HISTORY }}"
    # The next main job: the restore step put the last main job's history.db in runs/ (gh run
    # download of the artifact above, done here by hand), then the job evaluates.
    nxt = Workspace(tmp_path / "next-job", dict(workspace.env), tmp_path / "next-summary.md")
    copy_demo(nxt.root)
    (nxt.root / ".venv").symlink_to(ROOT / ".venv")
    nxt.env["GITHUB_STEP_SUMMARY"] = str(nxt.summary)
    (nxt.root / "runs").mkdir()
    shutil.copy(workspace.root / "runs/history.db", nxt.root / "runs/history.db")
    scratch = workspace.env["SCRATCH"]
    main2 = nxt.step("evaluate", RUN_ID="main-2", EVAL_ARGS=eval_args("follows-skill", scratch))
    assert main2.outputs == {"run-exit": "0"}, main2.output
    shown = nxt.step("history")
    assert shown.code == 0, shown.output
    summary = nxt.summary.read_text()
    assert "## Run history (main's runs, then this one)" in summary
    for case in CASES:
        assert any(line.startswith(case) for line in summary.splitlines()), summary
    capsys.readouterr()
    assert run_cli(["history", "--runs-dir", str(nxt.root / "runs"), "--json"]) == 0
    trends = json.loads(capsys.readouterr().out)
    for case in CASES:
        # one skill, one set-up: main-1's result (the restored history) and main-2's, one trend
        (trend,) = [
            t
            for t in trends
            if t["case_id"] == case and t["behaviors_dir"].endswith("follows-skill")
        ]
        runs = [point["run_id"] for point in trend["trend"]]
        assert runs[0] == "main-1" and runs[-1] == "main-2", runs
