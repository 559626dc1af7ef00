"""The eBPF tracer's real runs (evaluator/sandbox/ebpf.py): the same commands in the jail under
strace and under eBPF give the reader the same tool calls, and what the eBPF tracer cannot show
whole makes the trace incomplete. Skipped where it cannot load (not root, no BTF, the loader not
built by ./dev setup; `./dev test` installs the tools that build it, so CI runs these). Slow:
real jails and traces, as the other jail and trace tests."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest

from evaluator.agents.process import run_process
from evaluator.sandbox import LaunchPolicy, ObservedTrace, get_tracer, parse_trace
from evaluator.sandbox.ebpf import (
    PER_RUN_ENV,
    EbpfTracer,
    SharedLoader,
    shared_loader,
    stop_shared_loaders,
)
from evaluator.sandbox.registry import get_jail
from evaluator.sandbox.strace_log import shell_script

pytestmark = pytest.mark.slow


def _needs(*tracers: str) -> None:
    for name in tracers:
        why_not = get_tracer(name).unavailable()
        if why_not:
            pytest.skip(f"no {name} tracer here: {why_not}")
    why_not = get_jail("bwrap").unavailable()
    if why_not:
        pytest.skip(f"no jail here: {why_not}")


class _ShellCalls:
    """Every `sh -c SCRIPT` outside a call starts one."""

    helper_images: frozenset[str] = frozenset()
    cli_images: frozenset[str] = frozenset()

    def tool_call(self, image: str, argv: list[str], in_helper: bool) -> tuple[str, str] | None:
        script = shell_script(argv)
        return (script, "shell") if script is not None else None


def _attempt(
    tracer: str, script: str, tmp_path: Path, name: str, env: dict[str, str] | None = None
) -> tuple[list[str], Path, Path, dict[str, str]]:
    """The argv of `script` as a tool call of a Python "agent" in the jail, its log, workspace and
    environment."""
    ws, agent = tmp_path / name / "ws", tmp_path / name / "agent"
    ws.mkdir(parents=True)
    agent.mkdir()
    agent_argv = [
        "/usr/bin/python3",
        "-c",
        f"import subprocess, sys; sys.exit(subprocess.run(['sh', '-c', {script!r}]).returncode)",
    ]
    policy = LaunchPolicy(jail="bwrap", trace=True, tracer=tracer)
    argv, log = policy.wrap(agent_argv, {}, ws, agent)
    assert log is not None
    return argv, log, ws, {"PATH": "/usr/bin:/bin", "HOME": str(agent), **(env or {})}


def _parsed(log: Path, ws: Path) -> ObservedTrace:
    return parse_trace(
        log.read_text(errors="surrogateescape").splitlines(),
        _ShellCalls(),
        start_cwd=str(ws),
        agent_dirs=(str(ws.parent / "agent"),),
    )


def _traced(
    tracer: str,
    script: str,
    tmp_path: Path,
    jail: str = "bwrap",
    env: dict[str, str] | None = None,
) -> tuple[ObservedTrace, int, Path]:
    """`script` as a tool call of a Python "agent", in `jail` under `tracer`."""
    ws, agent = tmp_path / tracer / "ws", tmp_path / tracer / "agent"
    ws.mkdir(parents=True)
    agent.mkdir()
    agent_argv = [
        "/usr/bin/python3",
        "-c",
        f"import subprocess, sys; sys.exit(subprocess.run(['sh', '-c', {script!r}]).returncode)",
    ]
    policy = LaunchPolicy(jail=jail, trace=True, tracer=tracer)
    argv, log = policy.wrap(agent_argv, {}, ws, agent)
    assert log is not None
    done = subprocess.run(
        argv,
        cwd=ws,
        capture_output=True,
        env={"PATH": "/usr/bin:/bin", "HOME": str(agent), **(env or {})},
        timeout=120,
    )
    trace = parse_trace(
        log.read_text(errors="surrogateescape").splitlines(),
        _ShellCalls(),
        start_cwd=str(ws),
        agent_dirs=(str(agent),),
    )
    return trace, done.returncode, ws


# Each kind of fact the reader takes from the log: reads and writes (absolute, relative, through
# a symlink the call made, dirfd-relative), a rename, a mkdir of an existing name, an unlink, a
# network socket, a Unix datagram pair (blind), a connect to a socket file, a process killed by
# a signal, a failed exec, and the exit status.
SCRIPT = r"""
cat /etc/hostname > out.txt; ln -s /etc/passwd l; cat l > /dev/null
mkdir -p a/b; mkdir a 2>/dev/null; cd a; ls b > /dev/null; mv b c; rm -f ../out.txt
python3 -c '
import os, socket
fd = os.open("/etc", os.O_RDONLY)
os.close(os.open("hostname", os.O_RDONLY, dir_fd=fd))
try:
    os.open("no-such-file", os.O_RDONLY, dir_fd=fd)
