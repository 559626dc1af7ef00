"""The jail interface: what must stay writable, what must vanish, and the argv that enforces it."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class JailSpec:
    """One attempt's view of the filesystem.

    `writable` (the attempt workspace and the agent's home) stay writable; `hidden` (the source
    workspace, the user's home, `runs/`, the scratch root) are replaced by empty read-only
    directories; `tools` (the agent CLI's installation, interpreters on PATH that live under a
    hidden directory) are bound back read-only so the agent still runs.
    """

    workspace: Path
    writable: tuple[Path, ...]
    hidden: tuple[Path, ...] = ()
    tools: tuple[Path, ...] = ()
    private_tmp: tuple[Path, ...] = (Path("/tmp"), Path("/var/tmp"))
    notes: list[str] = field(default_factory=list)


class Jail(ABC):
    """One way of confining the agent. Implementations register with `@register_jail`."""

    name: str
    # The jailed processes have their own pid namespace: `/proc` lists only the attempt's own
    # processes (the CLI, the tracer, the tool calls), never the host's or another attempt's.
    own_pid_namespace: bool = False
    # Directories under /dev the jail gives the attempt its own empty copy of (its /dev/shm).
    private_devices: tuple[Path, ...] = ()

    @abstractmethod
    def unavailable(self) -> str | None:
        """Why this jail cannot run on this machine, or None when it works."""

    @abstractmethod
    def wrap(self, argv: list[str], spec: JailSpec) -> list[str]:
        """The argv that runs `argv` inside the jail, in `spec.workspace`."""
