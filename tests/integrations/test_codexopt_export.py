"""`export codexopt-tasks` with the real `codexopt==0.2.0`: its rollout evaluation runs our tasks
in its temp copy of the repo and reports our pass rate; its split reproduces ours."""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
from pathlib import Path

import pytest
from codexopt.optimizer import _split_skillopt_evidence
from codexopt.quality import load_rollout_tasks
from codexopt.rollouts import evaluate_skill_rollouts

from evaluator.cli.main import main
from tests.conftest import copy_demo
from tests.leaks import CODEX_KEY, leaks_in, model_server_process, write_leak_behaviour
from tests.support import codex_or_skip

SKILL = Path(".agents/skills/db-migrations/SKILL.md")
READS_SKILL = "agentic-evals/targets/db-migrations/behaviors/reads-skill"


def export(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, cwd: Path, *args: str
) -> tuple[list[dict[str, object]], list[str]]:
    monkeypatch.chdir(cwd)
    with pytest.raises(SystemExit) as info:
        main(["export", "codexopt-tasks", "--out", "tasks.json", *args])
    assert info.value.code == 0
    return json.loads((cwd / "tasks.json").read_text()), capsys.readouterr().out.splitlines()


def test_train_cases_come_first_and_the_ratio_reproduces_our_split(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    copy_demo(tmp_path)
    tasks, out = export(capsys, monkeypatch, tmp_path)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit):
        main(["list", "--json"])
    splits = {c["case_id"]: c["split"] for c in json.loads(capsys.readouterr().out)["cases"]}
    ratio = float(out[-1].removeprefix("skillopt_train_ratio: "))
    loaded = load_rollout_tasks([tmp_path / "tasks.json"])
    held_out = [c for c, s in splits.items() if s == "test"]
    assert len(loaded) == len(tasks) == len(splits) - len(held_out)
    assert all(t["backend"] == "command" and t["codex_prompt"] is None for t in loaded)
    train, val = _split_skillopt_evidence({"rollout_tasks": loaded}, ratio)
    names = lambda ev: [str(t["name"]).split("__")[1] for t in ev["rollout_tasks"]]  # noqa: E731
    assert names(train) == [c for c in names(train) if splits[c] == "train"]
    assert sorted(names(train)) == sorted(c for c, s in splits.items() if s == "train")
    assert sorted(names(val)) == sorted(c for c, s in splits.items() if s == "val")


@pytest.mark.codex
def test_codexopt_rollouts_run_our_score_and_report_our_pass_rate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    codex_or_skip()
    repo_root = tmp_path / "project"
    copy_demo(repo_root)
    program = str(Path(sys.executable).parent / "agentic-eval")
    cases = ["--case", "routing-add-column", "--case", "workflow-keeps-shipped-migrations"]
    export(
        capsys,
        monkeypatch,
        repo_root,
        *cases,
        "--behaviors",
        READS_SKILL,
        "--program",
        program,
        "--timeout",
        "60",
    )
    loaded = load_rollout_tasks([repo_root / "tasks.json"])
    skill = (repo_root / SKILL).read_text()
    rule = "Never edit an existing migration file: migrations that have shipped are\nimmutable."
    good = evaluate_skill_rollouts(repo_root, repo_root / SKILL, skill, loaded)
    assert (good["score"], good["passed"], good["total"]) == (1.0, 2, 2), good
    for task in good["tasks"]:
        *_, summary, verdict = task["stdout_tail"].splitlines()
        assert verdict == "VERDICT: PASS hard=1.000 soft=1.000 cases=1 blocked=0"
        assert json.loads(summary)["verdict"] == "PASS"
    harmful = evaluate_skill_rollouts(repo_root, repo_root / SKILL, skill.replace(rule, ""), loaded)
    assert harmful["score"] == 0.5
    failed = next(t for t in harmful["tasks"] if not t["passed"])
    assert failed["name"] == "workflow__workflow-keeps-shipped-migrations"
    assert failed["returncode"] == 1
    assert failed["stdout_tail"].splitlines()[-1].startswith("VERDICT: FAIL hard=0.000")
    # The source project is untouched: CodexOpt wrote the candidate into its own copy.
    assert (repo_root / SKILL).read_text() == skill