except OSError:
    pass
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
u = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
try:
    u.connect("/run/nothing-here.sock")
except OSError:
    pass
'
sh -c 'kill -9 $$'
/nonexistent/program 2>/dev/null
exit 3
"""


def _calls(trace: ObservedTrace, ws: Path) -> list[tuple[object, ...]]:
    def local(path: str) -> str:
        return path.replace(str(ws), "WS")

    return [
        (
            call.command,
            sorted({(local(a.path), a.access, a.outcome) for a in call.accesses}),
            sorted(local(e.path) for e in call.execs),
            sorted(local(path) for path in call.failed_execs),
            [(s.peer, s.outcome) for s in call.sockets],
            [(c.peer, c.outcome) for c in call.connects],
            [b.syscall for b in call.blind],
            call.filtered,
            trace.incompleteness(call),
            sorted(str(trace.endings.get(pid)) for pid in call.pids),
        )
        for call in trace.tool_calls
    ]


def test_a_tool_call_reads_the_same_under_strace_and_ebpf(tmp_path: Path) -> None:
    _needs("strace", "ebpf")
    by_strace, code_strace, ws_strace = _traced("strace", SCRIPT, tmp_path)
    by_ebpf, code_ebpf, ws_ebpf = _traced("ebpf", SCRIPT, tmp_path)
    assert (code_strace, code_ebpf) == (3, 3)
    assert (by_ebpf.unparsed, by_ebpf.unattributed) == (0, 0)
    assert by_ebpf.network_traced
    calls = _calls(by_ebpf, ws_ebpf)
    assert calls == _calls(by_strace, ws_strace)
    (call,) = by_ebpf.tool_calls
    seen = {(a.path, a.access, a.outcome) for a in call.accesses}
    # The facts are there, not only equal: the link's target read, a name relative to a
    # descriptor, resolved by the file opened or (failed) by the descriptor's directory.
    assert {
        ("/etc/passwd", "read", "ok"),
        ("/etc/hostname", "read", "ok"),
        ("/etc/no-such-file", "read", "failed"),
    } <= seen
    assert (None, "SIGKILL") in {by_ebpf.endings[pid] for pid in call.pids}


def test_a_path_deeper_than_the_walk_makes_the_trace_incomplete(tmp_path: Path) -> None:
    """The kernel program walks at most 48 components of an opened file's path: a deeper one
    is written as a line the reader cannot parse, so the call is incomplete, never judged on
    a cut path."""
    _needs("ebpf")
    deep = "/".join(["d"] * 60)
    script = f"mkdir -p {deep} && echo x > {deep}/f && cat {deep}/f"
    trace, code, _ = _traced("ebpf", script, tmp_path)
    assert code == 0
    (call,) = trace.tool_calls
    assert trace.unparsed >= 1
    assert "could not be read" in trace.incompleteness(call)


@pytest.mark.parametrize("per_run", ["0", "1"])
def test_records_the_ring_buffer_lost_make_the_trace_incomplete(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, per_run: str
) -> None:
    """With a ring buffer too small for the records (one page, a test-only setting) the kernel
    drops some: the loader says so in the log, every call is incomplete, and it still ends with
    its command (an end among the lost records must not hold it). Also with one loader per run,
    whose ring buffer is made when it starts."""
    _needs("ebpf")
    monkeypatch.setenv(PER_RUN_ENV, per_run)
    monkeypatch.setenv("AGENTIC_EVAL_EBPF_RING_KB", "4")
    stop_shared_loaders()
    script = "for i in $(seq 50); do cat /etc/hostname > /dev/null; done; exit 4"
    try:
        trace, code, _ = _traced("ebpf", script, tmp_path, env={"AGENTIC_EVAL_EBPF_RING_KB": "4"})
    finally:
        stop_shared_loaders()
    assert code == 4
    assert trace.unparsed >= 1
    for call in trace.tool_calls:
        assert trace.incompleteness(call), call.command


# A process that reaches into its own child from a nested pid namespace (as inside Codex's
# sandbox): the pid it names is the namespace's, which the log must translate to its own.
PTRACE_OWN_CHILD = """
import ctypes, os, signal, time
child = os.fork()
if child == 0:
    time.sleep(5)
    os._exit(0)
