"""The trace as proof of a run the shell text cannot prove (judge/checks/trace_proof.py).

The recorded logs are real: Codex CLI 0.169.0 played the behaviours of
`tests/fixtures/trace_proof/` (and the red team's `command-after-failed-and`) under the default
jail and trace (strace 6.1), and each attempt's `trace.strace.gz` and accepted session were kept
(`tests/fixtures/trace_proof/recorded/`). The real-agent runs of the same behaviours are in
tests/sandbox/test_trace_proof_agents.py.
"""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import pytest

from evaluator.adapters import get_adapter, normalize_session
from evaluator.adapters.codex.trace import RECOGNIZER as CODEX_CALLS
from evaluator.contract.models import Case
from evaluator.evidence import SessionEvidence
from evaluator.evidence.shell import analyze_command
from evaluator.evidence.traced import ExecutedProgram, TracedCall
from evaluator.isolation import assess_isolation
from evaluator.isolation.trace import TraceReport, assess_trace
from evaluator.judge import JudgeContext, judge_case
from evaluator.sandbox import parse_trace
from evaluator.sandbox.strace_log import ObservedTrace

RECORDED = Path(__file__).parents[1] / "fixtures" / "trace_proof" / "recorded"
SCRIPT = ".agents/skills/db-migrations/scripts/new_migration.py"
RAN = {"kind": "command_ran", "pattern": r"new_migration\.py", "exit_code": 0}


def _recorded(name: str, tmp_path: Path) -> tuple[SessionEvidence, ObservedTrace, TraceReport]:
    session = tmp_path / f"{name}.jsonl"
    with gzip.open(RECORDED / f"{name}.session.jsonl.gz") as packed, session.open("wb") as out:
        shutil.copyfileobj(packed, out)
    evidence = normalize_session(session, adapter=get_adapter("codex"))
    workspace = Path(evidence.of_kind("command_observed")[0].workdir or "/")
    with gzip.open(RECORDED / f"{name}.strace.gz", "rt", errors="surrogateescape") as log:
        trace = parse_trace(log, CODEX_CALLS, start_cwd=str(workspace))
    report = assess_trace(trace, evidence, assess_isolation(evidence, workspace), workspace, ())
    return evidence, trace, report


def _status(
    evidence: SessionEvidence, check: dict[str, object], calls: dict[str, TracedCall] | None
) -> tuple[str, str]:
    case = Case.model_validate(
        {
            "case_id": "c",
            "title": "t",
            "input": {"user_prompt": "p"},
            "assert": {"required": [{"description": "d", "checks": [check]}], "forbidden": []},
        }
    )
    workspace = Path(evidence.of_kind("command_observed")[0].workdir or "/")
    context = JudgeContext(
        evidence=evidence,
        workspace=workspace,
        ref_prefix="e.json",
        workspace_available=False,
        traced_calls=calls,
    )
    (entry,) = judge_case(case, context).entries
    return entry.status, entry.checks[0].detail


def _call_of(evidence: SessionEvidence, report: TraceReport, needle: str) -> TracedCall:
    (record,) = [r for r in evidence.of_kind("command_observed") if needle in (r.command or "")]
    assert record.call_id is not None
    return report.calls[record.call_id]


def test_a_real_log_gives_each_call_its_programs_their_directory_and_exit(
    tmp_path: Path,
) -> None:
    """`mkdir -p db && cd db && python3 ../SCRIPT x; echo done`: the script's process, started
    in `db` with the words bash passed, exited 0; `mkdir` too."""
    evidence, trace, report = _recorded("after-cd-then-echo", tmp_path)
    call = _call_of(evidence, report, "cd db")
    assert call.complete
    workspace = evidence.of_kind("command_observed")[0].workdir
    first = [p for p in call.programs if p.argv[:1] == ("python3",)]
    assert [(p.argv, p.cwd, p.exit_code, p.signal) for p in first] == [
        (("python3", f"../{SCRIPT}", "users_email_index"), f"{workspace}/db", 0, None)
    ]
    assert first[0].names(f"{workspace}/{SCRIPT}")
    assert [(p.argv, p.exit_code) for p in call.programs if p.argv[:1] == ("mkdir",)] == [
        (("mkdir", "-p", "db"), 0)
    ]
    # Every process of every call ended in the log, each with its exit code.
    assert all(trace.complete(c) for c in trace.tool_calls)
    assert set(trace.endings) == trace.exited


