"""The pieces of `agentic-eval triggers` that need no agent CLI: the report section, the run's
metrics from each attempt's trigger.json, the trigger-f1 metric, stopping an agent at its
decision (the process seam and each adapter's session watch), and bad input."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from evaluator.adapters import adapter_names, get_adapter
from evaluator.agents.process import run_process
from evaluator.artifacts.attribution import CaseScore, RunScore
from evaluator.artifacts.models import AttemptRecord
from evaluator.artifacts.rundir import RunDir, write_json
from evaluator.artifacts.trigger_report import render_trigger_section, trigger_fixes
from evaluator.evidence.triggers import SkillSource
from evaluator.gate.metrics.base import MetricContext, MetricUnavailable
from evaluator.gate.metrics.registry import get_metric
from evaluator.gate.score import decide
from evaluator.pipeline.triggers import TRIGGER_FILE, metrics_json, observed_outcomes
from evaluator.triggers.metrics import trigger_metrics
from tests.conftest import ROOT, copy_demo

RECORDED = Path(__file__).parents[1] / "fixtures" / "recorded"
SKILL_PATH = ".agents/skills/db-migrations/SKILL.md"
SKILLS = [SkillSource("db-migrations", SKILL_PATH, (ROOT / SKILL_PATH).read_text())]


def _observation(prompt: str, expect: bool, fired: list[str], **extra: Any) -> dict[str, Any]:
    return {
        "prompt_id": prompt,
        "expect_trigger": expect,
        "skill": "db-migrations",
        "registry": {"skills": [], "reported": None, "problems": []},
        "fired": "db-migrations" in fired,
        "triggers": [
            {"skill": s, "call": 1, "first": True, "record": "msg-2", "ref": "x#msg-2"}
            for s in fired
        ],
        "tool_calls": len(fired),
        "timed_out": False,
        "invalid": None,
        **extra,
    }


def _attempt(run_dir: RunDir, case: str, number: int, seen: dict[str, Any], **record: Any) -> None:
    directory = run_dir.attempt_artifacts(case, number)
    directory.mkdir(parents=True)
    fields: dict[str, Any] = {
        "attempt": number,
        "workspace_root": "",
        "valid": True,
        "status": "pass",
        "artifacts_dir": str(directory.relative_to(run_dir.path)),
        **record,
    }
    write_json(directory / "attempt.json", AttemptRecord(**fields).model_dump(mode="json"))
    write_json(directory / TRIGGER_FILE, seen)


def test_the_run_counts_the_final_attempt_of_each_try_from_its_trigger_json(
    tmp_path: Path,
) -> None:
    run_dir = RunDir(tmp_path / "run")
    _attempt(run_dir, "add-column", 1, _observation("add-column", True, ["db-migrations"]))
    # An invalid attempt and its rerun: only the rerun counts.
    _attempt(
        run_dir,
        "add-column",
        2,
        _observation("add-column", True, [], invalid="unclean skill registry: x"),
        valid=False,
        status="blocked",
    )
    _attempt(
        run_dir, "add-column", 3, _observation("add-column", True, ["db-migrations"]), retry_of=2
    )
    _attempt(run_dir, "fill-pdf", 1, _observation("fill-pdf", False, ["db-migrations"]))
    _attempt(run_dir, "fill-pdf", 2, _observation("fill-pdf", False, ["pdf-forms"]))
    # An interrupted attempt is listed, never counted.
    _attempt(
        run_dir,
        "fill-pdf",
        3,
        _observation("fill-pdf", False, ["db-migrations"]),
        interrupted=True,
    )
    # Blocked before its agent ran (no trigger.json): counted as invalid, with its reason.
    directory = run_dir.attempt_artifacts("haiku", 1)
    directory.mkdir(parents=True)
    blocked = AttemptRecord(
        attempt=1,
        workspace_root="",
        valid=True,
        status="blocked",
        reason="the evaluator could not run this attempt: OSError: x",
        artifacts_dir="x",
    )
    write_json(directory / "attempt.json", blocked.model_dump(mode="json"))
    (haiku,) = observed_outcomes(run_dir, {"haiku": False}, "db-migrations")
    assert haiku.invalid == blocked.reason
    outcomes = observed_outcomes(run_dir, {"add-column": True, "fill-pdf": False}, "db-migrations")
    assert [(o.prompt, o.fired, o.others) for o in outcomes] == [
        ("add-column", True, ()),
        ("add-column", True, ()),
        ("fill-pdf", True, ()),
        ("fill-pdf", False, ("pdf-forms",)),
    ]
    texts = {"add-column": "Add a column", "fill-pdf": "Fill | the form"}
    data = metrics_json(trigger_metrics(outcomes, skill="db-migrations"), texts)
    prompts = {p["id"]: p for p in data["prompts"]}
    # 1 of 2 is no majority: fill-pdf does not fire, so it does not misfire over prompts...
    assert prompts["fill-pdf"]["triggered"] is False and prompts["fill-pdf"]["misfires"] is False
    assert data["over_prompts"]["counts"] == {"tp": 1, "fp": 0, "fn": 0, "tn": 1}
    # ...but over attempts the stray firing counts.
    assert data["over_attempts"]["counts"] == {"tp": 2, "fp": 1, "fn": 0, "tn": 1}
    assert data["over_attempts"]["precision"] == pytest.approx(2 / 3)


def _data(**overrides: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "skill": "db-migrations",
        "attempts": 3,
        "trigger_only": True,
        "distractors": ["pdf-forms", "csv-report"],
        "over_prompts": {
            "counts": {"tp": 2, "fp": 1, "fn": 0, "tn": 2},
            "precision": 2 / 3,
            "recall": 1.0,
            "f1": 0.8,
            "intervals": {"precision": [0.33, 1.0], "recall": [1.0, 1.0], "f1": [0.5, 1.0]},
        },
        "over_attempts": {
            "counts": {"tp": 6, "fp": 2, "fn": 0, "tn": 7},
            "precision": 0.75,
            "recall": 1.0,
            "f1": 0.857,
            "intervals": {"precision": [0.5, 1.0], "recall": [1.0, 1.0], "f1": [0.6, 1.0]},
        },
        "suspect": None,
        "invalid_attempts": 0,
        "prompts": [
            {"id": "add-column", "prompt": "Add it", "expect": True, "attempts": 3, "fired": 3,
             "triggered": True, "misfires": False, "others": {}},
            {"id": "fill-pdf", "prompt": "Fill | the form", "expect": False, "attempts": 3,
             "fired": 2, "triggered": True, "misfires": True, "others": {"pdf-forms": 1}},
        ],
    }  # fmt: skip
    data.update(overrides)
    return data


def test_the_report_section_shows_the_confusion_table_and_the_misfiring_prompts() -> None:
    text = render_trigger_section(_data())
    assert "## Triggers: db-migrations" in text
    assert "| should fire | 2 | 0 |" in text and "| should not fire | 1 | 2 |" in text
    assert "| prompts | 0.67 [0.33, 1.00] | 1.00 [1.00, 1.00] | 0.80 [0.50, 1.00] |" in text
    misfires = text.split("### Prompts that missed or misfired", 1)[1]
    assert (
        "| fill-pdf | no fire | 2 of 3 | misfired | pdf-forms (1) | Fill \\| the form |" in misfires
    )
    assert "add-column |" not in misfires
    assert "Suspect" not in text
    suspect = render_trigger_section(
        _data(suspect={"kind": "nothing-fired", "causes": ["other skills fired instead: x (3)"]})
    )
    assert "**Suspect run (nothing-fired)**" in suspect
    assert "- other skills fired instead: x (3)" in suspect


def test_the_suggested_fixes_of_a_trigger_run_name_the_description_and_its_prompts() -> None:
    skill = ".agents/skills/db-migrations/SKILL.md"
    prompts = [
        {"id": "add-column", "expect": True, "attempts": 3, "fired": 0, "triggered": False,
         "misfires": True, "others": {}},
        {"id": "rename-table", "expect": True, "attempts": 3, "fired": 0, "triggered": False,
         "misfires": True, "others": {"sql-helper": 3}},
        {"id": "fill-pdf", "expect": False, "attempts": 3, "fired": 2, "triggered": True,
         "misfires": True, "others": {}},
        {"id": "haiku", "expect": False, "attempts": 0, "fired": 0, "triggered": None,
         "misfires": False, "others": {}},
        {"id": "csv-summary", "expect": False, "attempts": 3, "fired": 0, "triggered": False,
         "misfires": False, "others": {}},
    ]  # fmt: skip
    text = "\n".join(trigger_fixes(_data(prompts=prompts), skill))
    assert f"`{skill}`, the `description` in its front matter" in text
    assert "did not load the skill on 2 prompt(s) it should (`add-column`, `rename-table`)" in text
    assert "another skill (`sql-helper`) was loaded instead on `rename-table`" in text
    assert "loaded the skill on 1 prompt(s) it should not (`fill-pdf`)" in text
    assert "1 prompt(s) had no valid attempt (`haiku`)" in text
    assert "csv-summary" not in text
    # Every prompt as expected: nothing to fix, and said so.
    right = [dict(p, misfires=False, triggered=p["expect"]) for p in prompts if p["attempts"]]
    assert trigger_fixes(_data(prompts=right), skill) == ["None: every prompt fired as expected."]


def test_a_candidate_description_is_the_one_the_fixes_name() -> None:
    """`triggers --skill cand/SKILL.md` measures the candidate's description, but the report's
    fixes named the skill's own file (the seventh new user's, a skill-creator skill: the
    mount `.agents/skills/readme-lint/SKILL.md`, a path the author does not even have). They
    now name the candidate and where this run kept it; a run of the skill's own text keeps
    the skill's file."""
    from evaluator.artifacts.models import CaseResult
    from evaluator.artifacts.report import render_report
    from tests.artifacts.test_attribution import manifest

    results = [
        CaseResult.model_validate(
            {"case_id": c, "workspace_root": None, "thread_id": None, "session_path": None}
            | {"status": status, "assertions": []}
        )
        for c, status in (("add-column", "pass"), ("fill-pdf", "fail"))
    ]
    mount = ".agents/skills/db-migrations/SKILL.md"
    own = manifest(["add-column", "fill-pdf"]).model_copy(update={"target_skill_path": mount})
    measured = own.model_copy(update={"candidate_skill": "candidate-skill.md"})

    def fixes(run: Any) -> str:
        return render_report(run, results, None, _data()).split("## Suggested Next Fixes")[1]

    assert (
        "1. the candidate SKILL.md given with `--skill` (this run's `candidate-skill.md`), the"
        " `description` in its front matter: the agent loaded the skill on 1 prompt(s) it"
        " should not (`fill-pdf`)" in fixes(measured)
    )
    assert mount not in fixes(measured)
    assert f"1. `{mount}`, the `description` in its front matter" in fixes(own)


