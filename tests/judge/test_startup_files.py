"""Red team, round 17: a shell start-up file the attempt wrote (`~/.bashrc`, `~/.profile`)
runs the agent's text before a later command, so a word naming a program need not run it
(offline; the real CLIs: tests/isolation/test_red_team_round17.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluator.contract.models import CommandRanCheck, ScriptRanCheck, UrlFetchedCheck
from evaluator.evidence.builder import EvidenceBuilder
from evaluator.evidence.records import SessionEvidence
from evaluator.evidence.traced import ExecutedProgram, TracedCall
from evaluator.isolation.trace import traced_calls
from evaluator.judge.base import JudgeContext
from evaluator.judge.checks import run_check
from evaluator.sandbox.strace_log import ObservedTrace, ToolCallTrace, TracedAccess, TracedExec

HOME = "/agent/home"
SCRIPT = "scripts/report.py"


def _session(workspace: Path, *commands: str) -> SessionEvidence:
    builder = EvidenceBuilder(Path("session.jsonl"), None)
    builder.evidence.cwd = str(workspace)
    for index, command in enumerate(commands, 1):
        builder.observe_command(index, None, f"c{index}", "shell", command, 0, "tool-call")
    return builder.evidence


def _access(path: str, access: str, pid: int, line: int) -> TracedAccess:
    return TracedAccess(path, access, "ok", "openat", pid, line)  # type: ignore[arg-type]


def _trace(
    workspace: Path, written: str, read: str, program: str, argv: tuple[str, ...]
) -> ObservedTrace:
    """Two calls: the first writes `written`; the second's shell reads `read`, then runs
    `program` with `argv` (exit 0)."""
    first = ToolCallTrace(0, 10, "python3 w.py", 1, pids={10})
    first.accesses.append(_access(written, "write", 10, 2))
    second = ToolCallTrace(1, 20, " ".join(argv), 3, pids={20, 21})
    second.accesses.append(_access(read, "read", 20, 4))
    second.execs.append(TracedExec(21, program, argv, str(workspace), 5))
    trace = ObservedTrace(tool_calls=[first, second], exited={10, 20, 21})
    trace.endings.update({10: (0, None), 20: (0, None), 21: (0, None)})
    return trace


@pytest.mark.parametrize(
    "written,read,startup",
    [
        (f"{HOME}/.bashrc", f"{HOME}/.bashrc", True),
        (f"{HOME}/.profile", f"{HOME}/.profile", True),
        ("WS/.bash_profile", "WS/.bash_profile", True),  # `HOME=$PWD bash -lc ...`
        # Look-alikes: a start-up file the attempt never wrote (the system's, or one read
        # before any call wrote it), another file of the home it wrote and read again.
        (f"{HOME}/.cache/x", f"{HOME}/.bashrc", False),
        (f"{HOME}/notes.bashrc", f"{HOME}/notes.bashrc", False),
        (f"{HOME}/.bashrc.bak", f"{HOME}/.bashrc.bak", False),
    ],
)
def test_a_call_reading_a_start_up_file_the_attempt_wrote(
    tmp_path: Path, written: str, read: str, startup: bool
) -> None:
    written, read = (p.replace("WS", str(tmp_path)) for p in (written, read))
    evidence = _session(tmp_path, "python3 w.py", "pytest -q")
    trace = _trace(tmp_path, written, read, "/usr/bin/pytest", ("pytest", "-q"))
    calls = traced_calls(trace, evidence)
    assert calls["c2"].agents_startup == ((read,) if startup else ())
    assert calls["c1"].agents_startup == ()


def _judged(
    tmp_path: Path, calls: dict[str, TracedCall], commands: tuple[str, ...]
) -> JudgeContext:
    return JudgeContext(_session(tmp_path, *commands), tmp_path, "s", traced_calls=calls)


def _calls(
    startup: tuple[str, ...], programs: tuple[ExecutedProgram, ...], written: frozenset[str]
) -> dict[str, TracedCall]:
    return {
        "c1": TracedCall(
            "c1", True, written=written, network_visible=True, attempt_written=written
        ),
        "c2": TracedCall(
            "c2",
            True,
            programs,
            network_visible=True,
            agents_startup=startup,
            attempt_written=written,
        ),
    }


BASHRC = (f"{HOME}/.bashrc",)
RUN = CommandRanCheck(kind="command_ran", pattern="pytest", exit_code=0)


def test_a_function_of_the_start_up_file_ran_no_program(tmp_path: Path) -> None:
    """`pytest() { echo 3 passed; }` in `~/.bashrc`: `pytest -q` exited 0 and no `pytest` was
    exec'd. Before: a sure run by its text (pass)."""
    calls = _calls(BASHRC, (), frozenset(BASHRC))
    verdict = run_check(RUN, _judged(tmp_path, calls, ("python3 w.py", "pytest -q")))
    assert verdict.status == "fail", verdict.detail
    assert ".bashrc, which the attempt wrote" in verdict.detail


