"""The model-graded judge: evidence bundles, judge backends (base + registry + one module each),
verification of every answer, votes and a reply cache. The judge chain reaches it only through
`evaluator.judge.grading.ModelGrader`."""

from evaluator.grader import codex
from evaluator.grader.base import JudgeBackend, JudgeCall, JudgeReply
from evaluator.grader.factory import make_grader
from evaluator.grader.grader import Grader, GraderSettings
from evaluator.grader.registry import backend_names, get_backend, register_backend

__all__ = [
    "Grader",
    "GraderSettings",
    "JudgeBackend",
    "JudgeCall",
    "JudgeReply",
    "backend_names",
    "codex",
    "get_backend",
    "make_grader",
    "register_backend",
]