ctypes.CDLL(None).ptrace(16, child, 0, 0)  # PTRACE_ATTACH
os.kill(child, signal.SIGKILL)
os.waitpid(child, 0)
"""


@pytest.mark.parametrize("tracer", ["strace", "ebpf"])
def test_a_reach_into_its_own_child_from_a_nested_pid_namespace_is_its_own(
    tracer: str, tmp_path: Path
) -> None:
    _needs(tracer)
    script = f"unshare -p -f --mount-proc python3 -c {shlex.quote(PTRACE_OWN_CHILD)}"
    trace, code, _ = _traced(tracer, script, tmp_path, jail="none")
    assert code == 0
    (call,) = trace.tool_calls
    assert [r.syscall for r in call.blind] == []
    assert call.reaches == []  # the child (pid 2 in its namespace) is the call's own
    assert trace.incompleteness(call) == ""


# An exec by a thread other than the process's first: the kernel ends the other threads and the
# exec'ing thread takes the first's pid (strace: `+++ superseded by execve +++`, `<pid changed
# to ...>`). The new image's own accesses and its children must still be the call's.
THREAD_EXEC = """
import os, threading, time
def run():
    os.execv("/bin/sh", ["sh", "-c", "cat /etc/hostname > /dev/null; echo x > from-thread.txt"])
threading.Thread(target=run).start()
time.sleep(10)
"""


def test_an_exec_from_a_thread_reads_the_same_under_strace_and_ebpf(tmp_path: Path) -> None:
    _needs("strace", "ebpf")
    script = f"python3 -c {shlex.quote(THREAD_EXEC)}; exit 5"
    by_strace, code_strace, ws_strace = _traced("strace", script, tmp_path)
    by_ebpf, code_ebpf, ws_ebpf = _traced("ebpf", script, tmp_path)
    assert (code_strace, code_ebpf) == (5, 5)
    assert (by_ebpf.unparsed, by_ebpf.unattributed) == (0, 0)
    (call,) = by_ebpf.tool_calls
    seen = {(a.path, a.access, a.outcome) for a in call.accesses}
    assert {
        ("/etc/hostname", "read", "ok"),
        (str(ws_ebpf / "from-thread.txt"), "write", "ok"),
    } <= seen
    assert "/usr/bin/cat" in {e.path for e in call.execs}
    assert _calls(by_ebpf, ws_ebpf) == _calls(by_strace, ws_strace)


# One loader per run (the default; `AGENTIC_EVAL_EBPF_PER_RUN=0` turns it off; docs/benchmarks.md,
# "One loader per run").
CONCURRENT = (
    "for i in $(seq 30); do cat /etc/hostname > /dev/null; : > mark-{name}-$i; sleep 0.01; done;"
    " exit {code}"
)


def test_two_concurrent_attempts_of_one_loader_each_log_only_their_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two attempts traced at once by the one loader: each log holds its own tool call and the
    files it made, none of the other's, and each attempt exits as its command did."""
    _needs("ebpf")
    monkeypatch.setenv(PER_RUN_ENV, "1")
    started = []
    for name, code in (("first", 3), ("second", 5)):
        argv, log, ws, env = _attempt(
            "ebpf", CONCURRENT.format(name=name, code=code), tmp_path, name
        )
        assert "--attach" in argv
        started.append((name, code, log, ws, subprocess.Popen(argv, cwd=ws, env=env)))
    for name, code, log, ws, proc in started:
        assert proc.wait(timeout=120) == code
        trace = _parsed(log, ws)
        other = "second" if name == "first" else "first"
        assert trace.unparsed == 0
        assert [call.command for call in trace.tool_calls] == [
            CONCURRENT.format(name=name, code=code)
        ]
        text = log.read_text(errors="surrogateescape")
        made = set(re.findall(rf"mark-{name}-\d+", text))
        assert made == {f"mark-{name}-{i}" for i in range(1, 31)}
        assert f"mark-{other}-" not in text
        assert f"exit {5 if name == 'first' else 3}" not in text


