"""Final-answer checks: contains a text, matches a pattern, mentions a URL."""

from __future__ import annotations

import re

from evaluator.contract.models import (
    FinalAnswerContainsCheck,
    FinalAnswerMatchesCheck,
    FinalAnswerUrlCheck,
)
from evaluator.judge.base import JudgeContext
from evaluator.judge.checks.registry import register_check
from evaluator.judge.denial import affirmed_somewhere, denied_detail, occurrences
from evaluator.judge.verdict import CheckVerdict, blocked, failed, passed
from evaluator.patterns import compile_pattern

URL = re.compile(r"https?://[^\s<>()\"'`]+")
LOCAL_HOSTS = ("localhost", "127.", "0.0.0.0", "[::1]")


def _answer(kind: str, context: JudgeContext) -> tuple[str | None, list[str], CheckVerdict | None]:
    answer = context.evidence.final_answer
    refs = [context.ref(r) for r in context.evidence.of_kind("final_answer")]
    if answer is None:
        return None, refs, failed(kind, "the session has no final answer")
    return answer, refs, None


@register_check("final_answer_contains")
def contains(check: FinalAnswerContainsCheck, context: JudgeContext) -> CheckVerdict:
    answer, refs, missing = _answer("final_answer_contains", context)
    if missing or answer is None:
        return missing or failed("final_answer_contains", "no answer")
    haystack, needle = (
        (answer, check.text) if check.case_sensitive else (answer.lower(), check.text.lower())
    )
    spans = occurrences(haystack, needle)
    if spans and check.affirmed and not affirmed_somewhere(answer, spans):
        return blocked(
            "final_answer_contains",
            denied_detail("the final answer", check.text),
            refs,
            reason="unclear-rule",
        )
    if spans:
        return passed("final_answer_contains", f"final answer contains {check.text!r}", refs)
    return failed("final_answer_contains", f"final answer lacks {check.text!r}", refs)


@register_check("final_answer_matches")
def matches(check: FinalAnswerMatchesCheck, context: JudgeContext) -> CheckVerdict:
    answer, refs, missing = _answer("final_answer_matches", context)
    if missing or answer is None:
        return missing or failed("final_answer_matches", "no answer")
    match = compile_pattern(check.pattern).search(answer)  # RE2: linear time
    if match is not None:
        return passed("final_answer_matches", f"final answer matches: {match!r}", refs)
    return failed("final_answer_matches", f"final answer does not match /{check.pattern}/", refs)


@register_check("final_answer_url")
def mentions_url(check: FinalAnswerUrlCheck, context: JudgeContext) -> CheckVerdict:
    answer, refs, missing = _answer("final_answer_url", context)
    if missing or answer is None:
        return missing or failed("final_answer_url", "no answer")
    urls = URL.findall(answer)
    if check.local_only:
        urls = [u for u in urls if u.split("//", 1)[1].startswith(LOCAL_HOSTS)]
    if urls:
        return passed("final_answer_url", f"final answer mentions {urls[0]}", refs)
    which = "a local URL" if check.local_only else "a URL"
    return failed("final_answer_url", f"final answer mentions no {which}", refs)
