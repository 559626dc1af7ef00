"""The tracer interface: what a tracer needs to run, how it wraps an attempt's argv, and the log
it writes.

Every tracer writes the log `strace_log.parse_trace` reads (strace's line format: one line per
syscall with its arguments and result, `+++` lines for each process's end), so the attribution
to tool calls and the verdict code are shared by all of them. A tracer that cannot give a fact
the format carries must say so in docs/benchmarks.md ("The eBPF tracer").
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from pathlib import Path


class TraceBackend(ABC):
    """One way of tracing the agent's syscalls. Implementations register with
    `@register_tracer`."""

    name: str
    # Where the tracer stands: inside the jail, wrapping the agent's argv (strace: it then sees
    # the jail's pid namespace and needs no privilege), or outside it, wrapping the jail's argv
    # (a root loader of a kernel program that no unprivileged jail may load).
    outside_jail: bool = False
    # `--tracer auto` takes the highest that can run here (trace_registry.tracers_by_preference).
    preference: int = 0

    @abstractmethod
    def unavailable(self) -> str | None:
        """Why this tracer cannot run on this machine, or None when it works."""

    @abstractmethod
    def wrap(self, argv: list[str], output: Path, start: str) -> list[str]:
        """The argv that runs `argv` traced, writing the log to `output`. `start`: the program
        (as exec'd) whose process is the log's first, the agent CLI; a tracer outside the jail
        begins its log at that exec, so the jail's own set-up is not in it."""

    def tool_roots(self) -> tuple[Path, ...]:
        """Directories the jail must bind back read-only for the tracer to run inside it."""
        return ()
