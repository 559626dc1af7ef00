"""The model-graded judge: evidence bundles, the judge-backend interface (each agent adapter that
can judge provides one), verification of every answer, votes and a reply cache. The judge chain reaches it only through
`evaluator.judge.grading.ModelGrader`."""

from evaluator.grader.base import JudgeBackend, JudgeCall, JudgeReply
from evaluator.grader.factory import make_grader
from evaluator.grader.grader import Grader, GraderSettings

__all__ = [
    "Grader",
    "GraderSettings",
    "JudgeBackend",
    "JudgeCall",
    "JudgeReply",
    "make_grader",
]