def _score(triggers: dict[str, Any] | None) -> RunScore:
    return RunScore(
        2, [CaseScore("a", "pass", 1.0, 1.0), CaseScore("b", "fail", 0.0, 0.0)], triggers
    )


def test_trigger_f1_is_the_f1_over_prompts_and_refuses_a_suspect_run() -> None:
    metric = get_metric("trigger-f1")
    value = metric.measure(_score(_data()), MetricContext())
    assert (value.value, value.low, value.high, value.cases) == (0.8, 0.5, 1.0, 2)
    with pytest.raises(MetricUnavailable) as plain:
        metric.measure(_score(None), MetricContext())
    assert plain.value.token == "not-a-trigger-run"
    suspect = _data(suspect={"kind": "everything-fired", "causes": ["c"]})
    verdict = decide(_score(suspect), metric="trigger-f1", threshold=0.5)
    assert verdict.kind == "ERROR" and "suspect-trigger-run=everything-fired" in verdict.line()
    assert decide(_score(_data()), metric="trigger-f1", threshold=0.9).kind == "FAIL"
    assert decide(_score(_data()), metric="trigger-f1", threshold=0.8).kind == "PASS"


def test_gate_reads_a_trigger_run_f1_from_its_run_dir(tmp_path: Path) -> None:
    from evaluator.gate.rundir import read_run

    run = tmp_path / "run"
    (run / "case-results").mkdir(parents=True)
    write_json(
        run / "manifest.json", {"run_state": "completed", "resolved_case_ids": ["add-column"]}
    )
    write_json(run / "case-results/add-column.json", {"case_id": "add-column", "status": "pass"})
    write_json(run / "triggers.json", _data())
    score = read_run(run).score()
    assert get_metric("trigger-f1").measure(score, MetricContext()).value == 0.8


