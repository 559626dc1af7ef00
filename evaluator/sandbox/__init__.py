"""Enforcement and observation around the agent process: a jail (bubblewrap) and a syscall trace.

Jails are a family (base + registry + one module each); the tracer is strace alone. Both only
wrap an argv; the agent runner decides what to run, this package decides how it is contained.
"""

from evaluator.sandbox import bwrap, nojail
from evaluator.sandbox.base import Jail, JailSpec
from evaluator.sandbox.launch import LaunchPolicy, TraceMode
from evaluator.sandbox.registry import get_jail, jail_names, register_jail
from evaluator.sandbox.strace_log import ObservedTrace, ToolCallTrace, TracedAccess, parse_trace
from evaluator.sandbox.tracer import STRACE_ENV, Tracer

__all__ = [
    "STRACE_ENV",
    "Jail",
    "JailSpec",
    "LaunchPolicy",
    "ObservedTrace",
    "ToolCallTrace",
    "TraceMode",
    "TracedAccess",
    "Tracer",
    "bwrap",
    "get_jail",
    "jail_names",
    "nojail",
    "parse_trace",
    "register_jail",
]