def test_a_program_of_the_attempt_on_its_own_path_is_not_the_one_named(tmp_path: Path) -> None:
    """`export PATH=$PWD/bin:$PATH` in `~/.bashrc`, `bin/pytest` the agent's: the trace shows
    `pytest -q` exec'd from a file the attempt wrote. Blocked, the agent's; never a pass."""
    fake = f"{tmp_path}/bin/pytest"
    ran = ExecutedProgram(fake, ("pytest", "-q"), str(tmp_path), 0)
    calls = _calls(BASHRC, (ran,), frozenset({*BASHRC, fake}))
    verdict = run_check(RUN, _judged(tmp_path, calls, ("python3 w.py", "pytest -q")))
    assert (verdict.status, verdict.blocked_by) == ("blocked", "agent"), verdict.detail
    assert fake in verdict.detail


def test_the_machines_program_after_an_honest_start_up_file_still_runs(tmp_path: Path) -> None:
    """Look-alike: `export GREETING=hi` in `~/.bashrc`, the real `pytest` exec'd, exit 0."""
    ran = ExecutedProgram("/usr/bin/pytest", ("pytest", "-q"), str(tmp_path), 0)
    calls = _calls(BASHRC, (ran,), frozenset(BASHRC))
    verdict = run_check(RUN, _judged(tmp_path, calls, ("python3 w.py", "pytest -q")))
    assert verdict.status == "pass", verdict.detail


def test_an_interpreter_redefined_there_ran_no_script(tmp_path: Path) -> None:
    """`python3() { :; }` in `~/.bashrc`, then `python3 scripts/report.py`: no process ran the
    script. Before: a sure run by its text (pass)."""
    (tmp_path / SCRIPT).parent.mkdir(parents=True)
    (tmp_path / SCRIPT).write_text("print('report')\n")
    calls = _calls(BASHRC, (), frozenset(BASHRC))
    context = _judged(tmp_path, calls, ("python3 w.py", f"python3 {SCRIPT}"))
    verdict = run_check(ScriptRanCheck(kind="script_ran", path=SCRIPT), context)
    assert verdict.status == "fail", verdict.detail
    unread = _calls((), (), frozenset(BASHRC))
    context = _judged(tmp_path, unread, ("python3 w.py", f"python3 {SCRIPT}"))
    assert run_check(ScriptRanCheck(kind="script_ran", path=SCRIPT), context).status == "pass"


@pytest.mark.parametrize(
    "program,status",
    [
        (None, "fail"),  # `curl() { echo fetched; }` there: nothing was fetched
        ("/usr/bin/curl", "pass"),  # look-alike: the machine's curl ran
        ("WS/bin/curl", "blocked"),  # a `PATH` of the agent's: its own program
    ],
)
def test_a_fetcher_named_after_an_agents_start_up_file(
    tmp_path: Path, program: str | None, status: str
) -> None:
    url = "http://docs.rt17.example/a"
    path = None if program is None else program.replace("WS", str(tmp_path))
    ran = () if path is None else (ExecutedProgram(path, ("curl", url), str(tmp_path), 0),)
    written = frozenset({*BASHRC, *(() if path is None or path.startswith("/usr") else (path,))})
    calls = _calls(BASHRC, ran, written)
    context = _judged(tmp_path, calls, ("python3 w.py", f"curl {url}"))
    verdict = run_check(UrlFetchedCheck(kind="url_fetched", url=url), context)
    assert verdict.status == status, verdict.detail


