"""`ran_before` ("runs `A` before `B`") on sessions the real agent CLIs recorded, and on calls
whose order the session does not show (one turn's calls, one command line, no result)."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluator.adapters import normalize_session
from evaluator.contract.models import RanBeforeCheck
from evaluator.evidence.records import SessionEvidence
from evaluator.evidence.traced import ExecutedProgram, TracedCall
from evaluator.judge.base import JudgeContext
from evaluator.judge.checks import run_check
from evaluator.judge.criteria import check_text, compile_sentence, refuse_sentence
from tests.record_sessions import FIXTURES, RUNNERS

CAT = r"\bcat\b"  # the recorded sessions: `cat SKILL.md`, a file write, then `ls migrations`
LS = r"\bls\b"


def _order(first: str, then: str) -> RanBeforeCheck:
    return RanBeforeCheck(kind="ran_before", first=first, then=then)


@pytest.mark.parametrize("runner", RUNNERS)
@pytest.mark.parametrize(
    ("first", "then", "status"),
    [
        (CAT, LS, "pass"),
        (LS, CAT, "fail"),
        (LS, r"\bgit\b", "pass"),  # the later command never ran: the order is not broken
        (r"\bgit\b", LS, "fail"),  # the first never ran
    ],
)
def test_the_recorded_sessions_order_their_commands(
    runner: str, first: str, then: str, status: str, tmp_path: Path
) -> None:
    evidence = normalize_session(FIXTURES / f"{runner}.jsonl")
    verdict = run_check(_order(first, then), JudgeContext(evidence, tmp_path, "s"))
    assert verdict.status == status, verdict.detail


def _session(*calls: tuple[str, str, int, int | None]) -> SessionEvidence:
    """Calls as (call id, command, line of the call, line of its result or None)."""
    evidence = SessionEvidence(session_path="s.jsonl")
    for call_id, command, line, result in calls:
        evidence.add("tool_call", line, call_id=call_id, tool="shell")
        evidence.add(
            "command_observed", line, call_id=call_id, command=command, workdir="/w", exit_code=0
        )
        if result is not None:
            evidence.add("tool_result", result, call_id=call_id, text="ok")
    return evidence


@pytest.mark.parametrize(
    ("calls", "status"),
    [
        # Two calls of one turn, both issued before either result: they may run at once.
        ((("a", "make lint", 5, 8), ("b", "make deploy", 6, 9)), "blocked"),
        ((("a", "make lint", 5, 6), ("b", "make deploy", 7, 8)), "pass"),
        # One command line: the order inside it is not judged.
        ((("a", "make lint && make deploy", 5, 6),), "blocked"),
        # No result of the first call: when it ended is not shown.
        ((("a", "make lint", 5, None), ("b", "make deploy", 7, 8)), "blocked"),
        ((("b", "make deploy", 3, 4), ("a", "make lint", 5, 6)), "fail"),
    ],
)
def test_an_order_the_session_does_not_show_is_blocked(
    calls: tuple[tuple[str, str, int, int | None], ...], status: str, tmp_path: Path
) -> None:
    check = _order(r"\bmake lint\b", r"\bmake deploy\b")
    verdict = run_check(check, JudgeContext(_session(*calls), tmp_path, "s"))
    assert verdict.status == status, verdict.detail


@pytest.mark.parametrize(
    "sentence",
    [
        "Runs `make lint` before `make deploy`.",
        "The agent ran `make lint` before running `make deploy`.",
        "Runs `make lint` prior to `make deploy`.",
    ],
)
def test_an_order_of_two_commands_compiles_to_ran_before(sentence: str) -> None:
    compiled = compile_sentence(sentence)
    assert compiled is not None, refuse_sentence(sentence, "pass_criteria").why
    assert check_text(compiled.check).startswith("ran_before(first=")


@pytest.mark.parametrize(
    "sentence",
    [
        "Never runs `make lint` before `make deploy`.",  # not in that order, or not at all?
        "Runs `make lint` or `ruff` before `make deploy`.",  # which one first?
        "Runs `make lint` before `make deploy` and `make tag`.",
        "Runs `./scripts/check.sh` before `make deploy`.",  # a script runs in many ways
        "Runs `make lint` or equivalent before `make deploy`.",
        # tools called by name may be no shell commands, which is all `ran_before` orders
        "Calls `lookup_order` before `refund_order`.",
        "Runs `make lint` before calling `deploy_tool`.",
    ],
)
def test_an_order_that_is_not_one_command_before_another_refuses(sentence: str) -> None:
    assert compile_sentence(sentence) is None


def test_before_the_answer_stays_the_context_of_a_run() -> None:
    compiled = compile_sentence("Runs `make lint` before answering.")
    assert compiled is not None
    assert check_text(compiled.check).startswith("command_ran(")


def _program(command: str, started: int, ended: int) -> ExecutedProgram:
    argv = tuple(command.split())
    return ExecutedProgram(f"/usr/bin/{argv[0]}", argv, "/w", 0, None, started, ended)


@pytest.mark.parametrize(
    ("calls", "runs", "status"),
    [
        # `A &` returns at once: its call's result is no end of its run; the trace shows it
        # still running when `B` started (before: pass, by the result's line).
        (
            (("a", "make lint > /dev/null 2>&1 &", 5, 6), ("b", "make deploy", 7, 8)),
            {"a": [("make lint", 10, 40)], "b": [("make deploy", 20, 30)]},
            "fail",
        ),
        # One line, `B; A` and `A; B` (before: blocked, which leaves the case out of the score)
        (
            (("a", "make deploy; make lint", 5, 6),),
            {"a": [("make deploy", 10, 15), ("make lint", 16, 20)]},
            "fail",
        ),
        (
            (("a", "make lint; make deploy", 5, 6),),
            {"a": [("make lint", 10, 15), ("make deploy", 16, 20)]},
            "pass",
        ),
        # `A` failed to start (not found): the text calls it run (before: pass)
        (
            (("a", "make lint; make deploy", 5, 6),),
            {"a": [("make deploy", 16, 20)]},
            "fail",
        ),
        # Two calls of one turn, run one after the other (before: blocked)
        (
            (("a", "make lint", 5, 8), ("b", "make deploy", 6, 9)),
            {"a": [("make lint", 10, 12)], "b": [("make deploy", 13, 15)]},
            "pass",
        ),
        (
            (("a", "make lint", 5, 8), ("b", "make deploy", 6, 9)),
            {"a": [("make lint", 10, 16)], "b": [("make deploy", 13, 15)]},
            "fail",
        ),
    ],
)
def test_a_complete_trace_orders_the_runs_themselves(
    calls: tuple[tuple[str, str, int, int | None], ...],
    runs: dict[str, list[tuple[str, int, int]]],
    status: str,
    tmp_path: Path,
) -> None:
    traced = {
        call_id: TracedCall(call_id, True, tuple(_program(*run) for run in programs))
        for call_id, programs in runs.items()
    }
    context = JudgeContext(_session(*calls), tmp_path, "s", traced_calls=traced)
    verdict = run_check(_order(r"\bmake lint\b", r"\bmake deploy\b"), context)
    assert verdict.status == status, verdict.detail
    assert "the trace shows" in verdict.detail


def test_an_incomplete_trace_leaves_the_order_to_the_session(tmp_path: Path) -> None:
    calls = (("a", "make deploy; make lint", 5, 6),)
    programs = (_program("make deploy", 10, 15), _program("make lint", 16, 20))
    traced = {"a": TracedCall("a", False, programs)}
    context = JudgeContext(_session(*calls), tmp_path, "s", traced_calls=traced)
    verdict = run_check(_order(r"\bmake lint\b", r"\bmake deploy\b"), context)
    assert verdict.status == "blocked", verdict.detail


# --------------------------------------------------------------------------- a run by a script

LINT, DEPLOY = r"lint\.py", r"deploy\.py"


def _py(script: str, started: int, ended: int) -> ExecutedProgram:
    return ExecutedProgram("/usr/bin/python3", ("python3", script), "/w", 0, None, started, ended)


def _traced(**calls: list[ExecutedProgram]) -> dict[str, TracedCall]:
    return {call_id: TracedCall(call_id, True, tuple(p)) for call_id, p in calls.items()}


@pytest.mark.parametrize(
    ("calls", "runs", "status"),
    [
        # The agent's `./deploy.sh` runs deploy.py before lint.py ran (before: pass, "no
        # command matching deploy.py ran").
        (
            (("a", "./deploy.sh", 5, 6), ("b", "python3 lint.py", 7, 8)),
            {"a": [_py("deploy.py", 10, 15)], "b": [_py("lint.py", 20, 25)]},
            "fail",
        ),
        # The same script after lint.py ended: the order holds.
        (
            (("b", "python3 lint.py", 5, 6), ("a", "./deploy.sh", 7, 8)),
            {"b": [_py("lint.py", 10, 15)], "a": [_py("deploy.py", 20, 25)]},
            "pass",
        ),
        # lint.py run only by a script (`make lint`, the skill's `check.sh`): a run of it,
        # ordered by the trace (before: fail, "no command matching lint.py ran").
        (
            (("a", "./check.sh", 5, 6), ("b", "python3 deploy.py", 7, 8)),
            {"a": [_py("lint.py", 10, 15)], "b": [_py("deploy.py", 20, 25)]},
            "pass",
        ),
        (
            (("b", "python3 deploy.py", 5, 6), ("a", "./check.sh", 7, 8)),
            {"b": [_py("deploy.py", 10, 15)], "a": [_py("lint.py", 20, 25)]},
            "fail",
        ),
    ],
)
def test_a_run_by_a_script_is_ordered_by_the_trace(
    calls: tuple[tuple[str, str, int, int | None], ...],
    runs: dict[str, list[ExecutedProgram]],
    status: str,
    tmp_path: Path,
) -> None:
    context = JudgeContext(_session(*calls), tmp_path, "s", traced_calls=_traced(**runs))
    verdict = run_check(_order(LINT, DEPLOY), context)
    assert verdict.status == status, verdict.detail
    assert "the trace shows" in verdict.detail or "no command matching" not in verdict.detail


def test_a_script_that_names_b_without_a_trace_leaves_the_order_to_its_owner(
    tmp_path: Path,
) -> None:
    """No trace: what `./deploy.sh` ran is not shown. The agent's script (written in the
    session) is the agent's gap, the skill's own (unchanged since before the agent ran) the
    eval's; one that names nothing matching is no run (the verdict as before)."""
    import hashlib

    workspace = tmp_path / "w"
    workspace.mkdir()
    script = workspace / "deploy.sh"
    script.write_text("#!/bin/sh\npython3 deploy.py\n")
    evidence = _session(("a", "./deploy.sh", 5, 6), ("b", "python3 lint.py", 7, 8))
    evidence.add("file_read_observed", 5, call_id="a", path=str(script), access="exec")
    agents = JudgeContext(evidence, workspace, "s")
    verdict = run_check(_order(LINT, DEPLOY), agents)
    assert (verdict.status, verdict.blocked_by) == ("blocked", "agent"), verdict.detail
    assert "deploy.sh names /deploy\\.py/" in verdict.detail
    digest = hashlib.sha256(script.read_bytes()).hexdigest()
    skills = JudgeContext(evidence, workspace, "s", baseline={"deploy.sh": digest})
    assert run_check(_order(LINT, DEPLOY), skills).blocked_by == "eval"
    # A script run after lint.py ended ran nothing before it.
    later = _session(("b", "python3 lint.py", 5, 6), ("a", "./deploy.sh", 7, 8))
    later.add("file_read_observed", 7, call_id="a", path=str(script), access="exec")
    assert run_check(_order(LINT, DEPLOY), JudgeContext(later, workspace, "s")).status == "pass"
    script.write_text("#!/bin/sh\necho done\n")
    assert run_check(_order(LINT, DEPLOY), agents).status == "pass"


