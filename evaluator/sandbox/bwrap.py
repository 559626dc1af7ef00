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
LOCALE_DIR = Path("/usr/lib/locale")
# How programs name a UTF-8 locale (`LANG=C.UTF-8`: Codex sets it for every command, Debian's
# lsb_release too) and how localedef names its directory (glibc's normalised codeset).
UTF8_SPELLINGS = (".UTF-8", ".utf8")
# Capabilities a root agent keeps in the jail otherwise (Claude Code's and Gemini CLI's commands
# run with the full set) that reach files past the access trace: a file opened by its handle
# (`open_by_handle_at`: no path in the log), a mount (strace then names the mount point, not what
# is read), another process traced or its memory read, raw devices, device nodes. Not `ALL`: Codex's
# own sandbox cannot start its commands without the rest (measured, docs/isolation.md).
DROPPED_CAPS = (
    "CAP_DAC_READ_SEARCH",
    "CAP_SYS_PTRACE",
    "CAP_SYS_MODULE",
    "CAP_SYS_RAWIO",
    "CAP_MKNOD",
    "CAP_SYS_BOOT",
    "CAP_SYS_TIME",
    "CAP_SYS_ADMIN",
)


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


def locale_aliases(locale_dir: Path = LOCALE_DIR) -> list[tuple[str, str]]:
    """(alias, target) for each compiled UTF-8 locale directory (`C.utf8`) that has no entry
    under the name programs ask for (`C.UTF-8`). Without a locale archive, glibc tries the
    requested name first for each of the 13 locale categories, fails, then the normalised one:
    13 failed opens per process that sets a locale, a fifth of a Codex attempt's access trace
    and a ptrace stop each (docs/benchmarks.md, 28 November). With the alias the first try
    finds the same files."""
    try:
        names = {entry.name for entry in locale_dir.iterdir()}
    except OSError:
        return []
    normal, requested = UTF8_SPELLINGS[1], UTF8_SPELLINGS[0]
    return [
        (name[: -len(normal)] + requested, name)
        for name in sorted(names)
        if name.endswith(normal)
        and name[: -len(normal)] + requested not in names
        and (locale_dir / name).is_dir()
    ]


def _locale_view(hidden: list[Path], private: list[Path]) -> list[str]:
    """The jail's own /usr/lib/locale: every entry of the real one bound back read-only, plus
    the aliases of `locale_aliases` (symlinks to the same directories)."""
    aliases = locale_aliases()
    if not aliases or LOCALE_DIR.is_symlink() or _under(LOCALE_DIR, [*private, *hidden]):
        return []
    out = ["--tmpfs", str(LOCALE_DIR)]
    for entry in sorted(LOCALE_DIR.iterdir()):
        out += ["--ro-bind", str(entry), str(entry)]
    for alias, target in aliases:
        out += ["--symlink", target, str(LOCALE_DIR / alias)]
    return [*out, "--remount-ro", str(LOCALE_DIR)]


@register_jail("bwrap")
class BubblewrapJail(Jail):
    own_pid_namespace = True  # `--unshare-pid`, below

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
        out += _locale_view(hidden, private)
        # Read-only only after the binds: their mount points are created inside these tmpfs.
        for path in hidden:
            out += ["--remount-ro", str(path)]
        out += ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--die-with-parent"]
        out += [arg for cap in DROPPED_CAPS for arg in ("--cap-drop", cap)]
        out += ["--chdir", str(spec.workspace.resolve()), "--", *argv]
        return out