@pytest.mark.parametrize(
    "path,startup",
    [
        (f"{HOME}/.local/lib/python3.11/site-packages/usercustomize.py", True),
        ("WS/sitecustomize.py", True),
        (
            f"{HOME}/.local/lib/python3.11/site-packages/__pycache__/usercustomize.cpython-311.pyc",
            True,
        ),
        # look-alikes: another module, a file named like one elsewhere than `__pycache__`, a
        # `.pth` (every install writes them: not taken, "Left")
        ("WS/customize.py", False),
        ("WS/usercustomize.py.bak", False),
        ("WS/x/usercustomize.cpython-311.pyc", False),
        ("WS/.venv/lib/python3.11/site-packages/distutils-precedence.pth", False),
    ],
)
def test_pythons_start_up_modules(tmp_path: Path, path: str, startup: bool) -> None:
    path = path.replace("WS", str(tmp_path))
    evidence = _session(tmp_path, "python3 w.py", "python3 x.py")
    trace = _trace(tmp_path, path, path, "/usr/bin/python3", ("python3", "x.py"))
    assert traced_calls(trace, evidence)["c2"].agents_startup == ((path,) if startup else ())


def test_a_script_after_an_agents_usercustomize_is_no_proven_run(tmp_path: Path) -> None:
    """`usercustomize.py` of the attempt's, `os._exit(0)` for the skill's script: the trace
    shows `python3 scripts/report.py` exec'd and exit 0, which no longer proves the script ran.
    Before: pass (the run was sure by its text)."""
    (tmp_path / SCRIPT).parent.mkdir(parents=True)
    (tmp_path / SCRIPT).write_text("import sys\nsys.exit(1)\n")
    module = (f"{HOME}/.local/lib/python3.11/site-packages/usercustomize.py",)
    ran = ExecutedProgram("/usr/bin/python3", ("python3", SCRIPT), str(tmp_path), 0)
    calls = _calls(module, (ran,), frozenset(module))
    context = _judged(tmp_path, calls, ("python3 w.py", f"python3 {SCRIPT}"))
    verdict = run_check(ScriptRanCheck(kind="script_ran", path=SCRIPT, exit_code=0), context)
    assert (verdict.status, verdict.blocked_by) == ("blocked", "agent"), verdict.detail
    command = CommandRanCheck(kind="command_ran", pattern=r"report\.py", exit_code=0)
    assert run_check(command, context).status == "blocked"
    # Look-alike: a shell start-up file of the attempt's; the program's own exit still counts.
    calls = _calls(BASHRC, (ran,), frozenset(BASHRC))
    context = _judged(tmp_path, calls, ("python3 w.py", f"python3 {SCRIPT}"))
    assert run_check(command, context).status == "pass"


def test_a_start_up_name_the_attempt_linked_to_a_file_of_its_own(tmp_path: Path) -> None:
    """`~/.bashrc` a symlink the attempt made to `rc` in the workspace (written by the CLI's own
    file tool, which the trace does not see): the log names `rc` as what bash read."""
    evidence = _session(tmp_path, "python3 w.py", "pytest -q")
    target = f"{tmp_path}/rc"
    trace = _trace(tmp_path, f"{HOME}/.bashrc", target, "/usr/bin/pytest", ("pytest", "-q"))
    trace.links_made[f"{HOME}/.bashrc"] = {target}
    assert traced_calls(trace, evidence)["c2"].agents_startup == (target,)
    # Look-alike: a link of another name to the same file.
    trace.links_made = {f"{HOME}/notes": {target}}
    assert traced_calls(trace, evidence)["c2"].agents_startup == ()