def test_an_agent_is_stopped_once_the_condition_holds(tmp_path: Path) -> None:
    asked: list[int] = []

    def decided() -> bool:
        asked.append(1)
        return len(asked) >= 2

    outcome = run_process(
        [sys.executable, "-c", "import time; time.sleep(600)"],
        cwd=tmp_path,
        env={},
        stdin_text="",
        stdout_path=tmp_path / "out",
        stderr_path=tmp_path / "err",
        timeout_s=600,
        stop_when=decided,
    )
    assert outcome.stopped and outcome.killed and not outcome.timed_out
    assert len(asked) == 2
    finished = run_process(
        [sys.executable, "-c", "pass"],
        cwd=tmp_path,
        env={},
        stdin_text="",
        stdout_path=tmp_path / "out",
        stderr_path=tmp_path / "err",
        timeout_s=600,
        stop_when=lambda: False,
    )
    assert not finished.stopped and finished.exit_code == 0


@pytest.mark.parametrize(
    ("agent", "recorded", "where", "fires"),
    [
        ("codex", "codex-exec.jsonl", "home/.codex/sessions/2026/01/01/rollout-x.jsonl", True),
        ("claude", "claude-code.jsonl", "home/.claude/projects/p/s.jsonl", True),
    ],
)
def test_each_adapter_watches_the_session_it_writes_for_a_decision(
    tmp_path: Path, agent: str, recorded: str, where: str, fires: bool
) -> None:
    """The recorded Codex session reads SKILL.md whole (its trigger); the recorded Claude Code
    session does the same without its Skill tool (a trigger too: the body reached the agent,
    red team 20). No session yet: no decision."""
    source = RECORDED / recorded
    if not source.is_file():
        pytest.skip(f"no recorded {recorded}")
    decided = get_adapter(agent).decision_watch(tmp_path, SKILLS, pace=0)
    assert decided() is False
    target = tmp_path / where
    target.parent.mkdir(parents=True)
    shutil.copy(source, target)
    assert decided() is fires


