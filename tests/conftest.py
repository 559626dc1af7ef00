"""Shared fixtures: the project root, the demo repo, and the real Codex binary."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DEMO_REPO = ROOT / "agentic-evals"


@pytest.fixture
def root() -> Path:
    return ROOT


@pytest.fixture
def demo_repo() -> Path:
    return DEMO_REPO


def copy_demo(tmp_path: Path) -> Path:
    """A writable copy of the source workspace (skills + eval repo); returns its eval repo."""
    shutil.copytree(ROOT / ".agents", tmp_path / ".agents")
    shutil.copytree(ROOT / "skill-eval", tmp_path / "skill-eval")
    shutil.copytree(DEMO_REPO, tmp_path / "agentic-evals", ignore=shutil.ignore_patterns("runs"))
    return tmp_path / "agentic-evals"


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")
