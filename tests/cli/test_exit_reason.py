"""A run that exits non-zero says why in its last line."""

from __future__ import annotations

import signal
from types import SimpleNamespace
from typing import Any

from evaluator.cli.run import exit_code, exit_reason
from evaluator.judge.verdict import AssertionResult, CheckVerdict


def _outcome(*statuses: tuple[str, str | None, list[str]], interrupted: bool = False) -> Any:
    results = [
        SimpleNamespace(
            case_id=f"case-{i}",
            status=s,
            blocked_reason=r,
            notes=n,
            attempts=[],
            assertions=[],
            blocked_by=None,
            blocked_cause=None,
        )
        for i, (s, r, n) in enumerate(statuses)
    ]

    def counts() -> dict[str, int]:
        return {k: sum(r.status == k for r in results) for k in ("pass", "fail", "blocked")}

    return SimpleNamespace(
        results=results,
        counts=counts,
        interrupted=interrupted,
        stopped_by_signal=None,
        run_dir=SimpleNamespace(run_id="r1"),
    )


def test_each_non_zero_exit_names_its_cause() -> None:
    passed = ("pass", None, [])
    blocked = ("blocked", "environment", ["DATABASE_URL is not set"])
    assert exit_reason(_outcome(passed), allow_blocked=False) is None
    assert exit_code(_outcome(passed), allow_blocked=False) == 0
    reason = exit_reason(_outcome(passed, blocked), allow_blocked=False)
    assert reason is not None
    assert "1 case blocked" in reason and "case-1: DATABASE_URL is not set" in reason
    assert "--allow-blocked" in reason
    assert exit_reason(_outcome(passed, blocked), allow_blocked=True) is None
    assert exit_reason(_outcome(blocked), allow_blocked=True) == (
        "no case passed: a run that proves nothing does not succeed"
    )
    failed = exit_reason(_outcome(passed, ("fail", None, []), blocked), allow_blocked=True)
    assert failed == "1 case failed: case-1"
    interrupted = exit_reason(_outcome(passed, interrupted=True), allow_blocked=False)
    assert interrupted == "the run was interrupted; resume it with --resume r1"


def test_an_outage_is_exit_3_whatever_else_the_run_holds() -> None:
    """The agent's model or tooling failed on a case: nothing was evaluated there, so the run
    is not a result (exit 3, as `score` has no score), not a blocked case `compare` may pass."""
    passed = ("pass", None, [])
    outage = ("blocked", "environment", ["agent reported an error"])
    run = _outcome(passed, outage, ("fail", None, []))
    run.results[1].blocked_by = "outage"
    for allow_blocked in (False, True):
        assert exit_code(run, allow_blocked=allow_blocked) == 3
        reason = exit_reason(run, allow_blocked=allow_blocked) or ""
        assert reason.startswith("the agent's model or tooling failed on 1 case")
        assert "case-1" in reason
    # an interrupted run stays resumable (exit 1), and the eval's own block stays exit 1
    cut = _outcome(passed, outage, interrupted=True)
    cut.results[1].blocked_by = "outage"
    assert exit_code(cut, allow_blocked=False) == 1
    # stopped by a signal, the shell's code for it (130, 143), whatever its cases were
    for signum, code in ((signal.SIGINT, 130), (signal.SIGTERM, 143)):
        cut.stopped_by_signal = signum
        assert exit_code(cut, allow_blocked=True) == code
    run.results[1].blocked_by = None
    assert exit_code(run, allow_blocked=False) == 1


def test_a_case_blocked_by_a_check_says_what_the_check_said() -> None:
    """Not only `environment`: the command the machine stopped, and why."""
    stopped = CheckVerdict(
        kind="command",
        status="blocked",
        blocked_reason="environment",
        detail="'mvn -q package' exited 1, expected 0, but could not do its work here: Maven"
        " could not reach its repository (no network here) (bwrap jail)",
    )
    passed = CheckVerdict(kind="workspace_file_exists", status="pass", detail="holds pom.xml")
    entries = [
        AssertionResult(summary="pom", status="pass", checks=[passed]),
        AssertionResult(
            summary="builds",
            status="blocked",
            blocked_reason="environment",
            checks=[CheckVerdict(kind="all_of", status="blocked", detail="", checks=[stopped])],
        ),
    ]
    result = SimpleNamespace(
        case_id="eval-1",
        status="blocked",
        blocked_reason="environment",
        notes=[],
        attempts=[],
        blocked_by=None,
        blocked_cause=None,
    )
    result.assertions = entries
    outcome = _outcome()
    outcome.results.append(result)
    reason = exit_reason(outcome, allow_blocked=False)
    assert reason is not None
    assert "eval-1: environment: command: 'mvn -q package' exited 1" in reason
    assert "Maven could not reach its repository" in reason
    # nothing but the reason when no check says more
    result.assertions = []
    assert "eval-1: environment; --allow-blocked" in (exit_reason(outcome, False) or "")


def test_allow_blocked_never_forgives_a_block_the_agent_caused() -> None:
    """`--allow-blocked` exited 0 for a case the agent blocked by leaving its workspace (or by
    timing out): the score counts such a case as not passed, and CI went green (newuser5). It
    forgives only what the eval or the machine caused; the agent's own blocks stay exit 1."""
    passed = ("pass", None, [])
    for cause in ("isolation-violation", "timeout", "agent-unverifiable"):
        escaped = ("blocked", "insufficient-evidence", [f"attempt 01 blocked: {cause}"])
        run = _outcome(passed, escaped)
        run.results[1].blocked_by = "agent"
        run.results[1].blocked_cause = cause
        assert exit_code(run, allow_blocked=True) == 1
        assert exit_reason(run, allow_blocked=True) == (
            f"1 case blocked by the agent's own doing, counted as not passed: case-1: attempt 01"
            f" blocked: {cause}; --allow-blocked accepts only blocks the eval or the machine"
            " caused"
        )
    # The eval's own block beside a pass is still forgiven.
    environment = ("blocked", "environment", ["DATABASE_URL is not set"])
    assert exit_code(_outcome(passed, environment), allow_blocked=True) == 0
