"""A skill author's three questions (docs/first-hour.md): does the skill help, does it fire on
the right prompts, is v2 better than v1. Each test builds its own minimal skill-creator layout
and checks one thing the author read wrong or could not do before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluator.cli.main import main

QUERIES = [
    {"query": "Tidy the imports of this module", "should_trigger": True},
    {"query": "Write a limerick about the sea", "should_trigger": False},
]
EVALS = {
    "skill_name": "tidy-imports",
    "evals": [
        {
            "id": 1,
            "prompt": "Sort the imports of app.py",
            "expectations": ["The final answer mentions `sorted`."],
        }
    ],
}


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), out, err


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def skill_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "tidy-imports"
    write(folder / "SKILL.md", "---\nname: tidy-imports\ndescription: Tidy imports.\n---\nBody.\n")
    write(folder / "evals/evals.json", json.dumps(EVALS))
    write(folder / "evals/trigger-evals.json", json.dumps(QUERIES))
    return folder


def behaviour(folder: Path, name: str, phrase: str) -> None:
    write(
        folder / f"{name}.yaml",
        f'name: "{name}"\nmatch:\n  prompt_contains: "{phrase}"\nsteps:\n  - final: "Done."\n',
    )


def test_validate_accepts_behaviours_written_for_the_trigger_set(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`triggers --behaviors DIR` plays a folder scripted for the trigger prompts; `validate
    --behaviors DIR` refused every one of them as matching no case prompt."""
    folder = skill_folder(tmp_path)
    behaviors = tmp_path / "behaviors"
    behaviour(behaviors, "fires", "Tidy the imports")
    behaviour(behaviors, "limerick", "limerick about the sea")
    code, out, err = run_cli(
        ["validate", "--evals", str(folder), "--behaviors", str(behaviors)], capsys
    )
    assert code == 0 and out.startswith("ok: 1 target(s), 1 case(s), 2 trigger prompt(s)"), err
    # One that answers neither a case nor a trigger prompt is still refused, and says so.
    behaviour(behaviors, "typo", "Tidy the imprts")
    code, _, err = run_cli(
        ["validate", "--evals", str(folder), "--behaviors", str(behaviors)], capsys
    )
    assert code == 2
    assert "typo.yaml:3:3: match: behaviour 'typo' matches no case prompt nor trigger prompt" in err
    # Two behaviours for one trigger prompt would answer each other's attempts: refused.
    (behaviors / "typo.yaml").unlink()
    behaviour(behaviors, "fires-too", "imports of this module")
    code, _, err = run_cli(
        ["validate", "--evals", str(folder), "--behaviors", str(behaviors)], capsys
    )
    assert code == 2 and "all match the prompt of case 'tidy-imports/q-01'" in err, err


def test_score_says_why_an_uplift_fails(capsys: pytest.CaptureFixture[str]) -> None:
    """`score --metric uplift` on four cases, each +100 pp over the baseline, printed `VERDICT:
    FAIL ... uplift=+1.000` and nothing else: the reason (four cases can never make the paired
    test significant) was only in `--json`. The text output now gives it above the VERDICT."""
    from evaluator.artifacts.attribution import CaseScore, RunScore
    from evaluator.cli.score import _print_summary
    from evaluator.gate.metrics.base import MetricContext
    from evaluator.gate.score import decide

    def run(rate: float) -> RunScore:
        return RunScore(4, [CaseScore(f"eval-{i}", "pass", rate, rate) for i in range(4)])

    verdict = decide(
        run(1.0), min_pass_rate=1.0, metric="uplift", context=MetricContext(baseline=run(0.0))
    )
    _print_summary(verdict, "runs/x")
    lines = capsys.readouterr().out.splitlines()
    assert verdict.kind == "FAIL" and verdict.line().endswith("p=0.0625 cases=4 blocked=0")
    assert lines[-1] == (
        "FAIL because the uplift +1.000 is not significant (paired p=0.0625 > 0.05;"
        " 4 case(s) can never reach it, at least 5 are needed)"
    )
    _print_summary(decide(run(0.5), min_pass_rate=1.0), "runs/x")
    assert capsys.readouterr().out.splitlines()[-1] == (
        "FAIL because hard 0.500 is below min-pass-rate 1"
    )