def test_a_threshold_just_above_k_of_n_is_named_when_exported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reference command `--attempts 3 --min-pass-rate 0.67` reads as 2 of 3, but 2 of 3
    is 0.667: every task needed 3 of 3, and nothing said so."""
    copy_demo(tmp_path)
    tasks, _ = export(capsys, monkeypatch, tmp_path, "--attempts", "3", "--min-pass-rate", "0.67")
    assert "--min-pass-rate" in tasks[0]["command"]  # type: ignore[operator]
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit):
        main(
            [
                "export",
                "codexopt-tasks",
                "--out",
                "t.json",
                "--attempts",
                "3",
                "--min-pass-rate",
                "0.67",
            ]
        )
    assert capsys.readouterr().err.splitlines() == [
        "warning: --min-pass-rate 0.67 with --attempts 3 refuses a case that passed 2 of 3"
        " (0.667); to accept it write 0.66"
    ]
    for fine in ("0.66", "1", "0.5"):
        with pytest.raises(SystemExit):
            main(
                [
                    "export",
                    "codexopt-tasks",
                    "--out",
                    "t.json",
                    "--attempts",
                    "3",
                    "--min-pass-rate",
                    fine,
                ]
            )
        assert capsys.readouterr().err == ""


@pytest.mark.codex
def test_tasks_exported_for_a_gateway_reach_it_and_leak_no_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The tasks named no agent, model or endpoint: a CodexOpt user behind a gateway (or on
    Claude Code) had every `score` run Codex on the default endpoint with the inherited
    `OPENAI_API_KEY`. The scripted server stands in for the gateway with a real-looking key; one
    case's agent prints the key every way it can, the other follows the skill; both pass. CodexOpt's rollout
    result (what its `optimize.json` keeps) and the project hold no trace of the key."""
    codex_or_skip()
    for name in ("OPENAI_API_KEY", "CODEX_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GATEWAY_KEY", CODEX_KEY)
    repo_root = tmp_path / "project"
    copy_demo(repo_root)
    behaviors = tmp_path / "gateway"
    write_leak_behaviour(behaviors)
    follows = repo_root / "agentic-evals/targets/db-migrations/behaviors/follows-skill"
    shutil.copy(follows / "routing-rename-table.yaml", behaviors)
    program = str(Path(sys.executable).parent / "agentic-eval")
    log = tmp_path / "server.jsonl"
    with model_server_process(behaviors, log) as base_url:
        tasks, _ = export(
            capsys,
            monkeypatch,
            repo_root,
            *("--case", "routing-add-column", "--case", "routing-rename-table"),
            *("--model", "mock-model", "--base-url", base_url, "--api-key-env", "GATEWAY_KEY"),
            *("--program", program, "--timeout", "120"),
        )
        loaded = load_rollout_tasks([repo_root / "tasks.json"])
        skill = (repo_root / SKILL).read_text()
        result = evaluate_skill_rollouts(repo_root, repo_root / SKILL, skill, loaded)
    # Both agents read the reference their case routes to (the leaking one last): our verdicts.
    assert (result["score"], result["passed"], result["total"]) == (1.0, 2, 2), result
    for task in result["tasks"]:
        assert task["stdout_tail"].splitlines()[-1].startswith("VERDICT: PASS hard=1.000"), task
    fingerprint = "sha256:" + hashlib.sha256(CODEX_KEY.encode()).hexdigest()[:12]
    requests = [json.loads(line) for line in log.read_text().splitlines()]
    assert requests and all(r["credential"] == fingerprint for r in requests), requests
    outputs = {"rollout": json.dumps(result), "tasks": json.dumps(tasks)}
    assert leaks_in({"key": CODEX_KEY}, (repo_root,), outputs) == []
