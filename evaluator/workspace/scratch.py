"""The scratch root: workspaces and agent homes, private to the user running the evaluator.

Everything an agent saw lives here in clear (its environment, secrets included, and its session),
so the root is refused when someone else could write into it, kept 0700/0600, and each run's part
is removed when the run ends.
"""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path

from evaluator.errors import EnvironmentProblem

PRIVATE_DIR = 0o700
PRIVATE_FILE = 0o600
PRIVATE_EXEC = 0o700
# Set while a run creates files, so what the agent and the evaluator write is private too.
PRIVATE_UMASK = 0o077


def check_scratch_root(root: Path) -> None:
    """Creates `root` 0700 when missing; refuses one another user owns or others may write."""
    try:
        root.mkdir(mode=PRIVATE_DIR, parents=True, exist_ok=True)
        info = root.lstat()
    except OSError as exc:
        raise EnvironmentProblem(
            f"cannot create the scratch root {root}: {exc.strerror or exc}"
        ) from None
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
        raise EnvironmentProblem(f"scratch root {root} is not a plain directory (a symlink?)")
    if info.st_uid != os.geteuid():
        raise EnvironmentProblem(
            f"scratch root {root} is owned by uid {info.st_uid}, not by you (uid {os.geteuid()});"
            " pass a --scratch-root of your own"
        )
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise EnvironmentProblem(
            f"scratch root {root} is writable by other users (mode {stat.S_IMODE(info.st_mode):o});"
            f" run `chmod 700 {root}` or pass another --scratch-root"
        )
    if stat.S_IMODE(info.st_mode) != PRIVATE_DIR:
        root.chmod(PRIVATE_DIR)


def make_private_dir(path: Path) -> None:
    path.mkdir(mode=PRIVATE_DIR, parents=True, exist_ok=True)
    path.chmod(PRIVATE_DIR)


def make_tree_private(root: Path) -> None:
    """Directories 0700, files 0600 (0700 when executable): copies keep their source's mode,
    which is usually readable by everyone. Symlinks are neither followed nor changed."""
    pending = [os.fspath(root)]
    while pending:
        directory = pending.pop()
        try:
            with os.scandir(directory) as listing:
                entries = list(listing)
        except OSError:
            continue  # as os.walk does: a directory that cannot be listed is passed over
        _set_mode(directory, os.stat(directory).st_mode, PRIVATE_DIR)
        for entry in entries:
            # The type the listing gave (no stat of every entry): a symlink is neither.
            if entry.is_dir(follow_symlinks=False):
                pending.append(entry.path)
            elif entry.is_file(follow_symlinks=False):
                mode = entry.stat(follow_symlinks=False).st_mode
                _set_mode(entry.path, mode, PRIVATE_EXEC if mode & stat.S_IXUSR else PRIVATE_FILE)


def _set_mode(path: str, mode: int, wanted: int) -> None:
    # A chmod writes the inode even when the mode is already right; almost everything in an
    # agent's trees already is (the run's umask), so most entries need no write.
    if stat.S_IMODE(mode) != wanted:
        os.chmod(path, wanted)


def remove_scratch(path: Path) -> None:
    """Removes a run's scratch, even directories the agent made read-only. Each attempt's trees
    were made private when its agent exited, so a first removal almost always succeeds; only
    when it fails (a directory the agent made read-only, for a user without the right to ignore
    that) is the rest made writable and removed: walking the whole scratch for its modes first
    cost as much as the removal itself."""
    if not path.exists():
        release_scratch(path)
        return
    with suppress(OSError):
        shutil.rmtree(path)
        release_scratch(path)
        return
    with suppress(OSError):  # rmtree says what is really wrong
        make_tree_private(path)
    shutil.rmtree(path)
    release_scratch(path)


# Beside a run's scratch folder (`<folder>.run`): the run directory whose lock
# (`runs/<id>/.lock`) keeps the folder. Beside, not inside: a scratch in memory is mounted on a
# folder the machine must see empty. A run writes it once it holds that lock; a folder without
# one (a kept scratch, an older version's) is never swept.
OWNER_SUFFIX = ".run"


def owner_file(scratch: Path) -> Path:
    return scratch.with_name(scratch.name + OWNER_SUFFIX)


def claim_scratch(scratch: Path, run_dir: Path) -> None:
    """Names the run that holds `scratch`, so that a later run can tell when none does."""
    owner_file(scratch).write_text(f"{run_dir.absolute()}\n", encoding="utf-8")


def release_scratch(scratch: Path) -> None:
    """Forgets who held `scratch`, once the folder is gone."""
    owner_file(scratch).unlink(missing_ok=True)


def unheld_scratches(
    root: Path, own: Path, held: Callable[[Path], bool | None]
) -> list[tuple[Path, Path]]:
    """The run scratch folders under `root` (and the run directory each names) whose run no
    evaluator holds: `held(run_dir)` is False (the run was killed, or ended without removing its
    scratch). Never `own`, never one whose holder cannot be told (None: no lock file, no
    `/proc/locks`) or that names no run."""
    try:
        owners = sorted(root.glob(f"*{OWNER_SUFFIX}"))
    except OSError:
        return []
    found = []
    for owner in owners:
        folder = owner.with_name(owner.name.removesuffix(OWNER_SUFFIX))
        if folder == own:
            continue
        try:
            named = owner.read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError):
            continue
        if not named.startswith("/"):
            continue
        run_dir = Path(named)
        if held(run_dir) is False:
            found.append((folder, run_dir))
    return found
