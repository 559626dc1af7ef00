"""`bwrap`: bubblewrap around the agent CLI.

The whole filesystem is bound read-only, `/tmp` and `/var/tmp` are private tmpfs, the hidden
directories become empty read-only tmpfs, and only the attempt workspace and the agent's home are
bound back writable. The network namespace is shared on purpose: the agent must reach its model
(our scripted server listens on 127.0.0.1). docs/isolation.md explains how it nests with Codex's
own bubblewrap sandbox.
"""

from __future__ import annotations

import shutil
import subprocess
from functools import cache
from pathlib import Path

from evaluator.sandbox.base import Jail, JailSpec
from evaluator.sandbox.registry import register_jail

PROBE_TIMEOUT_S = 20


def _under(path: Path, roots: tuple[Path, ...] | list[Path]) -> bool:
    return any(path == root or root in path.parents for root in roots)


@cache
def _probe(binary: str) -> str | None:
    argv = [binary, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
    argv += ["--unshare-pid", "--die-with-parent", "true"]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=PROBE_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bubblewrap could not start: {exc}"
    if done.returncode != 0:
        return f"bubblewrap does not work here: {done.stderr.strip() or done.returncode}"
    return None


@register_jail("bwrap")
class BubblewrapJail(Jail):
    def __init__(self) -> None:
        self.binary = shutil.which("bwrap")

    def unavailable(self) -> str | None:
        if self.binary is None:
            return "bubblewrap (bwrap) is not installed (Debian: apt-get install bubblewrap)"
        return _probe(self.binary)

    def wrap(self, argv: list[str], spec: JailSpec) -> list[str]:
        assert self.binary is not None
        out = [self.binary, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
        private = [p for p in spec.private_tmp]
        for path in private:
            out += ["--tmpfs", str(path)]
        hidden: list[Path] = []
        # Parents first, so a hidden directory inside another one is not mounted twice.
        for path in sorted(
            {p.resolve() for p in spec.hidden}, key=lambda p: (len(p.parts), str(p))
        ):
            # Never `/` (a user whose home is `/`): that would hide the system the agent runs on.
            if path.is_dir() and path != Path("/") and not _under(path, [*private, *hidden]):
                hidden.append(path)
                out += ["--tmpfs", str(path)]
        for path in sorted({p.resolve() for p in spec.tools}, key=lambda p: (len(p.parts), str(p))):
            if path.exists() and _under(path, [*private, *hidden]):
                out += ["--ro-bind", str(path), str(path)]
        for path in spec.writable:
            out += ["--bind", str(path.resolve()), str(path.resolve())]
        # Read-only only after the binds: their mount points are created inside these tmpfs.
        for path in hidden:
            out += ["--remount-ro", str(path)]
        out += ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--die-with-parent"]
        out += ["--chdir", str(spec.workspace.resolve()), "--", *argv]
        return out
