"""Who caused a `blocked`, and the verified score: agent faults count as not passed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from evaluator.artifacts.attribution import Blame, attempt_blame, score_case, score_run
from evaluator.artifacts.models import AssertionResult, AttemptRecord, CaseResult, Manifest
from evaluator.artifacts.report import render_report


def attempt(number: int, status: str, **facts: Any) -> AttemptRecord:
    defaults: dict[str, Any] = {
        "exit_code": 0,
        "thread_id": "t",
        "session_complete": True,
        "valid": True,
    }
    return AttemptRecord(
        attempt=number, workspace_root="/w", status=status, **{**defaults, **facts}
    )


def case(case_id: str, status: str, attempts: list[AttemptRecord], **extra: Any) -> CaseResult:
    return CaseResult(
        case_id=case_id,
        workspace_root=None,
        thread_id=None,
        session_path=None,
        status=status,
        attempts=attempts,
        **extra,
    )


def manifest(case_ids: list[str], **extra: Any) -> Manifest:
    """A run's manifest selecting `case_ids` (a target `t`, a suite `s`)."""
    return Manifest(
        run_id="r",
        target_id="t",
        suite_ids=["s"],
        target_skill_path="SKILL.md",
        started_at="now",
        case_workspace_root="/w",
        resolved_case_ids=case_ids,
        **extra,
    )


@pytest.mark.parametrize(
    "facts,expected",
    [
        ({"timed_out": True, "agent_error": "x"}, Blame("agent", "timeout")),
        (
            {"timed_out": True, "agent_error": "Reconnecting...", "model_unreachable": True},
            Blame("outage", "model-unreachable"),
        ),
        ({"isolation": "violation", "valid": False}, Blame("agent", "isolation-violation")),
        ({"exit_code": 1, "agent_error": "stream error"}, Blame("outage", "agent-error")),
        ({"exit_code": 1}, Blame("agent", "agent-crash")),
        ({"killed": True}, Blame("agent", "agent-crash")),
        ({"exit_code": None, "thread_id": None}, Blame("outage", "not-started")),
        ({"session_complete": False}, Blame("agent", "no-final-answer")),
        ({"blocked_reason": "unclear-rule"}, Blame("eval", "unclear-rule")),
        ({"blocked_reason": "environment"}, Blame("eval", "environment")),
        ({"blocked_reason": "insufficient-evidence"}, Blame("eval", "insufficient-evidence")),
    ],
)
def test_each_blocked_attempt_is_blamed_on_one_side(facts: dict[str, Any], expected: Blame) -> None:
    assert attempt_blame(attempt(1, "blocked", **facts)) == expected


def test_a_skill_cannot_raise_its_score_by_timing_out_hard_cases() -> None:
    results = [
        case("easy", "pass", [attempt(1, "pass")]),
        case("hard", "blocked", [attempt(1, "blocked", timed_out=True)]),
    ]
    score = score_run(results)
    assert score.hard == 0.5
    assert score.coverage == 1.0


def test_eval_caused_blocks_are_excluded_and_lower_coverage() -> None:
    results = [case("c0", "pass", [attempt(1, "pass")])] + [
        case(f"c{i}", "blocked", [attempt(1, "blocked", blocked_reason="unclear-rule")])
        for i in range(1, 13)
    ]
    score = score_run(results)
    assert score.hard == 1.0
    assert score.coverage == pytest.approx(1 / 13)
    assert score.headline() == (
        "1 of 1 judged cases passed (hard 100% = passed of judged;"
        " coverage 1 of 13 cases judged = 8%); 12 of 13 blocked (unclear-rule 12, left out)"
    )


def test_isolation_violation_on_every_try_counts_against_but_a_clean_retry_is_judged() -> None:
    violated = case(
        "v",
        "blocked",
        [
            attempt(1, "blocked", isolation="violation", valid=False),
            attempt(2, "blocked", isolation="violation", valid=False, retry_of=1),
        ],
    )
    retried = case(
        "r",
        "pass",
        [attempt(1, "blocked", isolation="violation", valid=False), attempt(2, "pass", retry_of=1)],
    )
    assert score_case(violated).hard == 0.0
    assert score_case(retried).hard == 1.0


def test_k_attempts_pass_rate_counts_agent_blocks_and_skips_eval_blocks() -> None:
    result = case(
        "k",
        "pass",
        [
            attempt(1, "pass"),
            attempt(2, "blocked", session_complete=False),
            attempt(3, "blocked", blocked_reason="environment"),
            attempt(4, "pass"),
        ],
        assertions=[AssertionResult(summary="a", status="pass")],
    )
    scored = score_case(result)
    assert scored.hard == pytest.approx(2 / 3)
    assert scored.soft == pytest.approx(2 / 3)


