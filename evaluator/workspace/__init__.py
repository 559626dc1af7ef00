"""Stage 3: a brand-new workspace per attempt holding only the skill, fixtures and setup."""

from evaluator.workspace.builder import AttemptWorkspace, build_workspace
from evaluator.workspace.paths import UnsafePath, safe_join

__all__ = ["AttemptWorkspace", "UnsafePath", "build_workspace", "safe_join"]
