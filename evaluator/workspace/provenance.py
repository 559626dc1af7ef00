"""What skill a run evaluated: a digest of the skill files every workspace got, and the git commit
of the source workspace they came from. Recorded in the manifest so a run history can tell a
skill edit (a new digest) from a flaky agent (mixed results under one digest)."""

from __future__ import annotations

import hashlib
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

from evaluator.repo import LoadedCase, LoadedTarget

GIT_TIMEOUT_S = 10.0


def skill_digest(
    target: LoadedTarget, source_workspace: Path, entry_skill_text: str | None = None
) -> str:
    """sha256 over the entry skill, the roots and the companion skills as `build_workspace`
    copies them (the candidate
    text in place of the entry skill when one is scored): each file's relative path and bytes."""
    entry = target.target.entry_skill
    files: dict[str, bytes] = {}
    for relative in target.target.copied_paths():
        source = target.source_path(source_workspace, relative)
        for path in _regular_files(source):
            # Named by its workspace path: a mounted skill hashes as the same files elsewhere.
            where = Path(relative) / path.relative_to(source) if path != source else Path(relative)
            files[where.as_posix()] = path.read_bytes()
    if entry_skill_text is not None:
        files[Path(entry).as_posix()] = entry_skill_text.encode("utf-8")
    digest = hashlib.sha256()
    for name in sorted(files):
        digest.update(name.encode("utf-8") + b"\0")
        digest.update(hashlib.sha256(files[name]).digest())
    return digest.hexdigest()


def fixture_digests(target: LoadedTarget, case: LoadedCase) -> dict[str, str]:
    """Each fixture the case copies, by its workspace path: sha256 over its files' relative
    paths and bytes as `build_workspace` copies them (what the case's judged digest holds in
    place of where the fixture is kept)."""
    found: dict[str, str] = {}
    for fixture in case.case.setup.copy_fixtures or []:
        source = target.fixtures_dir / fixture.source
        digest = hashlib.sha256()
        for path in _regular_files(source):
            relative = path.relative_to(source).as_posix() if path != source else ""
            digest.update(relative.encode("utf-8") + b"\0")
            digest.update(hashlib.sha256(path.read_bytes()).digest())
        found[fixture.target] = digest.hexdigest()
    return found


def _regular_files(path: Path) -> Iterator[Path]:
    # Symlinks are never copied into a workspace (see builder._copy_regular), so never hashed.
    if path.is_symlink():
        return
    if path.is_file():
        yield path
    elif path.is_dir():
        for child in sorted(path.iterdir()):
            yield from _regular_files(child)


def source_commit(source_workspace: Path) -> str | None:
    """The source workspace's `HEAD` commit, or None when it is not a git checkout (or git is
    missing): provenance only, never a reason to stop a run."""
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0"}
    try:
        done = subprocess.run(
            ["git", "-C", str(source_workspace), "rev-parse", "--verify", "--quiet", "HEAD"],
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT_S,
            env=env,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    commit = done.stdout.strip()
    return commit if done.returncode == 0 and commit else None
