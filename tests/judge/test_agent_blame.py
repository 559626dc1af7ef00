"""A check the agent itself made undecidable is the agent's (`blocked_by: agent`), and its
attempt counts as not passed; one the eval or the machine left undecided is dropped as before
(red team, round 5: `A &` under Codex turned a failing order into a dropped case)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from evaluator.artifacts.attribution import Blame, attempt_blame, score_run
from evaluator.contract.models import (
    CommandRanCheck,
    RanBeforeCheck,
    ScriptRanCheck,
    UrlFetchedCheck,
)
from evaluator.evidence.records import SessionEvidence
from evaluator.evidence.traced import TracedCall
from evaluator.judge.base import JudgeContext
from evaluator.judge.checks import run_check
from evaluator.judge.checks.logic import combine_all, combine_any, negate
from evaluator.judge.verdict import CheckVerdict, blocked, failed, passed
from tests.artifacts.test_attribution import attempt, case, manifest
from tests.judge.test_consultation import SKILL, _check, _read
from tests.judge.test_url_fetched import DOCS, _commands


def _judge(evidence: SessionEvidence, check: Any, tmp_path: Path) -> CheckVerdict:
    return run_check(check, JudgeContext(evidence, tmp_path / "ws", "s"))


def _session_without_exit_codes(*commands: str) -> SessionEvidence:
    evidence = SessionEvidence(session_path="s.jsonl")
    for n, command in enumerate(commands):
        line = 2 * n + 1
        evidence.add("tool_call", line, call_id=f"c{n}", tool="shell")
        evidence.add("command_observed", line, call_id=f"c{n}", command=command, workdir="/w")
        evidence.add("tool_result", line + 1, call_id=f"c{n}", text="ok")
    return evidence


@pytest.mark.parametrize(
    "first",
    [
        "make lint > /dev/null 2>&1 &",  # a background job (Codex's sandbox kills it)
        "test -f .lint-ok || make lint",  # after `||`: it may not have run
    ],
)
def test_a_first_command_that_may_not_have_run_is_the_agents(first: str, tmp_path: Path) -> None:
    evidence = _commands(tmp_path, first, "make deploy")
    check = RanBeforeCheck(kind="ran_before", first=r"make lint", then=r"make deploy")
    verdict = _judge(evidence, check, tmp_path)
    assert (verdict.status, verdict.blocked_by) == ("blocked", "agent"), verdict.detail


def test_an_exit_code_the_session_did_not_record_is_the_evals(tmp_path: Path) -> None:
    # `A && B` is in doubt only because the call's exit code is unknown: our gap, not a form.
    evidence = _session_without_exit_codes("make build && make lint", "make deploy")
    check = CommandRanCheck(kind="command_ran", pattern=r"make lint")
    verdict = _judge(evidence, check, tmp_path)
    assert (verdict.status, verdict.blocked_by) == ("blocked", "eval"), verdict.detail


@pytest.mark.parametrize(
    ("command", "check"),
    [
        ("make lint &", CommandRanCheck(kind="command_ran", pattern=r"make lint")),
        (
            "if [ -f x ]; then python3 tool.py; fi",
            ScriptRanCheck(kind="script_ran", path="tool.py"),
        ),
        # A construct the analysis cannot see into, naming the script.
        ('eval "$RUN tool.py"', ScriptRanCheck(kind="script_ran", path="tool.py")),
    ],
)
def test_a_run_hidden_by_the_commands_form_is_the_agents(
    command: str, check: Any, tmp_path: Path
) -> None:
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws/tool.py").write_text("print(1)\n")
    verdict = _judge(_commands(tmp_path, command), check, tmp_path)
    assert (verdict.status, verdict.blocked_by) == ("blocked", "agent"), verdict.detail


@pytest.mark.parametrize(
    ("command", "by"),
    [
        ('curl -sL "$DOCS_URL"', "agent"),  # the command line hides the URL
        ("python3 -c 'import urllib.request as u; u.urlopen(u.Request(URL))'", "agent"),
        # a script or program that may fetch: the evidence cannot see into it, whoever wrote it
        ("python3 .agents/skills/docs/scripts/fetch_docs.py", "eval"),
        ("make docs", "eval"),
    ],
)
def test_a_fetch_that_could_have_happened_unseen_is_the_agents_when_its_line_hid_it(
    tmp_path: Path, command: str, by: str
) -> None:
    evidence = _commands(tmp_path, command)
    verdict = _judge(evidence, UrlFetchedCheck(kind="url_fetched", url=DOCS), tmp_path)
    assert (verdict.status, verdict.blocked_by) == ("blocked", by), verdict.detail


def test_a_read_the_session_cannot_measure_stays_the_evals(tmp_path: Path) -> None:
    # The session records no outputs: how much a command showed is ours not to know.
    verdict = _check(tmp_path, [(f"cat {SKILL}", None)], _read(min_share=0.5))
    assert (verdict.status, verdict.blocked_by) == ("blocked", "eval"), verdict.detail


AGENT = blocked("k", "the agent's gap", by="agent")
EVAL = blocked("k", "the eval's gap")
PASS = passed("k", "holds")
FAIL = failed("k", "does not hold")


@pytest.mark.parametrize(
    ("combined", "hidden"),
    [
        # all_of: one gap of the agent's may hide its failure; a pass needs every gap.
        (combine_all("all_of", [AGENT, EVAL]), {"fail"}),
        (combine_all("all_of", [AGENT, PASS]), {"pass", "fail"}),
        (combine_all("all_of", [EVAL, PASS]), set()),
        # any_of: the reverse.
        (combine_any("any_of", [AGENT, EVAL]), {"pass"}),
        (combine_any("any_of", [AGENT, FAIL]), {"pass", "fail"}),
        # not swaps them.
        (negate("not", combine_all("all_of", [AGENT, EVAL])), {"pass"}),
        (negate("not", combine_any("any_of", [AGENT, EVAL])), {"fail"}),
    ],
)
def test_what_the_agents_gaps_may_hide_through_the_logic(
    combined: CheckVerdict, hidden: set[str]
) -> None:
    assert combined.status == "blocked"
    assert combined.agent_may_hide() == hidden
    assert combined.blocked_by == ("agent" if hidden else "eval")


def test_an_entry_is_the_agents_only_when_its_gaps_may_hide_its_failure() -> None:
    from evaluator.contract.models import AssertionEntry
    from evaluator.judge.base import PendingEntry
    from evaluator.judge.entry import entry_result

    entry = AssertionEntry(description="d")

    def judged(polarity: Any, verdicts: list[CheckVerdict]) -> str | None:
        pending = PendingEntry("e", polarity, entry)
        result = entry_result(pending, "checks", verdicts)
        assert result.status == "blocked"
        return result.blocked_by

    assert judged("required", [AGENT, EVAL]) == "agent"  # the agent's check may fail it
    assert judged("required", [combine_any("any_of", [AGENT, EVAL])]) == "eval"
    assert judged("required", [EVAL]) == "eval"
    assert judged("forbidden", [AGENT, EVAL]) == "agent"  # it may hide an observation
    assert judged("forbidden", [combine_all("all_of", [AGENT, EVAL])]) == "eval"


def test_an_attempt_the_agent_made_undecidable_counts_as_not_passed() -> None:
    agents = attempt(1, "blocked", blocked_reason="insufficient-evidence", blocked_by="agent")
    evals = attempt(1, "blocked", blocked_reason="insufficient-evidence", blocked_by="eval")
    assert attempt_blame(agents) == Blame("agent", "agent-unverifiable")
    assert attempt_blame(evals) == Blame("eval", "insufficient-evidence")
    passing = case("easy", "pass", [attempt(1, "pass")])
    hidden = score_run([passing, case("hidden", "blocked", [agents])])
    assert (hidden.hard, hidden.coverage) == (0.5, 1.0)  # in the denominator
    dropped = score_run([passing, case("gap", "blocked", [evals])])
    assert (dropped.hard, dropped.coverage) == (1.0, 0.5)  # left out
    assert "agent-unverifiable 1, counted as not passed" in hidden.headline()


def test_the_report_says_an_entry_was_blocked_by_the_agent() -> None:
    from evaluator.artifacts.report import entry_label
    from evaluator.judge.verdict import AssertionResult

    reason = "insufficient-evidence"
    agents = AssertionResult(
        summary="s", status="blocked", blocked_reason=reason, blocked_by="agent"
    )
    evals = agents.model_copy(update={"blocked_by": "eval"})
    assert entry_label(agents) == "blocked (insufficient-evidence, caused by the agent)"
    assert entry_label(evals) == "blocked (insufficient-evidence)"


@pytest.mark.parametrize(
    ("first", "blocked_by"),
    [("make lint &", "agent"), ("make lint", None)],
)
def test_a_prose_entry_whose_deciding_sentence_the_agent_blocked_is_the_agents(
    first: str, blocked_by: str | None, tmp_path: Path
) -> None:
    """Only one sentence compiles (an order); the other is a judgement no rule makes: with no
    model, the entry is `unclear-rule`. When the agent's background job blocked the order,
    which alone would fail the entry, its failure may hide there: the agent's."""
    from evaluator.judge import judge_case
    from tests.judge.test_judge_chain import _case

    entry = {
        "description": "Lints, then deploys, and says so plainly.",
        "pass_criteria": [
            "Runs `make lint` before `make deploy`.",
            "The final answer explains the rollback in plain words for a reviewer.",
        ],
    }
    evidence = _commands(tmp_path, first, "make deploy")
    judgement = judge_case(_case([entry]), JudgeContext(evidence, tmp_path / "ws", "s"))
    [result] = judgement.entries
    assert (result.status, result.blocked_reason) == ("blocked", "unclear-rule"), result.notes
    assert result.blocked_by == (blocked_by or "eval")
    assert judgement.blocked_by == (blocked_by or "eval")


