"""`bwrap`: bubblewrap around the agent CLI.

The whole filesystem is bound read-only, `/tmp` and `/var/tmp` are private tmpfs, the hidden
directories become empty read-only tmpfs, and only the attempt workspace and the agent's home are
bound back writable. The network namespace is shared on purpose: the agent must reach its model
(our scripted server listens on 127.0.0.1). docs/isolation.md explains how it nests with Codex's
own bubblewrap sandbox.
"""

from __future__ import annotations

import atexit
import shutil
import subprocess
import tempfile
import threading
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
# is read), another process traced or its memory read, raw devices, device nodes, and lowering a
# process's OOM score below what it inherited (`CAP_SYS_RESOURCE`: the host's OOM killer would then
# pick another process; without it a write of `oom_score_adj` can only raise it). Not `ALL`: Codex's
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
    "CAP_SYS_RESOURCE",
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


def compiled_locales(locale_dir: Path = LOCALE_DIR) -> list[Path]:
    """The compiled locale directories (`C.utf8/LC_CTYPE`, ...) of `locale_dir`."""
    try:
        entries = sorted(locale_dir.iterdir())
    except OSError:
        return []
    return [p for p in entries if not p.is_symlink() and (p / "LC_CTYPE").is_file()]


_archive_lock = threading.Lock()
_archive: list[Path | None] = []  # built once per process, by the first attempt that needs it


def _built_locale_archive() -> Path | None:
    with _archive_lock:
        if not _archive:
            _archive.append(build_locale_archive(LOCALE_DIR))
        return _archive[0]


def build_locale_archive(locale_dir: Path) -> Path | None:
    """A locale archive holding every compiled locale directory of `locale_dir` (and whatever the
    host's own archive holds), made by glibc's `localedef` in a private temporary directory
    removed when this process exits; None where it cannot be made (no `localedef`, nothing to
    add, a failure), and the jail goes without.

    Why: without an archive, glibc opens the 13 files of a locale one by one in every process
    that sets its locale (all of them where `LANG`/`LC_ALL` name one: Codex sets `C.UTF-8` for
    every command), each open a ptrace stop of the access trace and a line of it; from an
    archive it maps one file. The same locale data either way (`localedef --add-to-archive`
    copies the compiled files), so no program sees a difference but the number of its opens
    (docs/benchmarks.md, thirteenth session)."""
    localedef = shutil.which("localedef")
    host = locale_dir / "locale-archive"
    compiled = compiled_locales(locale_dir)
    if localedef is None:
        return None
    if host.is_file():
        # A host archive serves what it holds (it may be hundreds of MB: copied only when a
        # compiled directory is missing from it).
        held = set(_archived_names(localedef, host) or ())
        compiled = [path for path in compiled if path.name not in held]
    if not compiled:
        return None
    prefix = Path(tempfile.mkdtemp(prefix="agentic-eval-locale-"))
    atexit.register(shutil.rmtree, prefix, True)
    archive = prefix / LOCALE_DIR.relative_to("/") / "locale-archive"
    try:
        archive.parent.mkdir(parents=True)
        if host.is_file():
            shutil.copyfile(host, archive)
        done = subprocess.run(
            [localedef, f"--prefix={prefix}", "--add-to-archive", "--replace", "--quiet"]
            + [str(path) for path in compiled],
            capture_output=True,
            timeout=PROBE_TIMEOUT_S,
            env={"PATH": "/usr/bin:/bin"},
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0 or not archive.is_file():
        return None
    archive.chmod(0o644)  # read by the agent (the same user) through the jail's bind
    return archive


def _archived_names(localedef: str, archive: Path) -> list[str] | None:
    """The locale names `archive` holds (`localedef --list-archive`); None if it cannot tell."""
    try:
        done = subprocess.run(
            [localedef, "--list-archive", str(archive)],
            capture_output=True,
            text=True,
            timeout=PROBE_TIMEOUT_S,
            env={"PATH": "/usr/bin:/bin"},
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.split() if done.returncode == 0 else None


def _locale_view(hidden: list[Path], private: list[Path]) -> list[str]:
    """The jail's own /usr/lib/locale: every entry of the real one bound back read-only, the
    aliases of `locale_aliases` (symlinks to the same directories), and the locale archive of
    `build_locale_archive` in place of the host's."""
    if LOCALE_DIR.is_symlink() or _under(LOCALE_DIR, [*private, *hidden]):
        return []
    aliases = locale_aliases()
    archive = _built_locale_archive()
    if not aliases and archive is None:
        return []
    out = ["--tmpfs", str(LOCALE_DIR)]
    for entry in sorted(LOCALE_DIR.iterdir()):
        if archive is None or entry.name != archive.name:
            out += ["--ro-bind", str(entry), str(entry)]
    if archive is not None:
        out += ["--ro-bind", str(archive), str(LOCALE_DIR / archive.name)]
    for alias, target in aliases:
        out += ["--symlink", target, str(LOCALE_DIR / alias)]
    return [*out, "--remount-ro", str(LOCALE_DIR)]


@register_jail("bwrap")
class BubblewrapJail(Jail):
    own_pid_namespace = True  # `--unshare-pid`, below
    # `--dev /dev` mounts a tmpfs of the jail's own on /dev: its `shm` is empty at the start and
    # gone with the attempt (Chromium's shared memory), never the host's /dev/shm.
    private_devices = (Path("/dev/shm"),)

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
