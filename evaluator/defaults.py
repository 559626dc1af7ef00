"""Defaults that command-line options show and the pipeline uses: a leaf, so that a command's
`--help` can name them without importing the pipeline."""

from __future__ import annotations

import os
from pathlib import Path

# Workspaces and agent homes (not under /tmp: codex cannot run its sandbox with a home there).
DEFAULT_SCRATCH = Path(os.environ.get("AGENTIC_EVAL_SCRATCH", "/var/tmp/agentic-eval"))
DEFAULT_TIMEOUT_S = 300.0  # seconds per attempt