def test_the_history_keeps_whose_doing_each_block_was(tmp_path: Path) -> None:
    from evaluator.artifacts.rundir import RunDir
    from evaluator.history.record import read_run_rows

    run_dir = RunDir(tmp_path / "run")
    run_dir.path.mkdir()
    run_dir.write_manifest(manifest(["hidden", "gap"], run_state="completed"))
    reason = "insufficient-evidence"
    for case_id, by in (("hidden", "agent"), ("gap", "eval")):
        record = attempt(1, "blocked", blocked_reason=reason, blocked_by=by)
        run_dir.write_case_result(case(case_id, "blocked", [record], blocked_reason=reason))
    rows = read_run_rows(run_dir.path)
    assert {r["case_id"]: r["blame"] for r in rows.cases} == {
        "hidden": "agent:agent-unverifiable",
        "gap": "eval:insufficient-evidence",
    }
    assert {r["case_id"]: r["blocked_by"] for r in rows.attempts} == {
        "hidden": "agent",
        "gap": "eval",
    }
    assert rows.run["hard"] == 0.0  # the agent's gap is in the denominator, the eval's is not
    assert rows.run["coverage"] == 0.5


def test_the_report_and_compare_say_whose_doing_a_blocked_case_is(tmp_path: Path) -> None:
    """A blocked case's status is shown with its side: the report's case table, its failures and
    a comparison's side (before: the reason alone, and a result without attempts was always
    the agent's when its reason was `insufficient-evidence`)."""
    from evaluator.artifacts.report import render_report
    from evaluator.artifacts.rundir import RunDir
    from evaluator.compare.sides import case_side
    from evaluator.history.record import read_run_rows

    reason = "insufficient-evidence"
    evals = case("gap", "blocked", [], blocked_reason=reason, blocked_by="eval")
    agents = case("hidden", "blocked", [], blocked_reason=reason)  # older file: the old rule
    run = manifest(["gap", "hidden"], run_state="completed")
    report = render_report(run, [evals, agents])
    assert "| insufficient-evidence; the eval's, left out |" in report
    assert (
        "### hidden: blocked (insufficient-evidence; the agent's, counted as not passed)" in report
    )
    assert case_side(evals).blocked_text() == "blocked (insufficient-evidence; the eval's)"
    assert (case_side(evals).counted, case_side(agents).counted) == (0, 1)
    run_dir = RunDir(tmp_path / "run")
    run_dir.path.mkdir()
    run_dir.write_manifest(run)
    run_dir.write_case_result(evals)
    run_dir.write_case_result(agents)
    rows = read_run_rows(run_dir.path)
    assert {r["case_id"]: r["blame"] for r in rows.cases} == {
        "gap": "eval:insufficient-evidence",
        "hidden": "agent:insufficient-evidence",
    }


