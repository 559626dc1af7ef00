"""The name of an attempt's saved access trace, by the tracer that wrote it.

Both tracers write strace's line format (`sandbox/strace_log.py`), but the log is the tracer's:
`trace.strace.gz` for strace, `trace.ebpf.gz` for the eBPF loader. Before session 17 every
tracer's log was saved as `trace.strace.gz`, so a reader of a run directory looks for both.
"""

from __future__ import annotations

from pathlib import Path

STRACE_TRACE = "trace.strace.gz"
EBPF_TRACE = "trace.ebpf.gz"
# Every name a saved trace has had, the current ones first.
TRACE_FILES = (EBPF_TRACE, STRACE_TRACE)


def trace_file_name(tracer: str) -> str:
    """The artifact's name for a trace written by `tracer` (`ebpf` or `strace`)."""
    return EBPF_TRACE if tracer == "ebpf" else STRACE_TRACE


def saved_trace(attempt_dir: Path, tracer: str = "strace") -> Path:
    """The attempt's saved trace, under whichever name it was written (an old run's eBPF log is
    `trace.strace.gz`); the name `tracer` gives it when there is none."""
    for name in TRACE_FILES:
        if (attempt_dir / name).is_file():
            return attempt_dir / name
    return attempt_dir / trace_file_name(tracer)