def test_the_claude_watch_holds_once_the_session_shows_a_skill_tool_use(tmp_path: Path) -> None:
    from tests.triggers.test_trigger_signals import claude_session

    session = claude_session(
        tmp_path,
        {"name": "Skill", "input": {"skill": "db-migrations"}},
        "Launching skill",
    )
    agent_dir = tmp_path / "agent"
    decided = get_adapter("claude").decision_watch(agent_dir, SKILLS, pace=0)
    target = agent_dir / "home/.claude/projects/p/s.jsonl"
    target.parent.mkdir(parents=True)
    lines = session.read_text().splitlines(keepends=True)
    # Up to the Skill tool use: nothing decided while the session holds no trigger yet.
    first_use = next(i for i, line in enumerate(lines) if '"Skill"' in line)
    target.write_text("".join(lines[:first_use]))
    assert decided() is False
    target.write_text("".join(lines))
    assert decided() is True


def test_a_target_without_a_trigger_set_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from evaluator.cli.main import main

    repo = copy_demo(tmp_path)
    with pytest.raises(SystemExit) as exit_info:
        main(["triggers", "--repo", str(repo), "--runs-dir", str(tmp_path / "runs")])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert "has no trigger_suite" in err and "\n" not in err
    bad = tmp_path / "bad.csv"
    bad.write_text("id,should_trigger,prompt\na,perhaps,x\n")
    with pytest.raises(SystemExit) as exit_info:
        main(["triggers", "--repo", str(repo), "--triggers", str(bad)])
    assert exit_info.value.code == 2
    assert f"{bad}:2" in capsys.readouterr().err
    assert not (tmp_path / "runs").exists()


