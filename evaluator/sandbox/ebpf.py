"""`ebpf`: a kernel program on the syscall and scheduler tracepoints (evaluator/sandbox/ebpf_c/),
loaded by a root loader that wraps the jail and writes the log strace's reader reads.

No ptrace stop per traced call: the program runs in the traced task and sends records through
one ring buffer to the loader. It needs root (CAP_BPF + CAP_PERFMON), a kernel with BTF, and the
loader built by `./dev setup` (clang, libbpf-dev, bpftool; nothing is compiled at run time).
The default where it can run (`--tracer auto`: no ptrace stop, so the agent's own time is hardly
slowed), strace elsewhere; what it gives differently from strace: docs/benchmarks.md, "The eBPF
tracer".

One loader per evaluator process (`--serve`, started at the first traced attempt, stopped at the
process's exit) verifies the program and makes its ring buffer once; each attempt's argv is the
loader's small client (`--attach`), which asks it to follow the attempt, then runs the jail:
docs/benchmarks.md, "One loader per run". `AGENTIC_EVAL_EBPF_PER_RUN=0`: a loader per attempt,
as before.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import select
import shutil
import socket
import subprocess
import tempfile
import threading
from functools import cache
from pathlib import Path

from evaluator.sandbox.trace_base import TraceBackend
from evaluator.sandbox.trace_registry import register_tracer

EBPF_ENV = "AGENTIC_EVAL_EBPF_BIN"
LOADER_NAME = "agentic-eval-ebpf-trace"
# Where `./dev setup` (evaluator/sandbox/ebpf_c/build.sh) puts the loader in a checkout.
BUILT = Path(__file__).resolve().parents[2] / ".tools" / "ebpf" / LOADER_NAME
BTF = Path("/sys/kernel/btf/vmlinux")
PROBE_TIMEOUT_S = 60
PER_RUN_ENV = "AGENTIC_EVAL_EBPF_PER_RUN"
READY_TIMEOUT_S = 60  # the program's verification, on a loaded machine
STOP_TIMEOUT_S = 10  # the attempts still traced are killed, their logs closed (3 s at most)
ASK_TIMEOUT_S = 10  # the loop's answer to "do you take attempts?" (a round of its poll, at load)


@cache
def _probe(binary: str) -> str | None:
    """Loads and attaches the program once, and unloads it: the verifier's and the kernel's
    word, not a guess from the kernel's version."""
    try:
        done = subprocess.run(
            [binary, "--probe"], capture_output=True, text=True, timeout=PROBE_TIMEOUT_S
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"the eBPF loader could not start: {exc}"
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or [str(done.returncode)])[-1]
        return f"the eBPF program does not load here: {last}"
    return None


@register_tracer("ebpf")
class EbpfTracer(TraceBackend):
    """The loader, found as $AGENTIC_EVAL_EBPF_BIN or where `./dev setup` built it."""

    outside_jail = True
    preference = 1  # before strace under `--tracer auto`: no ptrace stop per traced call

    def __init__(self) -> None:
        explicit = os.environ.get(EBPF_ENV)
        self.binary = explicit or str(BUILT)
        self.source = f"${EBPF_ENV}" if explicit else "./dev setup's build"

    def unavailable(self) -> str | None:
        if os.geteuid() != 0:
            return "the eBPF tracer needs root (CAP_BPF and CAP_PERFMON); strace does not"
        if not BTF.exists():
            return f"the kernel has no BTF ({BTF}): the eBPF program cannot be loaded"
        if not (os.path.isfile(self.binary) and os.access(self.binary, os.X_OK)):
            return (
                f"the eBPF loader is not built ({self.source}: {self.binary}); ./dev setup builds"
                " it where clang, libbpf-dev and bpftool are installed"
            )
        return _probe(self.binary)

    def wrap(self, argv: list[str], output: Path, start: str) -> list[str]:
        # The log begins at the exec of `start` (the agent CLI), by its real path: the loader
        # compares both the path as exec'd and its resolution.
        program = start if "/" in start else (shutil.which(start) or start)
        traced = ["-o", str(output), "--start", program, "--", *argv]
        if os.environ.get(PER_RUN_ENV, "1") != "0":
            server = shared_loader(self.binary)
            if server is not None:
                return [self.binary, "--attach", server.socket, *traced]
        # The per-attempt form (also when the shared loader would not start: it then fails the
        # same way here, and the attempt is blocked by its missing log).
        return [self.binary, *traced]


