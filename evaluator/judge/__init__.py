"""Stage 8: decide each assertion entry of a case from an attempt's evidence."""

from evaluator.judge.base import JudgeContext
from evaluator.judge.chain import JUDGE_CHAIN, CaseJudgement, judge_case
from evaluator.judge.grading import GradeItem, GradeResult, ModelGrader
from evaluator.judge.verdict import AssertionResult, CheckVerdict

__all__ = [
    "JUDGE_CHAIN",
    "AssertionResult",
    "CaseJudgement",
    "CheckVerdict",
    "GradeItem",
    "GradeResult",
    "JudgeContext",
    "ModelGrader",
    "judge_case",
]