def test_a_candidate_description_must_present_itself_as_the_skill() -> None:
    from evaluator.errors import InputError
    from evaluator.pipeline.triggers import _check_candidate

    _check_candidate("---\nname: db-migrations\ndescription: Use it.\n---\n", "db-migrations")
    with pytest.raises(InputError, match="named 'other', the skill under test 'db-migrations'"):
        _check_candidate("---\nname: other\ndescription: Use it.\n---\n", "db-migrations")
    with pytest.raises(InputError, match="no `name` in its front matter"):
        _check_candidate("# just a body\n", "db-migrations")
    with pytest.raises(InputError, match="no `description` in its front matter"):
        _check_candidate("---\nname: db-migrations\n---\n", "db-migrations")


@pytest.mark.parametrize(("suspect", "code"), [(None, 0), ("nothing-fired", 1)])
def test_a_suspect_trigger_run_exits_1(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    suspect: str | None,
    code: int,
) -> None:
    """The figures of a suspect run measure a broken setup more likely than the description:
    the command says so by its exit code, as `run` does for a run where no case passed."""
    import types

    from evaluator.cli.main import main

    run = tmp_path / "runs/t1"
    run.mkdir(parents=True)
    kind = {"kind": suspect, "causes": ["no cause visible in the evidence"]} if suspect else None
    write_json(run / "triggers.json", _data(suspect=kind))
    outcome = types.SimpleNamespace(run_dir=RunDir(run), interrupted=False)
    monkeypatch.setattr(
        "evaluator.pipeline.triggers.execute_triggers", lambda *args, **kwargs: outcome
    )
    repo = copy_demo(tmp_path)
    for extra in ([], ["--json"]):
        with pytest.raises(SystemExit) as exit_info:
            main(["triggers", "--repo", str(repo), *extra])
        assert exit_info.value.code == code
        out = capsys.readouterr().out
        if extra:
            assert json.loads(out)["exit_code"] == code
        else:
            assert ("SUSPECT (nothing-fired)" in out) is bool(suspect)


