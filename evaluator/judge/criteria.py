"""The `criteria` judge: recognises the recurring natural-language criteria of upstream repos.

Only sentences whose meaning is unambiguous are translated into structured checks; an entry with
any sentence we do not recognise is left to the next judge (and ends `unclear-rule` if none can
decide it). The forms come from the public agentic-evals cases.
"""

from __future__ import annotations

import re

from evaluator.contract.models import (
    AssertionEntry,
    CommandRanCheck,
    FileReadCheck,
    FinalAnswerUrlCheck,
    ReadBeforeCheck,
)
from evaluator.judge.base import CheckOutcome, JudgeContext
from evaluator.judge.checks.registry import run_check
from evaluator.judge.registry import register_judge

CONSULTED = re.compile(r"shows consultation of `([^`]+)`", re.IGNORECASE)
READ_BEFORE = re.compile(r"`([^`]+)` was read before any file under `([^`]+)`", re.IGNORECASE)
INVOKES = re.compile(r"shows a command invoking `([^`]+)`", re.IGNORECASE)
LOCAL_URL = re.compile(r"final answer includes a local URL\.?$", re.IGNORECASE)


def criterion_checks(sentence: str) -> list[object] | None:
    text = sentence.strip()
    if (match := READ_BEFORE.search(text)) and "evaluator opens" not in text:
        directory = match.group(2).rstrip("/")
        return [ReadBeforeCheck(kind="read_before", first=match.group(1), then=f"{directory}/*")]
    if (
        (match := CONSULTED.search(text))
        and " or " not in text
        and " and " not in text.split("`")[-1]
    ):
        return [FileReadCheck(kind="file_read", path=match.group(1))]
    if match := INVOKES.search(text):
        return [CommandRanCheck(kind="command_ran", pattern=re.escape(match.group(1)))]
    if LOCAL_URL.search(text):
        return [FinalAnswerUrlCheck(kind="final_answer_url", local_only=True)]
    return None


@register_judge
class CriteriaPatternJudge:
    name = "criteria"

    def judge(self, entry: AssertionEntry, context: JudgeContext) -> list[CheckOutcome] | None:
        sentences = entry.pass_criteria
        if not sentences:
            return None
        translated = [criterion_checks(s) for s in sentences]
        if any(t is None for t in translated):
            return None
        return [run_check(check, context) for group in translated for check in group or []]