class SharedLoader:
    """One `--serve` loader: the program loaded once, each attempt's client asking it over a Unix
    socket in a private directory to follow that attempt. It ends when its stdin closes: at
    `stop()`, or when this process ends however it ends (the pipe closes with it)."""

    def __init__(self, binary: str) -> None:
        self.directory = tempfile.mkdtemp(prefix="agentic-eval-ebpf-")
        self.socket = os.path.join(self.directory, "loader.sock")
        # Its complaints go to a file: a pipe nobody reads while it runs would fill and stop it.
        self.errors = Path(self.directory) / "loader.err"
        try:
            with self.errors.open("wb") as errors:
                self.process = subprocess.Popen(
                    [binary, "--serve", self.socket],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=errors,
                    close_fds=True,
                )
        except OSError:
            shutil.rmtree(self.directory, ignore_errors=True)
            raise
        # One question at a time: while one is out, another caller takes the loader as taking
        # (the answer a slow loader gets) rather than wait its turn behind it.
        self._asking = threading.Lock()
        assert self.process.stdout is not None
        ready, _, _ = select.select([self.process.stdout], [], [], READY_TIMEOUT_S)
        line = self.process.stdout.readline() if ready else b""
        if line.strip() != b"ready":
            if ready and not line:  # its stdout closed: it is ending, its reason written
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self.process.wait(timeout=READY_TIMEOUT_S)
            why = self.error()
            self.stop()
            raise OSError(f"the shared eBPF loader did not start: {why}")

    def alive(self) -> bool:
        return self.process.poll() is None

    def takes_attempts(self) -> bool:
        """Its loop still answers on its socket. Not reaped is not enough: a loader killed is
        not reaped while its programs are detached, its socket already closed, and an attempt
        given to it then would be refused ("Connection refused") and blocked. Slow to answer
        (a loaded machine, or stopped) counts as taking: the attempts it follows are not ended
        for a guess. A question already out (a stopped loader answers none for ASK_TIMEOUT_S)
        is not asked again: only its asker waits, once."""
        if not self.alive():
            return False
        if not self._asking.acquire(blocking=False):
            return True
        try:
            return self._ask()
        finally:
            self._asking.release()

    def _ask(self) -> bool:
        with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as ask:
            ask.settimeout(ASK_TIMEOUT_S)
            try:
                ask.connect(self.socket)
                ask.send(b"\0")
                # 'P'; a loader built before this question answers 'F' (no start given).
                return len(ask.recv(1)) == 1
            except TimeoutError:
                return True
            except OSError:
                return False

    def error(self) -> str:
        if self.alive():
            return "no answer"
        lines = self.errors.read_text(errors="replace").strip().splitlines()
        return lines[-1] if lines else f"exit {self.process.returncode}"

    def stop(self) -> None:
        """Ends the loader: the attempts it still traces are killed and their logs marked
        incomplete (the loader writes why), the program unloaded with the process."""
        if self.process.stdin is not None and not self.process.stdin.closed:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()
        shutil.rmtree(self.directory, ignore_errors=True)


_shared: dict[tuple[int, str], SharedLoader] = {}
_shared_lock = threading.Lock()


def shared_loader(binary: str) -> SharedLoader | None:
    """This process's shared loader, started at its first use (again if it ended); None when it
    does not start. Per process: a forked worker or a Ray worker starts its own. The question
    whether it still takes attempts is asked without the lock: a stopped loader (SIGSTOP) held
    every other worker's attempt up to ASK_TIMEOUT_S each, one after another."""
    key = (os.getpid(), binary)
    with _shared_lock:
        server = _shared.get(key)
    if server is not None and server.takes_attempts():
        return server
    with _shared_lock:
        current = _shared.get(key)
        if current is not None and current is not server:
            return current  # another thread replaced it meanwhile: a new loader
        _shared.pop(key, None)
        if server is not None:
            server.stop()
        try:
            started = SharedLoader(binary)
        except OSError:
            return None
        _shared[key] = started
        return started


@atexit.register
def stop_shared_loaders() -> None:
    """The run's end: this process's loaders stopped (a forked child never stops its parent's)."""
    with _shared_lock:
        mine = [key for key in _shared if key[0] == os.getpid()]
        servers = [_shared.pop(key) for key in mine]
    for server in servers:
        server.stop()
