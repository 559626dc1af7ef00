"""`setup.git`: the attempt workspace as a git repository, for skills that read or make history
(commit messages, changelogs, release notes).

The history is built before the rest of `setup` changes the working tree, so `write_files` then
reads as an uncommitted change and `stage` as a staged one. Every attempt gets the same objects:
a fixed author, committer and dates, no user or system configuration, no hooks or templates.
The repository's own config names that identity, so an agent's `git commit` works in a fresh
agent home as it does for a user with one set.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from evaluator.contract.models import GitSetup
from evaluator.workspace.paths import safe_join

BRANCH = "main"
AUTHOR_NAME = "Eval Author"
AUTHOR_EMAIL = "author@example.com"
FIRST_DATE = 1704067200  # 2024-01-01T00:00:00Z; each later commit one hour on
GIT_TIMEOUT_S = 60


class GitSetupFailed(Exception):
    """git is missing or refused a step: the workspace cannot be built as the case says."""


def _git(root: Path, *args: str, date: int = FIRST_DATE) -> None:
    git = shutil.which("git")
    if git is None:
        raise GitSetupFailed("setup.git: git is not installed on this machine")
    stamp = f"@{date} +0000"
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(root),  # never the user's: no ~/.gitconfig, no credential helpers
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_AUTHOR_NAME": AUTHOR_NAME,
        "GIT_AUTHOR_EMAIL": AUTHOR_EMAIL,
        "GIT_COMMITTER_NAME": AUTHOR_NAME,
        "GIT_COMMITTER_EMAIL": AUTHOR_EMAIL,
        "GIT_AUTHOR_DATE": stamp,
        "GIT_COMMITTER_DATE": stamp,
        "LC_ALL": "C",
    }
    try:
        done = subprocess.run(
            [git, "-C", str(root), *args],
            env=env,
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise GitSetupFailed(f"setup.git: git {args[0]} failed: {exc}") from None
    if done.returncode != 0:
        said = (done.stderr or done.stdout).strip().splitlines()
        raise GitSetupFailed(
            f"setup.git: git {args[0]} exited {done.returncode}: {said[-1] if said else ''}"
        )


def build_history(root: Path, git: GitSetup) -> None:
    """`git init` in `root` (branch `main`) and each commit: its files written, then exactly
    those committed (the skill's files and the rest of the workspace stay untracked)."""
    _git(root, "init", "--quiet", "--template=")
    _git(root, "symbolic-ref", "HEAD", f"refs/heads/{BRANCH}")
    for key, value in (
        ("user.name", AUTHOR_NAME),
        ("user.email", AUTHOR_EMAIL),
        ("commit.gpgsign", "false"),
    ):
        _git(root, "config", key, value)
    for number, commit in enumerate(git.commits):
        date = FIRST_DATE + 3600 * number
        paths = []
        for item in commit.files:
            destination = safe_join(root, item.path)
            destination.parent.mkdir(parents=True, exist_ok=True)
            destination.write_text(item.content, encoding="utf-8")
            paths.append(item.path)
        if paths:
            _git(root, "add", "--", *paths, date=date)
        _git(root, "commit", "--quiet", "--allow-empty", "-m", commit.message, date=date)


def stage_paths(root: Path, git: GitSetup) -> None:
    """`git add` of the paths `stage` names, once the working tree is as `setup` leaves it (a
    removed path is staged as removed)."""
    if git.stage:
        _git(root, "add", "--all", "--", *git.stage)
