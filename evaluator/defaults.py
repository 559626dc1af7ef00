"""Defaults that command-line options show and the pipeline uses: a leaf, so that a command's
`--help` can name them without importing the pipeline."""

from __future__ import annotations

import os
from pathlib import Path

# Workspaces and agent homes (not under /tmp: codex cannot run its sandbox with a home there).
DEFAULT_SCRATCH = Path(os.environ.get("AGENTIC_EVAL_SCRATCH", "/var/tmp/agentic-eval"))
DEFAULT_TIMEOUT_S = 300.0  # seconds per attempt
# The longest an attempt may be given (a day): more is a typo (`1e12`), never a real agent's task,
# and a wait that long overflows what the kernel's timers take.
MAX_TIMEOUT_S = 86400.0
# `score` and `gate`: a run below this share of cases with a verdict has no score
DEFAULT_MIN_COVERAGE = 0.8
DEFAULT_MIN_PASS_RATE = 1.0  # `score`: the hard pass rate a PASS needs
DEFAULT_ALPHA = 0.05  # `compare`: significance of the one-sided exact test (Boschloo)
