"""Running an agent process in its own process group, with a timeout that kills the whole group."""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import functools
import os
import select
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaluator.agents.start_gate import StartGate

TERM_GRACE_S = 3.0
# The fault of an agent whose CLI the kernel would not execute (`AgentHandle.error`).
NOT_STARTED = "the agent CLI could not be started"
GROUP_POLL_S = 0.05
PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
# Every agent process running, with where it ran: what it left outside its group is found by it.
_ACTIVE: dict[subprocess.Popen[bytes], LeftBehind | None] = {}
_ACTIVE_LOCK = threading.Lock()
# How many times `kill_active` has run: an agent that waited at the start gate through one is
# not started (its run is stopping).
_KILLS = [0]
_REAPER_SCRIPT = Path(__file__).with_name("reaper.py")


class _Reaper:
    """The one reaper process of this evaluator (see reaper.py), started with the first agent."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.proc: subprocess.Popen[bytes] | None = None

    def tell(self, message: str) -> None:
        with self.lock:
            try:
                if self.proc is None or self.proc.poll() is not None:
                    self.proc = subprocess.Popen(
                        [sys.executable, "-I", "-S", str(_REAPER_SCRIPT)],
                        stdin=subprocess.PIPE,
                        stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL,
                        # Not in the evaluator's group or session: a Ctrl-C or a kill of the
                        # evaluator's group must leave it to do its work.
                        start_new_session=True,
                    )
                assert self.proc.stdin is not None
                self.proc.stdin.write(f"{message}\n".encode())
                self.proc.stdin.flush()
            except OSError:
                # No reaper (no interpreter, no pipe): the parent-death signal still applies.
                self.proc = None


_REAPER = _Reaper()


def kill_active() -> int:
    """Kills every agent process group still running (an interrupted run), and what each left
    outside its group; returns how many."""
    with _ACTIVE_LOCK:
        active = list(_ACTIVE.items())
        _KILLS[0] += 1
    for proc, left in active:
        _kill_group(proc, left)
    return len(active)


@dataclass(frozen=True)
class LeftBehind:
    """How to know a process an agent left outside its process group: a tool call's `cmd &`
    (its own session: a CLI may start each command with `setsid`, and a shell's background job
    ignores SIGINT) runs on in the attempt's workspace, or with the attempt's HOME. Without the
    jail's pid namespace and the trace (`_kill_traced`), nothing else ends it."""

    workspace: str
    home: str | None

    def matches(self, entry: Path) -> bool:
        try:
            cwd = os.readlink(entry / "cwd")
        except OSError:
            cwd = ""
        if cwd == self.workspace or cwd.startswith(self.workspace + "/"):
            return True
        if self.home is None:
            return False
        try:
            environ = (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            return False
        return f"HOME={self.home}".encode() in environ

    def kill(self) -> None:
        """SIGKILLs every such process, again until none is left (one may fork meanwhile)."""
        for _ in range(_TRACED_ROUNDS):
            found = [
                int(entry.name)
                for entry in _proc_entries()
                if int(entry.name) != os.getpid() and self.matches(entry)
            ]
            if not found:
                return
            for pid in found:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(GROUP_POLL_S / 5)


@dataclass
class ProcessOutcome:
    exit_code: int | None
    timed_out: bool
    killed: bool
    started_at: float
    ended_at: float
    error: str | None = None
    stopped: bool = False  # `stop_when` said the attempt had seen what it needed
    # When the stop began (`time.monotonic()`, before any signal): whatever of the agent ended
    # later may have ended because it was stopped (a CLI that exits on SIGTERM, with 143 or 0).
    stopped_at: float | None = None


STOP_POLL_S = 0.25  # how often a stop condition is asked while the agent runs


def _kill_group(proc: subprocess.Popen[bytes], left: LeftBehind | None = None) -> None:
    """SIGTERM to the agent's whole process group, then SIGKILL to whatever of it is left after
    the grace. Codex spawns helpers (the node wrapper, the native CLI, sandbox helpers, shells):
    the group outlives its leader when the leader exits first (strace does on SIGTERM, leaving
    the CLI it traced running), so the group, not the leader, is waited for. What the group's
    strace traces is killed first (`_kill_traced`), what it left outside the group (`left`)
    last."""
    _kill_traced(proc.pid)
    deadline = time.monotonic() + TERM_GRACE_S
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        if sig == signal.SIGKILL or _group_gone(proc, deadline):
            break
    with contextlib.suppress(subprocess.TimeoutExpired):  # stuck in the kernel: nothing to do
        proc.wait(timeout=5.0)
    if left is not None:
        left.kill()


def _kill_traced(group: int) -> None:
    """SIGKILLs every process traced by a member of `group` (the attempt's strace), before the
    group is signalled. strace stops on SIGTERM by detaching what it traces, which then goes on
    unseen: a process that left the group (`setsid`, a double fork) would outlive the attempt,
    and one that ignores SIGTERM would have the grace to read and write untraced (red team 7,
    docs/isolation.md). Killed while traced, they do nothing more; the jail's pid namespace
    ends them too, but without the jail this is what does. Linux /proc only; repeated until
    none is left, since one may fork while the others are killed."""
    for _ in range(_TRACED_ROUNDS):
        traced = _traced_by(_group_members(group))
        if not traced:
            return
        for pid in traced:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(GROUP_POLL_S / 5)


_TRACED_ROUNDS = 50


def _proc_entries() -> list[Path]:
    try:
        return [entry for entry in Path("/proc").iterdir() if entry.name.isdigit()]
    except OSError:
        return []


def _group_members(group: int) -> set[int]:
    members: set[int] = set()
    for entry in _proc_entries():
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # `pid (comm) state ppid pgrp ...`: the name may hold spaces and parentheses.
        fields = stat[stat.rfind(")") + 2 :].split()
        if len(fields) > 2 and fields[2] == str(group):
            members.add(int(entry.name))
    return members


def _traced_by(tracers: set[int]) -> list[int]:
    if not tracers:
        return []
    traced: list[int] = []
    for entry in _proc_entries():
        try:
            status = (entry / "status").read_text()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("TracerPid:"):
                if int(line.split()[1]) in tracers:
                    traced.append(int(entry.name))
                break
    return traced


def _group_gone(proc: subprocess.Popen[bytes], deadline: float) -> bool:
    """Waits until no process of `proc`'s group is left (the leader reaped), or the deadline."""
    while True:
        if proc.poll() is not None:
            try:
                os.killpg(proc.pid, 0)
            except ProcessLookupError:
                return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(GROUP_POLL_S)


def kill_processes_mentioning(path: Path) -> int:
    """Kills processes whose command line names `path`: the agents a SIGKILLed evaluator could not
    stop (their workspaces and homes live under the run's scratch directory). Linux /proc only."""
    needle = str(path).encode()
    killed = 0
    for entry in Path("/proc").glob("[0-9]*"):
        pid = int(entry.name)
        if pid == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if needle in cmdline:
            try:
                os.kill(pid, signal.SIGKILL)
                killed += 1
            except (ProcessLookupError, PermissionError):
                continue
    return killed


@functools.cache
def _prctl() -> Any:
    if not sys.platform.startswith("linux"):
        return None
    return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True).prctl