def test_command_ran_counts_a_run_by_a_script_the_trace_saw(tmp_path: Path) -> None:
    """ "Runs deploy.py" and "never runs deploy.py" see a run inside `./deploy.sh` (before: no
    run, so a forbidden "never" was not observed)."""
    from evaluator.contract.models import CommandRanCheck, NotCheck

    evidence = _session(("a", "./deploy.sh", 5, 6))
    ran = CommandRanCheck(kind="command_ran", pattern=DEPLOY)
    traced = JudgeContext(
        evidence, tmp_path, "s", traced_calls=_traced(a=[_py("deploy.py", 10, 15)])
    )
    verdict = run_check(ran, traced)
    assert verdict.status == "pass", verdict.detail
    assert "as a process of the tool call that ran ./deploy.sh" in verdict.detail
    assert run_check(NotCheck(operand=ran), traced).status == "fail"
    exit_one = CommandRanCheck(kind="command_ran", pattern=DEPLOY, exit_code=1)
    assert run_check(exit_one, traced).status == "fail"
    # `grep deploy.py notes` names it without running it.
    grep = ExecutedProgram("/usr/bin/grep", ("grep", "deploy.py", "notes"), "/w", 0, None, 10, 11)
    named = JudgeContext(evidence, tmp_path, "s", traced_calls=_traced(a=[grep]))
    assert run_check(ran, named).status == "fail"


