"""Stage 8: decide each assertion entry of a case from an attempt's evidence."""

from evaluator.judge.base import CheckOutcome, EntryVerdict, JudgeContext
from evaluator.judge.case import CaseJudgement, judge_case

__all__ = ["CaseJudgement", "CheckOutcome", "EntryVerdict", "JudgeContext", "judge_case"]