def test_a_loader_killed_during_the_attempt_ends_it_incomplete(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The shared loader killed while an attempt runs: the attempt's processes are killed (never
    left running untraced), it exits 70 (the loader's fault), and its log says it is not whole:
    every call incomplete. The next attempt starts a new loader."""
    _needs("ebpf")
    monkeypatch.setenv(PER_RUN_ENV, "1")
    stop_shared_loaders()
    argv, log, ws, env = _attempt("ebpf", "sleep 30; exit 0", tmp_path, "killed")
    server = shared_loader(EbpfTracer().binary)
    assert server is not None and "--attach" in argv
    proc = subprocess.Popen(argv, cwd=ws, env=env)
    # Killed once the log shows the tool call running: its `sleep` exec'd *and* the agent's fork
    # of `sh` returned (on a loaded machine the agent's vfork can return after the sleep's exec,
    # and a log cut between them holds no tool call: the test's flake beside other runs).
    for _ in range(400):
        text = log.read_text(errors="surrogateescape") if log.exists() else ""
        if 'execve("/usr/bin/sleep"' in text and _parsed(log, ws).tool_calls:
            break
        time.sleep(0.05)
    server.process.kill()
    assert proc.wait(timeout=20) == 70
    trace = _parsed(log, ws)
    assert trace.unparsed >= 1
    assert trace.tool_calls
    for call in trace.tool_calls:
        assert trace.incompleteness(call), call.command
    again, log2, ws2, env2 = _attempt("ebpf", "exit 6", tmp_path, "after")
    assert subprocess.run(again, cwd=ws2, env=env2, timeout=120).returncode == 6
    assert _parsed(log2, ws2).unparsed == 0
    assert shared_loader(EbpfTracer().binary) is not server


@pytest.mark.parametrize("ended", ["killed", "socket-gone"])
def test_a_loader_that_no_longer_takes_attempts_is_replaced_for_the_next(
    ended: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A loader killed is not reaped while the kernel detaches its programs, its socket already
    closed: the next attempt, given to it because its process was not reaped, was refused
    ("did not take the attempt: Connection refused", the test above's flake once in three runs
    beside the real-agent rounds). Its look-alike: a loader alive whose socket is gone. Either
    way the next attempt gets a new loader and runs whole."""
    _needs("ebpf")
    monkeypatch.setenv(PER_RUN_ENV, "1")
    stop_shared_loaders()
    server = shared_loader(EbpfTracer().binary)
    assert server is not None
    if ended == "killed":
        server.process.send_signal(signal.SIGKILL)
    else:
        os.unlink(server.socket)
    # At once, as an attempt starting in another thread right then: the killed loader is then
    # not yet reaped (nearly always; once in 15 when the test above's client has ended).
    replacement = shared_loader(EbpfTracer().binary)
    assert replacement is not None and replacement is not server
    argv, log, ws, env = _attempt("ebpf", "exit 6", tmp_path, "next")
    done = subprocess.run(argv, cwd=ws, env=env, timeout=120, capture_output=True, text=True)
    assert done.returncode == 6, done.stderr
    assert _parsed(log, ws).unparsed == 0
    assert shared_loader(EbpfTracer().binary) is replacement
    server.stop()


def test_a_silent_client_does_not_hold_the_loader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A client connected to the loader that sends nothing: the loader takes another attempt and
    follows it to its end while that client is still connected and still unheard, and answers
    it when it speaks. (The loader once waited up to 2 s in that client's first read, no attempt
    starting meanwhile, then dropped it.)"""
    _needs("ebpf")
    monkeypatch.setenv(PER_RUN_ENV, "1")
    server = shared_loader(EbpfTracer().binary)
    assert server is not None
    with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as silent:
        silent.settimeout(30)
        silent.connect(server.socket)
        argv, log, ws, env = _attempt("ebpf", "exit 6", tmp_path, "beside")
        done = subprocess.run(argv, cwd=ws, env=env, timeout=120, capture_output=True, text=True)
        assert done.returncode == 6, done.stderr
        assert _parsed(log, ws).tool_calls
        silent.send(b"\0")
        assert silent.recv(1) == b"P"


def test_a_timeout_of_an_attempt_under_one_loader_kills_its_tree_and_keeps_its_log_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The runner's timeout (SIGTERM to the attempt's group, then SIGKILL) under the one loader:
    the client tells the loader to stop, every process of the attempt is killed (one that left
    the group too), and the log is whole: no line saying the loader went away, which a client
    told `D` before it reaped its command once took for the loader's death."""
    _needs("ebpf")
    monkeypatch.setenv(PER_RUN_ENV, "1")
    # Durations of this test process only: another run of this test beside it (another
    # worktree's, CI's) leaves its own `sleep 6x` running meanwhile, which a pattern of the
    # plain durations found (the flake beside other traced tests).
    mine = [f"{n}.{os.getpid()}" for n in (60, 61, 62)]
    script = f"sleep {mine[0]} & setsid sleep {mine[1]} & sleep {mine[2]}"
    argv, log, ws, env = _attempt("ebpf", script, tmp_path, "timeout")
    assert "--attach" in argv
    outcome = run_process(
        argv,
        cwd=ws,
        env=env,
        stdin_text="",
        stdout_path=tmp_path / "stdout",
        stderr_path=tmp_path / "stderr",
        timeout_s=3,
    )
    assert outcome.timed_out
    assert outcome.exit_code != 70, (tmp_path / "stderr").read_text()
    text = log.read_text(errors="surrogateescape")
    assert "?!" not in text
    assert text.count("+++ killed by") >= 3
    pattern = "^sleep (" + "|".join(re.escape(m) for m in mine) + ")$"
    left = subprocess.run(["pgrep", "-f", pattern], capture_output=True, text=True)
    assert left.stdout == ""


def test_the_one_loader_outlives_the_thread_that_started_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The loader is the process's, not its first attempt's worker thread's: started from a
    thread that then ends, it still traces the next attempt (it once ended with that thread, so
    every run's loader was started again)."""
    _needs("ebpf")
    monkeypatch.setenv(PER_RUN_ENV, "1")
    stop_shared_loaders()
    started: list[SharedLoader | None] = []
    worker = threading.Thread(target=lambda: started.append(shared_loader(EbpfTracer().binary)))
    worker.start()
    worker.join()
    time.sleep(0.5)
    assert started[0] is not None and started[0].alive()
    argv, log, ws, env = _attempt("ebpf", "exit 7", tmp_path, "after-thread")
    assert subprocess.run(argv, cwd=ws, env=env, timeout=120).returncode == 7
    assert shared_loader(EbpfTracer().binary) is started[0]
    assert _parsed(log, ws).tool_calls


def test_a_traced_process_cannot_begin_an_attempt_of_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tool call that finds the one loader's socket (here without the jail, where it is within
    reach) and runs the loader's client with a log of its own: refused, so its commands cannot
    move out of its attempt's log into a log it names (which the root loader would write)."""
    _needs("ebpf")
    monkeypatch.setenv(PER_RUN_ENV, "1")
    binary = EbpfTracer().binary
    server = shared_loader(binary)
    assert server is not None
    stolen = tmp_path / "stolen.log"
    script = (
        f"{shlex.quote(binary)} --attach {shlex.quote(server.socket)} -o {shlex.quote(str(stolen))}"
        " --start /bin/sh -- /bin/sh -c 'cat /etc/hostname > /dev/null'; echo after $?"
    )
    trace, code, _ = _traced("ebpf", script, tmp_path, jail="none")
    assert code == 0
    assert not stolen.exists()
    assert [call.command for call in trace.tool_calls] == [script]
    assert "/etc/hostname" not in {a.path for call in trace.tool_calls for a in call.accesses}


def test_a_stopped_loader_holds_no_other_attempt_behind_its_question(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A loader stopped (SIGSTOP) answers no "do you take attempts?": the asker waits its
    timeout and keeps it (slow is no proof of death). That question was asked under the lock of
    the shared loaders, so four attempts starting together waited one after another, the last
    four timeouts; now only the asker waits, once, and the others take the loader at once."""
    _needs("ebpf")
    monkeypatch.setenv(PER_RUN_ENV, "1")
    monkeypatch.setattr("evaluator.sandbox.ebpf.ASK_TIMEOUT_S", 2)
    stop_shared_loaders()
    server = shared_loader(EbpfTracer().binary)
    assert server is not None
    server.process.send_signal(signal.SIGSTOP)
    waited: list[float] = []
    got: list[object] = []

    def start() -> None:
        began = time.monotonic()
        got.append(shared_loader(EbpfTracer().binary))
        waited.append(time.monotonic() - began)

    try:
        workers = [threading.Thread(target=start) for _ in range(4)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(timeout=60)
    finally:
        server.process.send_signal(signal.SIGCONT)
    assert got == [server] * 4  # a slow loader is still the one
    assert max(waited) < 2 + 1.5, waited  # one timeout at most, never four in a row
    stop_shared_loaders()


# Code the attempt wrote, mapped into a program of the machine (red team 19): a library it
# built preloaded (named `notes.txt`: the name says nothing), and code in a memfd mapped by
# Python; the machine's own libraries are mapped too, and a heap's anonymous mappings.
CODE_MAPS = r"""
printf '#include <unistd.h>\n__attribute__((constructor)) static void c(void) { _exit(0); }\n' > e.c
gcc -shared -fPIC -o notes.txt e.c
LD_PRELOAD=$PWD/notes.txt python3 -c 'import sys; sys.exit(1)'
python3 -c '
import mmap, os
fd = os.memfd_create("code")
os.write(fd, b"\xc3" * 4096)
mmap.mmap(fd, 4096, prot=mmap.PROT_READ | mmap.PROT_EXEC)
'
"""


def test_code_mapped_by_a_tool_call_reads_the_same_under_strace_and_ebpf(tmp_path: Path) -> None:
    _needs("strace", "ebpf")
    if shutil.which("gcc") is None:
        pytest.skip("no gcc here")
    seen = {}
    for tracer in ("strace", "ebpf"):
        trace, code, ws = _traced(tracer, CODE_MAPS, tmp_path)
        assert code == 0
        assert (trace.unparsed, trace.unattributed) == (0, 0)
        (call,) = trace.tool_calls
        maps = {a.path.replace(str(ws), "WS") for a in call.code_maps}
        assert "WS/notes.txt" in maps
        assert any("libc.so" in path for path in maps)  # the machine's, mapped as code too
        # The memfd: strace names it `/memfd:code`, the kernel program a file of no path.
        assert {path for path in maps if not path.startswith(("/usr/", "/lib", "WS/"))} in (
            {"/memfd:code"},
            {"anon_inode"},
        )
        seen[tracer] = {p for p in maps if p.startswith("WS/")}
    assert seen["strace"] == seen["ebpf"]