# ------------------------------------------------------------- red team, round 7 (isolation.md)


def test_a_process_only_labelled_like_the_program_is_no_run_of_it(tmp_path: Path) -> None:
    """`exec -a deploy.py true` (or `exec -a lint.py true` before `deploy.py`): the process's
    argv[0] says `deploy.py`, the file it ran is `true`. Before: "ran deploy.py" passed, and a
    label ordered before the real run passed "lint before deploy"."""
    from evaluator.contract.models import CommandRanCheck

    def label(name: str, started: int, ended: int) -> ExecutedProgram:
        return ExecutedProgram("/usr/bin/true", (name,), "/w", 0, None, started, ended)

    evidence = _session(("a", "exec -a deploy.py true", 5, 6))
    ran = CommandRanCheck(kind="command_ran", pattern=DEPLOY)
    labelled = JudgeContext(
        evidence, tmp_path, "s", traced_calls=_traced(a=[label("deploy.py", 10, 11)])
    )
    assert run_check(ran, labelled).status == "fail"
    # the same name exec'd from a directory on PATH is the program itself
    real = ExecutedProgram("/usr/local/bin/deploy.py", ("deploy.py",), "/w", 0, None, 10, 11)
    named = JudgeContext(evidence, tmp_path, "s", traced_calls=_traced(a=[real]))
    assert run_check(ran, named).status == "pass"
    calls = (("a", "exec -a lint.py true", 5, 6), ("b", "python3 deploy.py", 7, 8))
    runs = {"a": [label("lint.py", 10, 11)], "b": [_py("deploy.py", 20, 25)]}
    context = JudgeContext(_session(*calls), tmp_path, "s", traced_calls=_traced(**runs))
    assert run_check(_order(LINT, DEPLOY), context).status == "fail"


