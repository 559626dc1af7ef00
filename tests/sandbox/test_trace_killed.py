"""A process killed by a signal ends in the trace, so the tool call that killed it (an honest
`pkill -f server.py` that stops the server a skill started) is seen whole (docs/isolation.md,
"Real skills with scripts, round 4"; docs/real-repos.md).

strace prints `+++ killed by SIG +++` only for the signals it shows: under `-e signal=none` the
bash that ran `pkill -f src/server/main.py` (its own command line matched) and the server had no
end in the log, the call was never complete, and the opaque `pkill` left an honest attempt
`unverifiable`. A process killed *inside* a call strace printed the start of (a `connect` that
never returned) stays unseen: what that call did is not in the log.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from evaluator.adapters.codex.trace import RECOGNIZER as CODEX_CALLS
from evaluator.sandbox import parse_trace
from evaluator.sandbox.tracer import Tracer

SANDBOX = "/h/codex-linux-sandbox"


def _log(*body: str) -> list[str]:
    head = [
        f'1 execve("{SANDBOX}", ["{SANDBOX}"], 0x1 /* 1 vars */) = 0',
        '1 execve("/bin/bash", ["/bin/bash", "-c", "pkill -f srv; echo x"], 0x1 /* 1 vars */) = 0',
        "1 clone(child_stack=NULL, flags=SIGCHLD) = 2",
        '2 execve("/usr/bin/pkill", ["pkill", "-f", "srv"], 0x1 /* 1 vars */) = 0',
        "2 +++ exited with 0 +++",
    ]
    return [*head, *body]


def test_a_shell_killed_by_its_own_pkill_ends_and_its_call_is_whole() -> None:
    trace = parse_trace(
        _log(
            "1 --- SIGTERM {si_signo=SIGTERM, si_code=SI_USER, si_pid=2} ---",
            "1 +++ killed by SIGTERM +++",
        ),
        CODEX_CALLS,
        start_cwd="/ws",
    )
    (call,) = trace.tool_calls
    assert trace.incompleteness(call) == ""
    assert trace.endings[1] == (None, "SIGTERM")
    assert trace.unparsed == 0  # the delivery line is skipped, not unreadable


def test_killed_inside_a_call_whose_outcome_is_not_shown_is_not_whole() -> None:
    connect = (
        "1 connect(3<socket:[7]>, {sa_family=AF_INET, sin_port=htons(443), "
        'sin_addr=inet_addr("192.0.2.7")}, 16 <unfinished ...>'
    )
    trace = parse_trace(_log(connect, "1 +++ killed by SIGKILL +++"), CODEX_CALLS, start_cwd="/ws")
    (call,) = trace.tool_calls
    why = trace.incompleteness(call)
    assert "ended inside a system call" in why and "connect" in why, why
    # The same call resumed and returned before the end: whole again.
    resumed = "1 <... connect resumed>) = -1 ECONNREFUSED (Connection refused)"
    trace = parse_trace(
        _log(connect, resumed, "1 +++ killed by SIGKILL +++"), CODEX_CALLS, start_cwd="/ws"
    )
    (call,) = trace.tool_calls
    assert trace.incompleteness(call) == ""


def test_a_process_without_an_end_is_still_not_whole() -> None:
    trace = parse_trace(_log(), CODEX_CALLS, start_cwd="/ws")
    (call,) = trace.tool_calls
    assert "never ended in the log" in trace.incompleteness(call)


def test_the_real_tracer_logs_the_end_of_a_process_a_pkill_killed(tmp_path: Path) -> None:
    tracer = Tracer()
    why = tracer.unavailable()
    if why:
        pytest.skip(why)
    marker = f"srv-{tmp_path.name}"
    # A server the call started, stopped by `pkill -f`, which also matches the shell that runs
    # it (its `-c` text names the marker): both are killed by SIGTERM.
    script = (
        f"exec -a {marker} sleep 30 &\n"
        "sleep 0.3\n"
        f'bash -c "pkill -f {marker}; echo unreached" marker-{marker}\n'
        "wait\n"
    )
    (tmp_path / "run.sh").write_text(script)
    log = tmp_path / "trace.log"
    argv = tracer.wrap(["bash", str(tmp_path / "run.sh")], log)
    subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
    lines = log.read_text(errors="replace").splitlines()
    killed = [line for line in lines if "+++ killed by SIGTERM +++" in line]
    assert len(killed) == 2, "\n".join(lines[-15:])
    trace = parse_trace(lines, CODEX_CALLS, start_cwd=str(tmp_path))
    started = {int(line.split()[0]) for line in lines if " execve(" in line}
    assert started <= trace.exited  # every process of the run has its end in the log
