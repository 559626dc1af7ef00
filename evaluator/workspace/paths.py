"""Joining untrusted relative paths onto a workspace without ever leaving it."""

from __future__ import annotations

from pathlib import Path, PurePosixPath


class UnsafePath(ValueError):
    """A declared path would land outside the workspace (absolute, `..`, or through a symlink)."""


def safe_join(root: Path, relative: str) -> Path:
    posix = PurePosixPath(relative)
    if not relative or posix.is_absolute() or relative.startswith("~"):
        raise UnsafePath(f"{relative!r} must be a relative path")
    if ".." in posix.parts:
        raise UnsafePath(f"{relative!r} must not contain '..'")
    current = root
    for part in posix.parts:
        if part in ("", "."):
            continue
        current = current / part
        if current.is_symlink():
            raise UnsafePath(f"{relative!r} goes through the symlink {current}")
    return current
