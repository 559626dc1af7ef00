"""Enforcement and observation around the agent process: a jail (bubblewrap) and a syscall trace.

Jails are a family (base + registry + one module each), and so are tracers (trace_base +
trace_registry: eBPF in ebpf.py, the default where it loads; strace in tracer.py elsewhere). Both
only wrap an argv; the agent runner decides what to run, this package decides how it is contained.
"""

from evaluator.sandbox import bwrap, ebpf, nojail, tracer
from evaluator.sandbox.base import Jail, JailSpec
from evaluator.sandbox.launch import LaunchPolicy, TraceMode
from evaluator.sandbox.registry import get_jail, jail_names, register_jail
from evaluator.sandbox.strace_log import ObservedTrace, ToolCallTrace, TracedAccess, parse_trace
from evaluator.sandbox.trace_base import TraceBackend
from evaluator.sandbox.trace_registry import (
    DEFAULT_TRACER,
    get_tracer,
    register_tracer,
    tracer_choices,
    tracer_names,
)
from evaluator.sandbox.tracer import STRACE_ENV, Tracer

__all__ = [
    "DEFAULT_TRACER",
    "STRACE_ENV",
    "Jail",
    "JailSpec",
    "LaunchPolicy",
    "ObservedTrace",
    "ToolCallTrace",
    "TraceBackend",
    "TraceMode",
    "TracedAccess",
    "Tracer",
    "bwrap",
    "ebpf",
    "get_jail",
    "get_tracer",
    "jail_names",
    "nojail",
    "parse_trace",
    "register_jail",
    "register_tracer",
    "tracer",
    "tracer_choices",
    "tracer_names",
]
