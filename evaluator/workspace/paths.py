"""Joining untrusted relative paths onto a workspace without ever leaving it (see safepath)."""

from __future__ import annotations

from pathlib import Path

from evaluator.safepath import UnsafePath, contained

__all__ = ["UnsafePath", "safe_join"]


def safe_join(root: Path, relative: str) -> Path:
    return contained(root, relative)