def _parent_death_signal() -> Callable[[], None] | None:
    """A pre-exec hook that makes the kernel send SIGTERM to the agent when the thread that
    started it dies, so even a SIGKILLed evaluator leaves no agent reconnecting behind it.
    SIGTERM, not SIGKILL: `codex` is a node wrapper that forwards SIGTERM to the native binary
    (which takes its sandboxed children with it); a killed wrapper would orphan it. libc is
    looked up in the parent: the hook runs between fork and exec and must only call prctl."""
    prctl = _prctl()
    if prctl is None:
        return None
    parent = os.getpid()

    def hook() -> None:
        prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
        if os.getppid() != parent:
            # The evaluator died between fork and prctl: the signal will never come.
            os._exit(1)

    return hook


@functools.cache
def _death_signal_wrapper() -> tuple[str, ...] | None:
    """`setpriv --pdeathsig TERM --` (util-linux), which sets the same parent-death signal and
    execs the agent, where it works; None elsewhere (the pre-exec hook is used then).

    Why not the hook: a pre-exec hook makes `subprocess` `fork` the whole evaluator instead of
    `vfork`ing, about 3 ms of the attempt's thread, and the copy-on-write faults that follow
    (1,400-1,700 pages in an attempt's thread) land on whatever the evaluator does next. What the wrapper
    gives up is the hook's check that the evaluator was still alive when the signal was set:
    the window is from the exec of setpriv to its prctl (well under a millisecond), in which the
    reaper is told of the agent (`_REAPER.tell`, right after the start) and, for a CLI that
    reads its prompt from stdin, an evaluator gone leaves it an empty prompt."""
    if not sys.platform.startswith("linux"):
        return None
    setpriv = shutil.which("setpriv", path=os.defpath)
    if setpriv is None:
        return None
    wrapper = (setpriv, "--pdeathsig", "TERM", "--")
    try:
        probe = subprocess.run(
            [*wrapper, "true"], capture_output=True, timeout=10, env={"PATH": os.defpath}
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return wrapper if probe.returncode == 0 else None


def _startable(program: str, cwd: Path, env: dict[str, str]) -> bool:
    """Whether `program` would be executed as `subprocess` would look it up (a path from the
    child's directory, a name through the child's PATH): only then may the wrapper run it;
    otherwise the start goes as before and fails there with the same `NOT_STARTED` error, not
    as a wrapper's exit status."""
    if os.sep in program:
        path = os.path.join(cwd, program)
        return os.access(path, os.X_OK) and not os.path.isdir(path)
    return shutil.which(program, path=env.get("PATH", os.defpath)) is not None


def start_problem(program: Path, search_path: str) -> str | None:
    """Why the kernel could not execute `program`, or None: a missing file, one without the
    execute bit, or a script whose `#!` interpreter is missing (`#!/usr/bin/env NAME`: NAME not
    on `search_path`). Under a jail the exec fails inside the wrapper, which exits 1 like an
    agent that crashed; checked before the start, such a failure is the machine's, never the
    skill's (docs/agents.md, "An agent CLI that cannot start")."""
    if not program.exists():
        return f"{program}: no such file"
    if program.is_dir() or not os.access(program, os.X_OK):
        return f"{program}: not an executable file"
    try:
        with program.open("rb") as handle:
            head = handle.readline(256)
    except OSError as exc:
        return f"{program}: cannot be read: {exc.strerror or exc}"
    if not head.startswith(b"#!"):
        return None
    words = head[2:].decode("utf-8", "replace").split()
    if not words:
        return f"{program}: its #! line names no interpreter"
    interpreter = Path(words[0])
    if not os.access(interpreter, os.X_OK) or interpreter.is_dir():
        return f"{program}: its interpreter {interpreter} is missing or not executable"
    named = words[1] if interpreter.name == "env" and len(words) > 1 else "-"
    if not named.startswith("-") and shutil.which(named, path=search_path) is None:
        return f"{program}: its interpreter {named} (#!{interpreter}) is not on PATH"
    return None


def wait_for_exit(
    proc: subprocess.Popen[bytes], timeout_s: float, stop_fd: int | None = None
) -> bool:
    """`proc.wait(timeout)`, woken by the kernel at the exit: Popen's own timed wait polls with
    sleeps growing to 50 ms, which each attempt would pay after its agent exits. Falls back to it
    where pidfds do not exist. With `stop_fd`, also woken when that becomes readable: True then
    (the agent still runs), False once it exited."""
    try:
        pidfd = os.pidfd_open(proc.pid)
    except (AttributeError, OSError):
        return _wait_in_slices(proc, timeout_s, stop_fd)
    try:
        poller = select.poll()
        poller.register(pidfd, select.POLLIN)
        if stop_fd is not None:
            poller.register(stop_fd, select.POLLIN)
        ready = poller.poll(min(max(0, int(timeout_s * 1000)), 2**31 - 1))
        if not ready:
            raise subprocess.TimeoutExpired(proc.args, timeout_s)
        if all(fd != pidfd for fd, _ in ready):
            return True  # an exit at the same moment wins: the agent ended by itself
    finally:
        os.close(pidfd)
    proc.wait()
    return False


def _wait_in_slices(proc: subprocess.Popen[bytes], timeout_s: float, stop_fd: int | None) -> bool:
    """`wait_for_exit` without pidfds: Popen's timed wait, looking at `stop_fd` between slices."""
    if stop_fd is None:
        proc.wait(timeout=timeout_s)
        return False
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            proc.wait(timeout=max(0.0, min(STOP_POLL_S, deadline - time.monotonic())))
            return False
        except subprocess.TimeoutExpired:
            if time.monotonic() >= deadline:
                raise
        if select.select([stop_fd], [], [], 0)[0]:
            return True


def _wait_or_stop(
    proc: subprocess.Popen[bytes],
    deadline: float,
    stop_when: Callable[[], bool],
    stop_fd: int | None = None,
) -> bool:
    """Waits for the exit until `deadline` (raising TimeoutExpired then), asking `stop_when`
    between slices (and woken by `stop_fd`); True when either held before the agent exited."""
    while True:
        left = deadline - time.time()
        if left <= 0:
            raise subprocess.TimeoutExpired(proc.args, left)
        try:
            return wait_for_exit(proc, min(STOP_POLL_S, left), stop_fd)
        except subprocess.TimeoutExpired:
            if time.time() >= deadline:
                raise
        if stop_when():
            return True


def _exited(pid: int) -> bool:
    """Whether child `pid` has exited, without reaping it (the waiting thread does that)."""
    try:
        return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True  # reaped already


def run_process(
    argv: list[str],
    *,
    cwd: Path,
    env: dict[str, str],
    stdin_text: str,
    stdout_path: Path,
    stderr_path: Path,
    timeout_s: float,
    stop_when: Callable[[], bool] | None = None,
    stop_fd: int | None = None,
    start_gate: StartGate | None = None,
    left: LeftBehind | None = None,
) -> ProcessOutcome:
    """`stop_when`: asked every `STOP_POLL_S` while the agent runs; `stop_fd`: readable once the
    agent is to be stopped (waited on with the exit, never polled). Once either holds, the
    agent's process group is stopped and the outcome says `stopped` (not a timeout, not a
    fault). `start_gate`: waited for before the start (the timeout counts from the start), held
    until the process has written its first output or exited (start_gate.py). `left`: how to
    know what the process leaves outside its group, killed with it when it is stopped."""
    with stdout_path.open("wb") as out, stderr_path.open("wb") as err:
        wrapper = _death_signal_wrapper() if argv and _startable(argv[0], cwd, env) else None
        # The slot is taken last before the spawn: nothing between can fail and keep it.
        if start_gate is not None:
            kills = _KILLS[0]
            start_gate.enter()
            if _KILLS[0] != kills:
                start_gate.leave()
                now = time.time()
                return ProcessOutcome(None, False, True, now, now, "stopped before it started")
        started = time.time()
        try:
            proc = subprocess.Popen(
                [*wrapper, *argv] if wrapper else argv,
                cwd=cwd,
                env=env,
                stdin=subprocess.PIPE,
                stdout=out,
                stderr=err,
                start_new_session=True,
                preexec_fn=None if wrapper else _parent_death_signal(),
            )
        except BaseException as exc:
            if start_gate is not None:
                start_gate.leave()
            if not isinstance(exc, OSError):
                raise
            return ProcessOutcome(None, False, False, started, time.time(), f"{NOT_STARTED}: {exc}")
        if start_gate is not None:
            pid = proc.pid
            start_gate.leave_when_started(lambda: _exited(pid) or stdout_path.stat().st_size > 0)
        with _ACTIVE_LOCK:
            _ACTIVE[proc] = left
        _REAPER.tell(f"+{proc.pid}")
        try:
            assert proc.stdin is not None
            try:
                proc.stdin.write(stdin_text.encode("utf-8"))
                proc.stdin.close()
            except BrokenPipeError:
                pass
            if stop_when is not None:
                stop = _wait_or_stop(proc, started + timeout_s, stop_when, stop_fd)
            else:
                stop = wait_for_exit(proc, timeout_s, stop_fd)
            if stop:
                stopped_at = time.monotonic()
                _kill_group(proc, left)
                return ProcessOutcome(
                    proc.returncode,
                    False,
                    True,
                    started,
                    time.time(),
                    stopped=True,
                    stopped_at=stopped_at,
                )
        except subprocess.TimeoutExpired:
            _kill_group(proc, left)
            return ProcessOutcome(proc.returncode, True, True, started, time.time())
        except BaseException:
            # Ctrl-C or a kill of the evaluator: never leave an agent running behind us.
            _kill_group(proc, left)
            raise
        finally:
            with _ACTIVE_LOCK:
                _ACTIVE.pop(proc, None)
            _REAPER.tell(f"-{proc.pid}")
    code = proc.returncode
    killed = code is not None and code < 0 and -code in (signal.SIGKILL, signal.SIGTERM)
    return ProcessOutcome(code, False, killed, started, time.time())