def test_a_real_log_shows_a_program_that_never_ran(tmp_path: Path) -> None:
    """`ls no-such-directory && python3 SCRIPT x; true`: `ls` failed, python never started."""
    evidence, _, report = _recorded("command-after-failed-and", tmp_path)
    call = _call_of(evidence, report, "no-such-directory")
    assert call.complete
    assert [(p.argv[0], p.exit_code) for p in call.programs] == [("ls", 2)]
    assert not any(SCRIPT in path for path in call.paths)


@pytest.mark.parametrize(
    "name,with_trace,without_trace,proof",
    [
        ("after-cd-then-echo", "pass", "blocked", "the trace shows `python3 ../"),
        ("command-after-failed-and", "fail", "blocked", "shows `python3 " + SCRIPT),
        # Waited for: a sure run by its text, the trace not consulted.
        ("background-waited", "pass", "pass", None),
    ],
)
def test_command_ran_decided_by_the_recorded_trace(
    tmp_path: Path, name: str, with_trace: str, without_trace: str, proof: str | None
) -> None:
    evidence, _, report = _recorded(name, tmp_path)
    status, detail = _status(evidence, RAN, report.calls)
    assert status == with_trace
    assert (proof in detail) if proof else "trace" not in detail
    assert _status(evidence, RAN, None)[0] == without_trace


@pytest.mark.parametrize(
    "name,with_trace",
    [("after-cd-then-echo", "pass"), ("command-after-failed-and", "fail")],
)
def test_script_ran_decided_by_the_recorded_trace(
    tmp_path: Path, name: str, with_trace: str
) -> None:
    evidence, _, report = _recorded(name, tmp_path)
    check = {"kind": "script_ran", "path": SCRIPT, "exit_code": 0}
    status, detail = _status(evidence, check, report.calls)
    assert status == with_trace
    assert "trace" in detail
    assert _status(evidence, check, None)[0] == "blocked"


def test_a_process_killed_by_a_signal_ends_so_in_the_trace() -> None:
    """strace's `+++ killed by SIGTERM +++` (printed for the signals the tracer shows)."""
    sandbox = "/h/codex-linux-sandbox"
    log = f"""\
1 execve("{sandbox}", ["{sandbox}"], 0x1 /* 1 vars */) = 0
1 execve("/bin/bash", ["/bin/bash", "-c", "python3 x.py & kill $!"], 0x1 /* 1 vars */) = 0
1 clone(child_stack=NULL, flags=SIGCHLD) = 2
2 execve("/usr/bin/python3", ["python3", "x.py"], 0x1 /* 1 vars */) = 0
1 +++ exited with 0 +++
2 +++ killed by SIGTERM +++
"""
    trace = parse_trace(log.splitlines(), CODEX_CALLS, start_cwd="/ws")
    (call,) = trace.tool_calls
    assert trace.complete(call)
    assert trace.endings == {1: (0, None), 2: (None, "SIGTERM")}
    (started,) = call.execs
    assert (started.argv, started.cwd) == (("python3", "x.py"), "/ws")


def _evidence(command: str, exit_code: int = 0) -> SessionEvidence:
    evidence = SessionEvidence(session_path="s.jsonl", complete=True, final_answer="done")
    evidence.add(
        "command_observed", 3, command=command, workdir="/ws", exit_code=exit_code, call_id="c1"
    )
    evidence.add(
        "file_read_observed",
        3,
        path="/ws/x.py",
        access="exec",
        source="shell-parse",
        call_id="c1",
    )
    evidence.add("final_answer", 5, text="done")
    return evidence


def _ran(
    *argv: str, path: str = "/usr/bin/python3", cwd: str = "/ws", **end: object
) -> ExecutedProgram:
    return ExecutedProgram(path, argv, cwd, **end)  # type: ignore[arg-type]


PY = ("python3", "x.py")
RAN_X = {"kind": "command_ran", "pattern": r"x\.py", "exit_code": 0}


