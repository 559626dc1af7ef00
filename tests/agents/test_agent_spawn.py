"""How an agent process is started (`evaluator/agents/process.py`): through `setpriv` where it
works, so the evaluator is `vfork`ed rather than copied, with the same parent-death signal as the
pre-exec hook it replaces; a program that cannot be started fails as it always did."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from evaluator.agents import process
from tests.conftest import ROOT

GONE_TIMEOUT_S = 10.0

# An evaluator of its own (so it can be SIGKILLed) that starts `sleep` through run_process with
# the reaper silenced: only the parent-death signal can then stop the sleep. argv[1] says how.
EVALUATOR = """
import sys
from pathlib import Path
from evaluator.agents import process
process._REAPER.tell = lambda message: None
if sys.argv[1] == "hook":
    process._death_signal_wrapper = lambda: None
out = Path(sys.argv[2])
process.run_process(
    ["sleep", "60"], cwd=out, env={"PATH": "/usr/bin:/bin"}, stdin_text="",
    stdout_path=out / "out", stderr_path=out / "err", timeout_s=120,
)
"""


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(entry.name))
    return found


def _cmdline(pid: int) -> bytes:
    """The process's argv, or nothing once it is gone (a child may end between the listing of
    /proc and the read: the wrapper that execs the agent, a short helper)."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a Linux parent-death signal")
@pytest.mark.parametrize("how", ["wrapper", "hook"])
def test_a_killed_evaluator_takes_its_agent_with_it_without_the_reaper(
    tmp_path: Path, how: str
) -> None:
    if how == "wrapper" and process._death_signal_wrapper() is None:
        pytest.skip("no setpriv with --pdeathsig here")
    evaluator = subprocess.Popen([sys.executable, "-c", EVALUATOR, how, str(tmp_path)], cwd=ROOT)
    agent = None
    try:
        deadline = time.monotonic() + GONE_TIMEOUT_S
        while agent is None and time.monotonic() < deadline:
            for child in _children(evaluator.pid):
                if _cmdline(child).startswith(b"sleep\0"):
                    agent = child
            time.sleep(0.05)
        assert agent is not None, "the agent never ran"
        evaluator.kill()
        evaluator.wait()
        deadline = time.monotonic() + GONE_TIMEOUT_S
        while _alive(agent) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(agent)
    finally:
        if evaluator.poll() is None:
            evaluator.kill()
            evaluator.wait()
        if agent is not None and _alive(agent):
            os.kill(agent, signal.SIGKILL)


def test_the_agent_runs_as_itself_with_its_environment(tmp_path: Path) -> None:
    """The wrapper execs the agent: same pid, same argv, the environment untouched."""
    env = {"PATH": "/usr/bin:/bin", "ODD.NAME": "1", "X": "2"}
    outcome = process.run_process(
        ["sh", "-c", 'cat /proc/$$/cmdline | tr "\\0" " "; echo; env'],
        cwd=tmp_path,
        env=env,
        stdin_text="",
        stdout_path=tmp_path / "out",
        stderr_path=tmp_path / "err",
        timeout_s=30,
    )
    assert outcome.exit_code == 0, (tmp_path / "err").read_text()
    first, *rest = (tmp_path / "out").read_text().splitlines()
    assert first.startswith("sh -c ")
    assert {line.split("=", 1)[0] for line in rest} >= {"PATH", "X"}


def test_a_program_that_cannot_start_fails_as_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "here.sh").write_text("#!/bin/sh\n")
    (tmp_path / "here.sh").chmod(0o700)
    # ./here.sh exists from this process's directory, not from the child's: `NOT_STARTED`.
    for program in ("no-such-agent-cli", str(tmp_path / "missing"), str(tmp_path), "./here.sh"):
        outcome = process.run_process(
            [program],
            cwd=tmp_path / "elsewhere",
            env={"PATH": "/usr/bin:/bin"},
            stdin_text="",
            stdout_path=tmp_path / "out",
            stderr_path=tmp_path / "err",
            timeout_s=30,
        )
        assert outcome.exit_code is None
        assert outcome.error is not None and outcome.error.startswith(process.NOT_STARTED + ":")


