"""System locations an agent legitimately touches outside its workspace.

Explicit on purpose: anything not listed here and not inside the workspace is a violation.
Documented in docs/isolation.md.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path


@dataclass(frozen=True)
class AllowRule:
    prefix: str
    accesses: frozenset[str]
    why: str
    # Exact: this one file, nothing below it. Every device and every /proc entry is exact: a
    # prefix there would contain a door (`/proc/self/` holds `root`, the whole filesystem).
    exact: bool = False
    # Directories below the prefix the rule does not cover (private keys under `/etc/ssl/`).
    excluded: tuple[str, ...] = ()

    def allows(self, path: str, access: str) -> bool:
        if self.exact:
            inside = path == self.prefix
        else:
            inside = path == self.prefix.rstrip("/") or path.startswith(self.prefix)
        if any(path == below or path.startswith(below + "/") for below in self.excluded):
            return False
        return inside and access in self.accesses


_READ = frozenset({"read", "metadata", "list", "exec", "path"})
_ANY = frozenset({"read", "metadata", "list", "exec", "path", "write"})

SYSTEM_ALLOWLIST: tuple[AllowRule, ...] = (
    AllowRule("/usr/", _READ, "system programs, libraries and data"),
    AllowRule("/bin/", _READ, "the shell and core tools"),
    AllowRule("/sbin/", _READ, "system tools"),
    AllowRule("/lib/", _READ, "shared libraries"),
    AllowRule("/lib64/", _READ, "shared libraries"),
    # Software installed by hand or by a vendor's installer (`/opt/ghidra/support/analyzeHeadless`,
    # `/opt/google/chrome`): the FHS's `/usr/local` for whole packages, which a skill's script
    # looks in for a tool it runs (round 20: `ghidra-headless`'s `find /opt /usr/local ...`).
    AllowRule("/opt/", _READ, "add-on software packages"),
    AllowRule("/etc/ld.so", _READ, "the dynamic loader's cache"),
    # The process's own information, by exact name (evaluator/kernelpaths.py spells every
    # `/proc/self`, `/proc/thread-self`, `/proc/self/task/<tid>` path so, and `/dev/stdin`,
    # `/dev/stdout`, `/dev/stderr`, `/dev/fd/0..2` as `/proc/self/fd/0..2`). Everything else
    # below `/proc/self/` is unverifiable, never allowed by a prefix.
    *(
        AllowRule(f"/proc/self/{name}", _READ, "the agent process's own information", exact=True)
        for name in ("status", "stat", "statm", "maps", "cmdline", "comm", "limits", "cgroup")
    ),
    *(
        AllowRule(f"/proc/self/fd/{fd}", _ANY, "the standard streams", exact=True)
        for fd in ("0", "1", "2")
    ),
    AllowRule("/dev/null", _ANY, "the null device", exact=True),
    AllowRule("/dev/tty", _ANY, "the terminal", exact=True),
    AllowRule("/dev/urandom", _READ, "randomness", exact=True),
    AllowRule("/dev/random", _READ, "randomness", exact=True),
    AllowRule("/dev/zero", _READ, "zero bytes", exact=True),
    AllowRule("/dev/full", _ANY, "the always-full device", exact=True),
)


def allowed(
    path: str, access: str, rules: tuple[AllowRule, ...] = SYSTEM_ALLOWLIST
) -> AllowRule | None:
    for rule in rules:
        if rule.allows(path, access):
            return rule
    return None


def excluding(rules: tuple[AllowRule, ...], places: tuple[Path, ...]) -> tuple[AllowRule, ...]:
    """`rules` with `places` below none of them: the source workspace, the eval repo, the user's
    home, the runs and the run's scratch (what the jail hides, `LaunchPolicy.hidden`). An eval
    repo kept under `/opt` or `/usr/local/src` is still no system location: a read of its other
    cases, or of `runs/`, stays outside (round 20)."""
    if not places:
        return rules
    named = tuple(str(place).rstrip("/") for place in places)
    return tuple(
        rule if rule.exact else replace(rule, excluded=(*rule.excluded, *named)) for rule in rules
    )