def test_a_launcher_running_the_agents_own_program_named_like_the_skills_is_no_run(
    tmp_path: Path,
) -> None:
    """The agent's `./run.sh` runs `python3 t/scripts/deploy.py`, a file the session created,
    named like the skill's `scripts/deploy.py`: no run of it, as the same command line typed
    is none (round 3). Before: "ran scripts/deploy.py" passed. The skill's own script, or a
    copy of it, run the same way is a run."""
    import hashlib

    from evaluator.contract.models import CommandRanCheck

    workspace = tmp_path / "w"
    skill = workspace / ".agents/skills/x/scripts/deploy.py"
    own = workspace / "t/scripts/deploy.py"
    copy = workspace / "c/scripts/deploy.py"
    for path, text in ((skill, "print('deploy')\n"), (own, "print('ok')\n"), (copy, None)):
        path.parent.mkdir(parents=True)
        path.write_text(text if text is not None else skill.read_text())
    baseline = {
        ".agents/skills/x/scripts/deploy.py": hashlib.sha256(skill.read_bytes()).hexdigest()
    }
    evidence = SessionEvidence(session_path="s.jsonl")
    evidence.add("command_observed", 5, call_id="a", command="./run.sh", workdir=str(workspace))
    check = CommandRanCheck(kind="command_ran", pattern=r"scripts/deploy\.py")

    def verdict(script: Path) -> str:
        program = ExecutedProgram(
            "/usr/bin/python3",
            ("python3", str(script.relative_to(workspace))),
            str(workspace),
            0,
            None,
            10,
            11,
        )
        context = JudgeContext(
            evidence, workspace, "s", traced_calls=_traced(a=[program]), baseline=baseline
        )
        return run_check(check, context).status

    assert verdict(own) == "fail"
    assert verdict(skill) == "pass"
    assert verdict(copy) == "pass"