@pytest.mark.parametrize(
    "command,programs,complete,expected,why",
    [
        # ran, and exited: the process's own exit code decides `exit_code`
        (
            "false || python3 x.py; echo",
            [_ran(*PY, exit_code=0)],
            True,
            "pass",
            "ran and exited with 0",
        ),
        ("false || python3 x.py; echo", [_ran(*PY, exit_code=3)], True, "fail", "exited with 3"),
        # killed before its end, or its end unseen: no proof either way
        (
            "python3 x.py & kill $!",
            [_ran(*PY, signal="SIGTERM")],
            True,
            "blocked",
            "killed by SIGTERM",
        ),
        ("python3 x.py & kill $!", [_ran(*PY)], True, "blocked", "not how it ended"),
        # never exec'd in a call the trace saw whole
        (
            "false && python3 x.py; true",
            [_ran("false", path="/usr/bin/false", exit_code=1)],
            True,
            "fail",
            "never ran",
        ),
        # ... but not seen whole: the trace cannot tell
        ("false && python3 x.py; true", [], False, "blocked", "does not show this tool call whole"),
        # the words, but another program (`exec -a python3 true x.py`): no proof
        (
            "false || python3 x.py; exec -a python3 true x.py",
            [_ran(*PY, path="/usr/bin/true", exit_code=0)],
            True,
            "blocked",
            "cannot tell",
        ),
        # the words, but another script file (run from elsewhere): no proof
        (
            "false || python3 x.py; echo",
            [_ran(*PY, cwd="/ws/other", exit_code=0)],
            True,
            "blocked",
            "cannot tell",
        ),
    ],
)
def test_command_ran_from_the_trace_facts(
    command: str, programs: list[ExecutedProgram], complete: bool, expected: str, why: str
) -> None:
    evidence = _evidence(command)
    calls = {"c1": TracedCall("c1", complete, tuple(programs))}
    status, detail = _status(evidence, RAN_X, calls)
    assert (status, why in detail) == (expected, True), detail
    # Without a trace (or a call the trace did not match), as before: blocked.
    assert _status(evidence, RAN_X, None)[0] == "blocked"
    assert _status(evidence, RAN_X, {})[0] == "blocked"


def test_a_builtin_that_never_execs_is_not_disproven_by_the_trace() -> None:
    """`source x.sh` runs without an exec: its absence from a complete trace proves nothing."""
    evidence = _evidence("false || source x.sh; true")
    check = {"kind": "command_ran", "pattern": r"x\.sh"}
    calls = {"c1": TracedCall("c1", True, ())}
    status, detail = _status(evidence, check, calls)
    assert status == "blocked", detail


def test_words_the_analysis_could_not_expand_are_not_disproven() -> None:
    evidence = _evidence('false || python3 x.py "$ARG"; true')
    check = {"kind": "command_ran", "pattern": r"x\.py"}
    calls = {"c1": TracedCall("c1", True, ())}
    assert _status(evidence, check, calls)[0] == "blocked"


def test_the_trace_does_not_overturn_a_run_the_text_calls_sure() -> None:
    """Decided: a sure run stays a run (docs/criteria.md): the call's exit code already reports
    a program that could not start (127), and a call the trace did not match is no evidence."""
    evidence = _evidence("python3 x.py")
    calls = {"c1": TracedCall("c1", True, ())}
    status, detail = _status(evidence, RAN_X, calls)
    assert status == "pass" and "trace" not in detail


def test_script_ran_never_opened_is_no_run() -> None:
    evidence = _evidence("false && python3 x.py; true")
    check = {"kind": "script_ran", "path": "x.py"}
    never = {"c1": TracedCall("c1", True, (_ran("false", path="/usr/bin/false", exit_code=1),))}
    status, detail = _status(evidence, check, never)
    assert status == "fail" and "never ran" in detail
    # Opened (read) but not exec'd: maybe run another way; undecided.
    read = {"c1": TracedCall("c1", True, (), frozenset({"/ws/x.py"}))}
    assert _status(evidence, check, read)[0] == "blocked"
    ran = {"c1": TracedCall("c1", True, (_ran(*PY, exit_code=0),), frozenset({"/ws/x.py"}))}
    status, detail = _status(evidence, check, ran)
    assert status == "pass" and "the trace shows" in detail


@pytest.mark.parametrize(
    "command,surely",
    [
        ("python3 x.py & kill $!", False),
        ("python3 x.py &", False),
        ("python3 x.py & sleep 1; wait", False),  # something ran before the wait
        ("(python3 x.py &); wait", False),  # in a subshell that does not wait
        ("python3 x.py & wait", True),
        ("python3 x.py & wait $!", True),
        ("{ python3 x.py; } & wait", True),
        ("python3 x.py", True),
    ],
)
def test_a_background_job_surely_ran_only_when_waited_for_at_once(
    command: str, surely: bool
) -> None:
    (python,) = [i for i in analyze_command(command, "/ws").invocations if i.words == PY]
    assert python.surely_ran(0) is surely