def test_an_interrupted_trigger_run_says_its_figures_are_partial(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Figures over the prompts measured before a stop are not the trigger set's: the output
    says so and how to finish, as `run` does, besides exiting 1."""
    import types

    from evaluator.cli.main import main

    run = tmp_path / "runs/t1"
    run.mkdir(parents=True)
    write_json(run / "triggers.json", _data())
    outcome = types.SimpleNamespace(run_dir=RunDir(run), interrupted=True)
    monkeypatch.setattr(
        "evaluator.pipeline.triggers.execute_triggers", lambda *args, **kwargs: outcome
    )
    repo = copy_demo(tmp_path)
    with pytest.raises(SystemExit) as exit_info:
        main(["triggers", "--repo", str(repo)])
    assert exit_info.value.code == 1
    out = capsys.readouterr().out
    assert "INTERRUPTED: the figures cover the " in out
    assert "finish with `agentic-eval triggers --resume t1`" in out
    with pytest.raises(SystemExit) as exit_info:
        main(["triggers", "--repo", str(repo), "--json"])
    assert json.loads(capsys.readouterr().out)["interrupted"] is True


def test_gate_on_a_run_that_is_not_a_trigger_run_names_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from evaluator.cli.main import main

    runs = {}
    for name, triggers in (("trigger-run", _data()), ("plain-run", None)):
        run = tmp_path / name
        (run / "case-results").mkdir(parents=True)
        write_json(
            run / "manifest.json", {"run_state": "completed", "resolved_case_ids": ["add-column"]}
        )
        write_json(
            run / "case-results/add-column.json", {"case_id": "add-column", "status": "pass"}
        )
        if triggers is not None:
            write_json(run / "triggers.json", triggers)
        runs[name] = str(run)
    argv = ["gate", "--metric", "trigger-f1", "--candidate", runs["trigger-run"]]
    with pytest.raises(SystemExit) as exit_info:
        main([*argv, "--current", runs["plain-run"]])
    assert exit_info.value.code == 3
    err = capsys.readouterr().err.strip()
    assert f"current run {runs['plain-run']}: the run has no triggers.json" in err
    assert "\n" not in err


def test_score_on_trigger_f1_shows_the_prompts_and_f1_not_pass_rates(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A trigger run's cases are prompts that fire or not: `hard`/`soft` lines would read as a
    pass rate of the skill. `score --metric trigger-f1` shows what the metric reads."""
    from evaluator.cli.score import _print_summary

    verdict = decide(_score(_data()), metric="trigger-f1", threshold=0.8)
    assert verdict.line() == "VERDICT: PASS trigger-f1=0.800 ci=[0.500,1.000] cases=2 blocked=0"
    payload = verdict.to_json()
    assert payload["hard"] is None and payload["soft"] is None
    assert all(c["hard"] is None and c["soft"] is None for c in payload["per_case"])
    _print_summary(verdict, "runs/t1")
    out = capsys.readouterr().out
    assert "hard=" not in out and "soft=" not in out
    assert out.splitlines()[:3] == [
        "a  pass",
        "b  fail",
        "precision=0.667 recall=1.000 f1=0.800 (over prompts) coverage=1.000",
    ]
    suspect = _data(suspect={"kind": "nothing-fired", "causes": ["c"]})
    error = decide(_score(suspect), metric="trigger-f1", threshold=0.8)
    _print_summary(error, "runs/t1")
    out = capsys.readouterr().out
    assert "hard=" not in out and "SUSPECT (nothing-fired): c" in out
    # the pass-rate metrics keep their lines
    assert decide(_score(_data()), metric="hard").line().startswith("VERDICT: FAIL hard=0.500")


def test_a_smaller_trigger_set_reuses_a_behaviour_folder_written_for_a_larger_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Behaviours for prompts the set does not hold answer nothing: reported, not fatal. Two
    behaviours answering the same prompt still stop the run, and a plain run keeps refusing a
    behaviour for no case (a typo in its match would leave its case unanswered)."""
    from evaluator.modelserver import load_behaviors
    from evaluator.pipeline.run import Run, RunOptions
    from evaluator.pipeline.triggers import TriggerOptions, TriggerRun, trigger_loaded_cases
    from evaluator.plan import Selection, open_repo
    from evaluator.repo.triggers import load_trigger_set

    repo = open_repo(copy_demo(tmp_path), None, target=None, lenient=False)
    target = repo.targets["db-migrations"]
    small = tmp_path / "small.csv"
    small.write_text(
        "id,should_trigger,prompt\n"
        "add-column,true,Add a nullable avatar_url column to the users table.\n"
        "fill-pdf,false,Fill the name field of intake.pdf with Ada Lovelace.\n"
    )
    cases = trigger_loaded_cases(target, load_trigger_set(small))
    selection = Selection(target=target, suite_ids=["triggers"], cases=cases, explicit_case_ids=[])
    behaviors = tmp_path / "behaviors"
    shutil.copytree(ROOT / "tests/fixtures/trigger-run/behaviors", behaviors)
    run = TriggerRun(RunOptions(repo=tmp_path), TriggerOptions())
    assert run._behaviour_problems(load_behaviors(behaviors, adapter_names()), selection) == []
    assert run.unused_behaviours == (
        "scripted behaviour(s) matching no prompt of the trigger set, unused:"
        " csv-summary, haiku, rename-table"
    )
    assert "warning: scripted behaviour(s) matching no prompt" in capsys.readouterr().err
    shutil.copy(behaviors / "add-column.yaml", behaviors / "add-column-again.yaml")
    twice = (behaviors / "add-column-again.yaml").read_text()
    (behaviors / "add-column-again.yaml").write_text(
        twice.replace("name: add-column", "name: add-column-again", 1)
    )
    problems = run._behaviour_problems(load_behaviors(behaviors, adapter_names()), selection)
    assert len(problems) == 1 and "all match the prompt of case 'add-column'" in str(problems[0])
    (behaviors / "add-column-again.yaml").unlink()
    plain = Run(RunOptions(repo=tmp_path))._behaviour_problems(
        load_behaviors(behaviors, adapter_names()), selection
    )
    assert any("matches no case prompt" in str(p) for p in plain)


def test_a_misfired_prompt_line_quotes_its_prompt() -> None:
    """The console line of a misfire names the prompt, not only its id; an ok line stays short."""
    from evaluator.cli.triggers import prompt_line

    base = {"id": "q-01", "expect": True, "attempts": 2, "fired": 0, "triggered": False}
    long = "Please add a line to CHANGELOG.md saying we fixed the login timeout on slow networks"
    line = prompt_line({**base, "misfires": True, "prompt": long})
    # A should-fire prompt that did not fire was missed: it did not misfire.
    assert line.startswith("q-01") and "fired 0/2  MISSED  'Please add a line" in line
    assert line.endswith("...'") and len(line) < 120
    ok = prompt_line({**base, "fired": 2, "triggered": True, "misfires": False, "prompt": long})
    assert ok.endswith("fired 2/2  ok")
    fired = {**base, "expect": False, "fired": 2, "triggered": True, "misfires": True}
    assert "expect=none fired 2/2  MISFIRE  'Please" in prompt_line({**fired, "prompt": long})


def test_the_unanswered_prompts_warning_names_an_option_its_command_has() -> None:
    """`run` narrows with --case; `triggers` has no --case, so its warning says --triggers."""
    import re

    from evaluator.cli.run import command as run_command
    from evaluator.cli.triggers import command as triggers_command
    from evaluator.pipeline.run import Run
    from evaluator.pipeline.triggers import TriggerRun

    for run_class, cli in ((Run, run_command), (TriggerRun, triggers_command)):
        named = set(re.findall(r"--[a-z-]+", run_class.narrowing_hint))
        offered = {option for p in cli.params for option in p.opts}
        assert named and named <= offered, (run_class.__name__, named)


def test_round_eight_a_violating_attempt_counts_as_the_outcome_not_expected(
    tmp_path: Path,
) -> None:
    """Red team 8: a misfiring attempt that also left its workspace (and its rerun) was invalid
    and never counted: a violation dropped the misfire from the metrics. It is the agent's
    doing, as in `run`: counted as the outcome not expected."""
    run_dir = RunDir(tmp_path / "run")
    for number, retry in ((1, None), (2, 1)):
        _attempt(
            run_dir,
            "fill-pdf",
            number,
            _observation(
                "fill-pdf", False, ["db-migrations"], invalid="isolation violation: trace: x"
            ),
            valid=False,
            status="blocked",
            retry_of=retry,
        )
    _attempt(
        run_dir,
        "add-column",
        1,
        _observation("add-column", True, [], invalid="isolation violation: evidence: y"),
        valid=False,
        status="blocked",
    )
    outcomes = observed_outcomes(run_dir, {"fill-pdf": False, "add-column": True}, "db-migrations")
    assert [(o.prompt, o.fired, o.invalid) for o in outcomes] == [
        ("fill-pdf", True, None),
        ("add-column", False, None),
    ]
    data = metrics_json(trigger_metrics(outcomes, skill="db-migrations"), {})
    assert data["over_attempts"]["counts"] == {"tp": 0, "fp": 1, "fn": 1, "tn": 0}
    assert data["invalid_attempts"] == 0
