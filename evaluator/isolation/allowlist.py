"""System locations an agent legitimately touches outside its workspace.

Explicit on purpose: anything not listed here and not inside the workspace is a violation.
Documented in docs/isolation.md.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class AllowRule:
    prefix: str
    accesses: frozenset[str]
    why: str

    def allows(self, path: str, access: str) -> bool:
        inside = path == self.prefix.rstrip("/") or path.startswith(self.prefix)
        return inside and access in self.accesses


_READ = frozenset({"read", "metadata", "list", "exec", "path"})
_ANY = frozenset({"read", "metadata", "list", "exec", "path", "write"})

# Paths that name the agent's own process, not a file: resolving them in the evaluator's
# process would give the evaluator's descriptors (`/proc/self` is the evaluator there).
AGENT_PROCESS_PREFIXES = ("/proc/self/", "/proc/thread-self/", "/dev/fd/", "/dev/std")

SYSTEM_ALLOWLIST: tuple[AllowRule, ...] = (
    AllowRule("/usr/", _READ, "system programs, libraries and data"),
    AllowRule("/bin/", _READ, "the shell and core tools"),
    AllowRule("/sbin/", _READ, "system tools"),
    AllowRule("/lib/", _READ, "shared libraries"),
    AllowRule("/lib64/", _READ, "shared libraries"),
    AllowRule("/etc/ld.so", _READ, "the dynamic loader's cache"),
    AllowRule("/proc/self/fd/", _ANY, "the agent process's own file descriptors"),
    AllowRule("/proc/self/", _READ, "the agent process's own information"),
    AllowRule("/proc/thread-self/", _READ, "the agent thread's own information"),
    AllowRule("/dev/fd/", _ANY, "the agent process's own file descriptors"),
    AllowRule("/dev/null", _ANY, "the null device"),
    AllowRule("/dev/stdin", _ANY, "standard streams"),
    AllowRule("/dev/stdout", _ANY, "standard streams"),
    AllowRule("/dev/stderr", _ANY, "standard streams"),
    AllowRule("/dev/tty", _ANY, "the terminal"),
    AllowRule("/dev/urandom", _READ, "randomness"),
    AllowRule("/dev/random", _READ, "randomness"),
    AllowRule("/dev/zero", _READ, "zero bytes"),
    AllowRule("/dev/full", _ANY, "the always-full device"),
)


def allowed(
    path: str, access: str, rules: tuple[AllowRule, ...] = SYSTEM_ALLOWLIST
) -> AllowRule | None:
    for rule in rules:
        if rule.allows(path, access):
            return rule
    return None