def test_score_gives_no_reason_above_a_pass(capsys: pytest.CaptureFixture[str]) -> None:
    """A PASS printed `why: hard 1.000 vs min-pass-rate 1` above its VERDICT line, the same
    line and wording as a FAIL's: a reason is given for a FAIL only, and says which way the
    figure missed; the JSON's reason says a PASS's figure meets the threshold."""
    from evaluator.artifacts.attribution import CaseScore, RunScore
    from evaluator.cli.score import _print_summary
    from evaluator.gate.score import decide

    run = RunScore(2, [CaseScore(f"eval-{i}", "pass", 1.0, 1.0) for i in range(2)])
    verdict = decide(run, min_pass_rate=1.0)
    _print_summary(verdict, "runs/x")
    lines = capsys.readouterr().out.splitlines()
    assert verdict.kind == "PASS" and lines[-1] == "run dir: runs/x"
    assert not any(line.startswith(("why", "FAIL")) for line in lines)
    assert verdict.reason == "hard 1.000 meets min-pass-rate 1"


@pytest.mark.slow
@pytest.mark.codex
def test_evaluate_on_prose_expectations_without_a_judge_says_nothing_was_compared(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """skill-creator's prose expectations, no judge model: every attempt of both variants is
    `blocked: unclear-rule`. `evaluate` ended with skill-creator's benchmark refusing the run
    (exit 2, as for bad input), after its own report, and never said why nothing compared.
    Now the evaluation ends normally without benchmark.json (a note says why), the terminal
    gives the unclear-rule hint, the report's advice says nothing was compared, and the exit
    is 1: an evaluation that compared nothing is no success."""
    from evaluator.cli.main import run_cli
    from tests.support import codex_or_skip, scratch_dir

    codex_or_skip()
    folder = tmp_path / "tidy-imports"
    write(folder / "SKILL.md", "---\nname: tidy-imports\ndescription: Tidy imports.\n---\nBody.\n")
    prose = {**EVALS, "evals": [{**EVALS["evals"][0], "expectations": ["The agent is tidy."]}]}
    write(folder / "evals/evals.json", json.dumps(prose))
    behaviors = tmp_path / "behaviors"
    behaviour(behaviors, "sorts", "Sort the imports")
    runs = tmp_path / "runs"
    with scratch_dir() as scratch:
        argv = ["evaluate", "--evals", str(folder), "--baseline", "none", "--attempts", "1"]
        argv += ["--behaviors", str(behaviors), "--runs-dir", str(runs), "--run-id", "prose"]
        code = run_cli([*argv, "--scratch-root", str(scratch)])
    out = capsys.readouterr().out
    assert code == 1, out
    assert "hint: 1 case blocked by unclear-rule" in out
    assert out.rstrip().endswith(
        "exit 1: nothing was compared (with_skill vs without_skill): no case was counted under both"
    )
    directory = runs / "prose"
    assert not (directory / "benchmark.json").exists()
    result = json.loads((directory / "evaluation.json").read_text())
    assert result["comparisons"][0]["headline"]["call"] == "no-data"
    assert any(n.startswith("benchmark.json not written: ") for n in result["notes"])
    assert (
        "1. Nothing was compared: no case has a counted attempt"
        in (directory / "eval-report.md").read_text()
    )


def _prompt(pid: str, expect: bool, fired: int) -> dict[str, object]:
    triggered = 2 * fired > 3
    return {"id": pid, "prompt": pid, "expect": expect, "attempts": 3, "fired": fired} | {
        "triggered": triggered,
        "misfires": triggered != expect,
        "others": {},
    }


def test_a_trigger_run_report_leads_with_its_trigger_scores_not_a_pass_rate(
    tmp_path: Path,
) -> None:
    """A trigger run's report.md and report.html said "Verified pass rate: 3 of 4 judged cases
    passed (hard 67%)": the mean per-prompt share of attempts that fired as expected, which is
    no trigger metric and not the 3 of 4 it stands beside. They now give the prompts that
    fired as expected and precision, recall and F1 over prompts, from `triggers.json`."""
    from evaluator.artifacts.attribution import score_run
    from evaluator.artifacts.models import CaseResult
    from evaluator.artifacts.report import render_report
    from evaluator.artifacts.rundir import RunDir, write_json
    from evaluator.artifacts.trigger_report import render_trigger_section
    from evaluator.html.run_page import render_run_html
    from tests.artifacts.test_attribution import manifest

    prompts = [_prompt("a", True, 3), _prompt("b", True, 2), _prompt("c", True, 0)]
    prompts.append(_prompt("d", False, 0))
    over = {"counts": {"tp": 2, "fp": 0, "fn": 1, "tn": 1}, "intervals": {}}
    triggers = {
        "skill": "tidy-imports",
        "attempts": 3,
        "trigger_only": True,
        "distractors": [],
        "prompts": prompts,
        "over_prompts": over | {"precision": 1.0, "recall": 2 / 3, "f1": 0.8},
        "over_attempts": over | {"precision": 1.0, "recall": 5 / 9, "f1": 0.71},
        "suspect": None,
        "invalid_attempts": 0,
    }
    rates = {"a": 1.0, "b": 2 / 3, "c": 0.0, "d": 1.0}
    results = [
        CaseResult.model_validate(
            {"case_id": c, "workspace_root": None, "thread_id": None, "session_path": None}
            | {"status": "pass" if r > 0.5 else "fail", "assertions": []}
        )
        for c, r in rates.items()
    ]
    run = manifest(list(rates))
    expected = (
        "3 of 4 prompts fired as expected (precision 1.00, recall 0.67, F1 0.80 over prompts)"
    )
    report = render_report(run, results, None, triggers)
    assert f"- Trigger prompts: {expected}" in report
    assert "Verified pass rate" not in report
    write_json(tmp_path / "triggers.json", triggers)
    html = render_run_html(RunDir(tmp_path), run, results)
    assert f"Trigger prompts: {expected}" in html and "Verified pass rate" not in html
    # The per-prompt table names its verdict column and shows each prompt's text, as
    # report.md does (the HTML had an unlabelled column and ids only).
    assert "<th>verdict</th><th>text</th>" in html
    assert "<td>3 of 3</td><td></td><td>ok</td><td>a</td>" in html
    # A should-fire prompt that did not fire was missed, not "misfires" (the one flag of both).
    assert "<td>0 of 3</td><td></td><td>missed</td><td>c</td>" in html
    assert "| c | fire | 0 of 3 | missed | - | c |" in render_trigger_section(triggers)
    # A case run keeps its verified pass rate.
    assert f"- Verified pass rate: {score_run(results, 4).headline()}" in render_report(
        run, results
    )


def test_the_no_skill_baseline_report_does_not_tell_the_author_to_fix_the_skill() -> None:
    """The no-skill variant of `evaluate` fails where the skill is needed: that is the point of
    it. Its report.md said "Fix the skill: `SKILL.md`: named by 4 failing or blocked case(s)"
    of a run that had no skill. It now says the baseline's failures are what the skill is
    measured against; a run with the skill keeps its advice."""
    from evaluator.artifacts.models import CaseResult
    from evaluator.artifacts.report import render_report
    from tests.artifacts.test_attribution import manifest

    failed = CaseResult(
        case_id="eval-1",
        workspace_root=None,
        thread_id=None,
        session_path=None,
        status="fail",
        suggested_fix_files=[".agents/skills/tidy-imports/SKILL.md"],
        assertions=[],
    )
    baseline = manifest(["eval-1"]).model_copy(
        update={"notes": ["no skill: the workspaces hold none and the agent is given none"]}
    )
    fixes = render_report(baseline, [failed]).split("## Suggested Next Fixes", 1)[1]
    assert "named by 1 failing" not in fixes
    assert "None from this run: it gave the agent no skill" in fixes
    with_skill = render_report(manifest(["eval-1"]), [failed])
    assert "1. `.agents/skills/tidy-imports/SKILL.md`: named by 1 failing" in with_skill


def test_a_failing_answer_entry_shows_the_answer_the_agent_gave(tmp_path: Path) -> None:
    """`final_answer_contains: final answer lacks 'Entry added:'` said what was missing; what
    the agent answered instead was only in `final-answer.txt`. The report now quotes it, as one
    code span whatever it holds, and only where an entry about the answer failed."""
    from evaluator.artifacts.models import AssertionResult, CaseResult
    from evaluator.artifacts.report_findings import case_findings
    from evaluator.artifacts.rundir import RunDir
    from evaluator.judge.verdict import CheckVerdict

    run_dir = RunDir(tmp_path / "run")
    answer = "Added the entry under `### Fixed`.\n\nCategory: Fixed."
    for case in ("answer", "negated", "file"):
        folder = run_dir.case_artifacts(case)
        folder.mkdir(parents=True)
        (folder / "final-answer.txt").write_text(answer)

    def failing(case: str, check: CheckVerdict) -> CaseResult:
        entry = AssertionResult(summary="s", status="fail", checks=[check])
        return CaseResult(
            case_id=case,
            workspace_root=None,
            thread_id=None,
            session_path=None,
            status="fail",
            assertions=[entry],
        )

    lacks = CheckVerdict(kind="final_answer_contains", status="fail", detail="lacks")
    results = [
        failing("answer", lacks),
        failing("negated", CheckVerdict(kind="not", status="fail", detail="d", checks=[lacks])),
        failing("file", CheckVerdict(kind="workspace_file_contains", status="fail", detail="d")),
    ]
    findings = case_findings(run_dir, results)
    shown = "Its final answer: ``Added the entry under `### Fixed`. Category: Fixed.``"
    assert shown in findings["answer"].lines and shown in findings["negated"].lines
    assert not any("final answer" in line for line in findings["file"].lines)
