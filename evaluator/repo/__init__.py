"""Stage 1: the eval repo on disk, loaded and validated."""

from evaluator.repo.documents import Diagnostics
from evaluator.repo.loader import load_repo, rubric_file
from evaluator.repo.model import EvalRepo, LoadedCase, LoadedSuite, LoadedTarget

__all__ = [
    "Diagnostics",
    "EvalRepo",
    "LoadedCase",
    "LoadedSuite",
    "LoadedTarget",
    "load_repo",
    "rubric_file",
]
