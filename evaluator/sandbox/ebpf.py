"""`ebpf`: a kernel program on the syscall and scheduler tracepoints (evaluator/sandbox/ebpf_c/),
loaded by a root loader that wraps the jail and writes the log strace's reader reads.

No ptrace stop per traced call: the program runs in the traced task and sends records through
one ring buffer to the loader. It needs root (CAP_BPF + CAP_PERFMON), a kernel with BTF, and the
loader built by `./dev setup` (clang, libbpf-dev, bpftool; nothing is compiled at run time).
The default where it can run (`--tracer auto`: no ptrace stop, so the agent's own time is hardly
slowed), strace elsewhere; what it gives differently from strace: docs/benchmarks.md, "The eBPF
tracer".
"""

from __future__ import annotations

import os
import shutil
import subprocess
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
        return [self.binary, "-o", str(output), "--start", program, "--", *argv]