def test_soft_is_the_share_of_assertion_entries_passed() -> None:
    result = case(
        "s",
        "fail",
        [attempt(1, "fail")],
        assertions=[
            AssertionResult(summary="a", status="pass"),
            AssertionResult(summary="b", status="fail"),
            AssertionResult(summary="c", status="pass"),
            AssertionResult(summary="d", status="blocked", blocked_reason="unclear-rule"),
        ],
    )
    assert score_case(result).hard == 0.0
    assert score_case(result).soft == pytest.approx(2 / 3)


def test_an_outage_is_flagged_and_never_scored() -> None:
    result = case("o", "blocked", [attempt(1, "blocked", exit_code=1, agent_error="HTTP 500")])
    score = score_run([result])
    assert score.outage
    assert score.hard is None
    assert score.headline().startswith("no verdict: 0 of 1 cases judged")


def test_results_without_attempts_use_the_status_and_count_missing_evidence_against() -> None:
    results = [
        case("p", "pass", []),
        case("f", "fail", []),
        case("i", "blocked", [], blocked_reason="insufficient-evidence"),
        case("u", "blocked", [], blocked_reason="unclear-rule"),
    ]
    score = score_run(results, selected=5)
    assert score.hard == pytest.approx(1 / 3)
    assert score.coverage == pytest.approx(3 / 5)


def test_report_headline_never_shows_a_bare_pass_rate() -> None:
    run = manifest(["a", "b"])
    results = [
        case("a", "pass", [attempt(1, "pass")]),
        case("b", "blocked", [attempt(1, "blocked", blocked_reason="unclear-rule")]),
    ]
    line = next(line for line in render_report(run, results).splitlines() if "pass rate" in line)
    assert line == (
        "- Verified pass rate: 1 of 1 judged cases passed (hard 100% = passed of judged;"
        " coverage 1 of 2 cases judged = 50%); 1 of 2 blocked (unclear-rule 1, left out)"
    )