SCRIPT = "python3 .agents/skills/docs/scripts/fetch_docs.py"


def _traced(network: tuple[str, ...] = (), visible: bool = True) -> TracedCall:
    return TracedCall("c1", complete=True, network=network, network_visible=visible)


@pytest.mark.parametrize(
    ("script_call", "by"),
    [
        (_traced(), "agent"),  # seen whole, no network attempt: the script fetched nothing
        (_traced(("socket AF_INET",)), "eval"),  # it made an internet socket
        (_traced(("10.0.0.1:443",)), "eval"),  # it connected
        (_traced(visible=False), "eval"),  # under a seccomp filter (Codex), or an older log
        (TracedCall("c1", complete=False, network_visible=True), "eval"),  # a process lived on
        (None, "eval"),  # no trace
    ],
)
def test_a_skill_script_the_trace_saw_reach_nothing_leaves_the_agents_hidden_fetch(
    tmp_path: Path, script_call: TracedCall | None, by: str
) -> None:
    # The agent hid a fetch (a computed URL) and the skill's script ran too: the script's gap
    # dropped the case; once the trace shows the script tried no network, the agent's stands.
    evidence = _commands(tmp_path, 'curl -sL "$DOCS_URL"', SCRIPT)
    traced = {"c1": script_call} if script_call is not None else None
    fetched = UrlFetchedCheck(kind="url_fetched", host="docs.example.com")
    context = JudgeContext(evidence, tmp_path / "ws", "s", traced_calls=traced)
    verdict = negate("not", run_check(fetched, context))  # "never fetches docs.example.com"
    assert (verdict.status, verdict.blocked_by) == ("blocked", by), verdict.detail