def test_the_tools_the_agent_runs_from_are_resolved_only_for_the_trace(tmp_path: Path) -> None:
    """`own_dirs` beyond the agent's directory (its CLI's installation, PATH tools under a hidden
    directory) are read by the trace's verdict alone: an untraced attempt does not resolve them."""
    from evaluator.agents.base import AgentRequest, ModelEndpoint
    from evaluator.agents.launching import start_agent
    from evaluator.sandbox import LaunchPolicy, Tracer

    binary = Path("/bin/true")
    policies = [(LaunchPolicy(), False)]
    if Tracer().unavailable() is None:
        policies.append((LaunchPolicy(trace=True), True))
    for number, (policy, traced) in enumerate(policies):
        agent_dir = tmp_path / f"agent-{number}"
        agent_dir.mkdir()
        request = AgentRequest(tmp_path, agent_dir, "", ModelEndpoint(None), 30, launch=policy)
        handle = start_agent(
            "test",
            request,
            [str(binary)],
            {"PATH": "/usr/bin:/bin"},
            stdin_text="",
            binary=binary,
            agent_home=agent_dir,
            home=agent_dir,
            adapter="codex",
            launched_child=False,
        )
        assert handle.exit_code == 0
        tools = policy.tool_roots(binary, {"PATH": "/usr/bin:/bin"}) if traced else ()
        assert handle.own_dirs == (agent_dir, *tools)
        assert (handle.trace_path is not None) == traced


def test_an_agent_cli_the_kernel_cannot_execute_is_not_started_not_a_crash(
    tmp_path: Path,
) -> None:
    """A CLI that became unstartable after the run's start check (a script whose interpreter is
    gone) is found before the start: no process, no exit code, the fault says so. Under the jail
    the exec used to fail inside bubblewrap, which exited 1: an agent crash blamed on the skill."""
    from evaluator.agents.base import AgentRequest, ModelEndpoint
    from evaluator.agents.launching import start_agent
    from evaluator.sandbox import LaunchPolicy
    from evaluator.sandbox.bwrap import BubblewrapJail

    script = tmp_path / "agent-cli"
    script.write_text("#!/nonexistent/interpreter\n")
    script.chmod(0o755)
    jail = "bwrap" if BubblewrapJail().unavailable() is None else "none"
    agent_dir = tmp_path / "agent"
    agent_dir.mkdir()
    request = AgentRequest(
        tmp_path, agent_dir, "", ModelEndpoint(None), 30, launch=LaunchPolicy(jail=jail)
    )
    handle = start_agent(
        "test",
        request,
        [str(script)],
        {"PATH": "/usr/bin:/bin"},
        stdin_text="",
        binary=script,
        agent_home=agent_dir,
        home=agent_dir,
        adapter="codex",
        launched_child=False,
    )
    assert handle.exit_code is None and not handle.killed
    assert handle.fault == (
        f"{process.NOT_STARTED}: {script}: its interpreter /nonexistent/interpreter"
        " is missing or not executable"
    )


@pytest.mark.parametrize(
    ("text", "mode", "problem"),
    [
        (None, 0o755, "no such file"),
        ("#!/bin/sh\n", 0o644, "not an executable file"),
        (
            "#!/nonexistent/sh\n",
            0o755,
            "its interpreter /nonexistent/sh is missing or not executable",
        ),
        (
            "#!/usr/bin/env no-such-node\n",
            0o755,
            "its interpreter no-such-node (#!/usr/bin/env) is not on PATH",
        ),
        ("#!/bin/sh\n", 0o755, None),
        ("#!/usr/bin/env sh\n", 0o755, None),
    ],
)
def test_start_problem_names_why_the_kernel_would_refuse(
    tmp_path: Path, text: str | None, mode: int, problem: str | None
) -> None:
    program = tmp_path / "cli"
    if text is not None:
        program.write_text(text)
        program.chmod(mode)
    found = process.start_problem(program, "/usr/bin:/bin")
    assert found == (None if problem is None else f"{program}: {problem}")


def test_only_the_attempts_own_home_marks_leftovers(tmp_path: Path) -> None:
    """A stopped agent's leftovers are found by the attempt's HOME only when that HOME is the
    attempt's own (under its agent directory): a runner handing the agent the user's HOME must
    not make a stop kill the user's processes."""
    from evaluator.agents.launching import _attempt_home

    agent_dir = tmp_path / "agent"
    own = agent_dir / "home"
    own.mkdir(parents=True)
    assert _attempt_home({"HOME": str(own)}, agent_dir) == str(own)
    assert _attempt_home({"HOME": str(tmp_path / "user")}, agent_dir) is None
    assert _attempt_home({"HOME": str(agent_dir / ".." / "user")}, agent_dir) is None
    assert _attempt_home({}, agent_dir) is None