def test_the_headline_says_what_the_pass_rate_is_the_mean_of(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A flaky run: one case passed 5 of 5 attempts, one 2 of 5 (failed). The report said
    "1 of 2 judged cases passed (hard 70%, ...)", which reads as a contradiction: 70% is the
    mean of the cases' shares of passed attempts (100%, 40%), not 1 of 2. It now says so, and
    the same line in report.md, report.html and `run`'s summary; where the rate is the passed
    share of the judged cases (one attempt each, an agent's block counted as not passed) it
    says that instead (the look-alike)."""
    from evaluator.artifacts.rundir import RunDir
    from evaluator.html.run_page import render_run_html

    five = [attempt(i, "pass") for i in range(1, 6)]
    flaky = [attempt(i, "pass" if i <= 2 else "fail") for i in range(1, 6)]
    results = [case("a", "pass", five), case("b", "fail", flaky)]
    line = score_run(results).headline()
    assert line == (
        "1 of 2 judged cases passed (hard 70% = the mean of each judged case's share of passed"
        " attempts: 100%, 40%; coverage 2 of 2 cases judged = 100%)"
    )
    run = manifest(["a", "b"])
    assert f"- Verified pass rate: {line}" in render_report(run, results)
    html = render_run_html(RunDir(tmp_path), run, results)
    assert "the mean of each judged case&#39;s share of passed attempts: 100%, 40%" in html
    from evaluator.cli.run import print_summary
    from evaluator.pipeline.run import RunOutcome

    print_summary(RunOutcome(RunDir(tmp_path), run, results))
    assert f"verified pass rate: {line}\n" in capsys.readouterr().out
    many = [case(f"c{i}", "pass", five) for i in range(5)] + [case("b", "fail", flaky)]
    assert "share of passed attempts over 6 cases; coverage 6 of 6" in score_run(many).headline()
    single = [
        case("a", "pass", [attempt(1, "pass")]),
        case("b", "blocked", [attempt(1, "blocked", timed_out=True)]),
        case("c", "fail", [attempt(1, "fail")]),
    ]
    assert score_run(single).headline() == (
        "1 of 3 judged cases passed (hard 33% = passed of judged;"
        " coverage 3 of 3 cases judged = 100%); 1 of 3 blocked (timeout 1, counted as not passed)"
    )


def test_a_results_stated_blame_decides_without_attempt_records() -> None:
    """A blocked result that says whose doing it is (`blocked_by`) is counted as it says, also
    without attempts: before, `insufficient-evidence` always counted against the skill, so an
    eval's gap (an isolation the evaluator could not verify) written by another evaluator, or
    copied without its attempts, turned into a failure."""
    results = [
        case("p", "pass", []),
        case("e", "blocked", [], blocked_reason="insufficient-evidence", blocked_by="eval"),
        case("a", "blocked", [], blocked_reason="environment", blocked_by="agent"),
    ]
    score = score_run(results, selected=3)
    assert score.hard == pytest.approx(1 / 2)  # p passed, a counted as not passed, e left out
    assert score.coverage == pytest.approx(2 / 3)
    assert score.cases[1].blame == Blame("eval", "insufficient-evidence")
    assert score.cases[2].blame == Blame("agent", "agent-unverifiable")
    outage = case("o", "blocked", [], blocked_reason="environment", blocked_by="outage")
    assert score_run([outage]).outage
    # The stated cause is kept when there is one.
    timed = case("t", "blocked", [], blocked_by="agent", blocked_cause="timeout")
    assert score_case(timed).blame == Blame("agent", "timeout")


def test_a_case_result_carries_its_blame_and_scores_alike_without_its_attempts() -> None:
    """What `finalize_case` writes at the case level is what the attempts say, so a reader that
    drops the attempts (another evaluator, a trimmed copy) counts the case the same way."""
    from evaluator.artifacts.attribution import case_blame

    for record, side in (
        (attempt(1, "blocked", blocked_reason="insufficient-evidence"), "eval"),
        (
            attempt(1, "blocked", blocked_reason="insufficient-evidence", blocked_by="agent"),
            "agent",
        ),
        (attempt(1, "blocked", timed_out=True, blocked_reason="environment"), "agent"),
    ):
        full = case("c", "blocked", [record], blocked_reason=record.blocked_reason)
        blame = case_blame(full)
        assert blame is not None and blame.side == side
        stated = full.model_copy(
            update={"attempts": [], "blocked_by": blame.side, "blocked_cause": blame.cause}
        )
        assert score_case(stated).blame == blame
        assert score_case(stated).hard == score_case(full).hard


@pytest.mark.parametrize(
    ("facts", "blame"),
    [
        ({"timed_out": True, "killed": True, "exit_code": None}, Blame("agent", "timeout")),
        ({"exit_code": 137, "killed": True}, Blame("agent", "agent-crash")),
        ({"agent_error": "stream error", "exit_code": 1}, Blame("outage", "agent-error")),
        ({"model_unreachable": True, "exit_code": None}, Blame("outage", "model-unreachable")),
    ],
)
def test_a_rejudge_keeps_whose_block_it_is(
    tmp_path: Path, facts: dict[str, Any], blame: Blame
) -> None:
    """A re-judge starts no agent, so no handle holds the agent's exit code, timeout or error:
    the attempt's saved record does. Without it a timed-out attempt with no session read back
    as an agent that never started (an outage, dropped from the score)."""
    from evaluator.artifacts.models import AttemptFile
    from evaluator.artifacts.rundir import RunDir
    from evaluator.pipeline.rejudge import restore_attempt

    saved = AttemptFile(
        attempt=1,
        workspace_root="/w",
        status="blocked",
        valid=True,
        blocked_reason="insufficient-evidence",
        thread_id=None,
        duration_s=12.5,
        **facts,
    )
    assert attempt_blame(saved) == blame
    run_dir = RunDir(tmp_path / "run")
    record = restore_attempt(run_dir, "c", saved).record(run_dir)
    assert attempt_blame(record) == blame
    assert record.duration_s == 12.5


@pytest.mark.parametrize(
    "facts",
    [
        {"exit_code": None, "thread_id": None},  # stopped before its session began: no outage
        {"killed": True},  # stopped by the run's end: no crash of the agent
    ],
)
def test_an_interrupted_attempt_is_listed_never_counted(facts: dict[str, Any]) -> None:
    """A stopped run's in-flight attempt, recorded by the resume that ran its case again: neither
    its blame (an outage would make `run` exit 3) nor its status enters the case's score."""
    interrupted = attempt(1, "blocked", interrupted=True, **facts)
    score = score_case(case("c", "pass", [interrupted, attempt(2, "pass", entry_share=1.0)]))
    assert (score.hard, score.soft, score.outage, score.blames) == (1.0, 1.0, False, [])
    listed = score_case(
        case("c", "fail", [attempt(1, "pass", interrupted=True), attempt(2, "fail")])
    )
    assert listed.hard == 0.0
