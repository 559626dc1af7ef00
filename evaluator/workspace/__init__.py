"""Stage 3: a brand-new workspace per attempt holding only the skill, fixtures and setup."""

from evaluator.workspace.builder import AttemptWorkspace, build_workspace
from evaluator.workspace.paths import UnsafePath, safe_join
from evaluator.workspace.snapshot import fingerprint, restore_snapshot, save_snapshot

__all__ = [
    "AttemptWorkspace",
    "UnsafePath",
    "build_workspace",
    "fingerprint",
    "restore_snapshot",
    "safe_join",
    "save_snapshot",
]