def test_a_script_alone_the_trace_saw_reach_nothing_fetched_nothing(tmp_path: Path) -> None:
    evidence = _commands(tmp_path, SCRIPT)
    context = JudgeContext(evidence, tmp_path / "ws", "s", traced_calls={"c0": _traced()})
    check = UrlFetchedCheck(kind="url_fetched", host="docs.example.com")
    assert run_check(check, context).status == "fail"
    assert negate("not", run_check(check, context)).status == "pass"


@pytest.mark.parametrize(
    ("script_call", "why"),
    [
        (_traced(("10.0.0.1:443",)), "the trace shows it trying the network: 10.0.0.1:443"),
        (_traced(visible=False), "the trace cannot show its network calls"),
        (
            TracedCall("c0", complete=False, network_visible=True, incomplete="pid 7 lived on"),
            "the trace did not see it whole: pid 7 lived on",
        ),
    ],
)
def test_a_block_says_why_the_trace_could_not_rule_the_fetch_out(
    tmp_path: Path, script_call: TracedCall, why: str
) -> None:
    evidence = _commands(tmp_path, SCRIPT)
    context = JudgeContext(evidence, tmp_path / "ws", "s", traced_calls={"c0": script_call})
    verdict = run_check(UrlFetchedCheck(kind="url_fetched", host="docs.example.com"), context)
    assert verdict.status == "blocked"
    assert why in verdict.detail, verdict.detail


@pytest.mark.parametrize(
    ("command", "by"),
    [
        # The host named only to a command that keeps it to itself: `make` is the eval's gap.
        ("grep -n docs.example.com notes.md && make docs", "eval"),
        ("echo https://docs.example.com/x; make docs", "eval"),
        # Named to the program that may fetch, or handed on to it.
        ("make docs URL=https://docs.example.com/x", "agent"),
        ("export URL=https://docs.example.com/x && make docs", "agent"),
        ("echo https://docs.example.com/x > url.txt && make docs", "agent"),
        ("echo https://docs.example.com/x | make docs", "agent"),
        ("cd docs && URL=https://docs.example.com/x make", "agent"),
        ("git remote add up https://docs.example.com/r.git && git fetch up", "agent"),
    ],
)
def test_the_part_of_a_line_that_may_fetch_decides_whether_it_named_the_host(
    tmp_path: Path, command: str, by: str
) -> None:
    evidence = _commands(tmp_path, command)
    check = UrlFetchedCheck(kind="url_fetched", host="docs.example.com")
    verdict = _judge(evidence, check, tmp_path)
    assert (verdict.status, verdict.blocked_by) == ("blocked", by), verdict.detail


def test_a_violating_attempt_is_blocked_by_the_agent(tmp_path: Path) -> None:
    """An attempt that left its workspace is the agent's doing: its record says so
    (`blocked_by: agent`; before, `eval`, while the score blamed the agent through its
    `isolation`, which still decides it: the blame is the same either way)."""
    from typing import cast

    from evaluator.isolation.assess import IsolationReport
    from evaluator.pipeline.attempt import AttemptResult, judge_session
    from evaluator.workspace.builder import AttemptWorkspace

    result = AttemptResult("c", 1, AttemptWorkspace("c", 1, tmp_path), "pass")
    result.evidence = SessionEvidence(session_path="s.jsonl", complete=True)
    result.isolation = IsolationReport("violation", str(tmp_path), reason="read /etc/hostname")
    judge_session(cast(Any, None), cast(Any, None), result, None)
    assert (result.status, result.valid, result.blocked_by) == ("blocked", False, "agent")
    facts = {"blocked_reason": "insufficient-evidence", "isolation": "violation", "valid": False}
    blames = {
        attempt_blame(attempt(1, "blocked", blocked_by=by, **facts)) for by in ("agent", "eval")
    }
    assert blames == {Blame("agent", "isolation-violation")}
