"""What the agent said to the user: a text in any assistant message of the session.

"Mentions `X`" with no answer named is about the whole conversation, not only its last message:
an agent that names the flag while it works and ends with "Done." has mentioned it. The messages
are the neutral evidence every agent's normaliser fills (`SessionEvidence.messages`: Codex's
assistant messages, Claude Code's text blocks, Gemini CLI's model texts), plus the final answer.
Tool calls and their output are not said to the user and are not searched, nor is the agent's
reasoning, nor a sub-agent's messages (its own session, answered to the parent as a tool
output). Text in a code block is said: the user reads it. Evidence saved before messages were
recorded knows only the final answer: a text found there passes, its absence proves nothing
about the rest (blocked).

A text counts as the user reads it (red team, round 5): the message and the text looked for are
both compared after HTML entities are decoded, Unicode compatibility forms folded (NFKC: a
full-width `Ｘ`, a non-breaking space), invisible format characters removed (zero-width spaces
and joiners, soft hyphens, direction marks), markdown's backslash escapes undone (a backslash before `_`), the
Cyrillic and Greek letters that look like Latin ones read as those, and runs of white space made
one; markdown emphasis and inline code marks (`*`, `~`, a backtick) or an HTML tag between
two characters do not part them. So "never says X" cannot be dodged by writing X in a way that
looks the same, and an agent gains nothing by the same tricks for a required text (it could
write the text itself). Each message is searched on its own: one text split across two
messages is two things said, not one.
"""

from __future__ import annotations

import html
import re
import unicodedata

from evaluator.contract.models import AgentSaidCheck
from evaluator.judge.base import JudgeContext
from evaluator.judge.checks.registry import register_check
from evaluator.judge.denial import affirmed_somewhere, denied_detail
from evaluator.judge.verdict import CheckVerdict, blocked, failed, passed

KIND = "agent_said"

# Letters of other scripts drawn like Latin ones (Unicode's confusables for the Latin alphabet,
# the common part): read as the Latin letter.
_LOOK_ALIKES = str.maketrans(
    "АВЕЅІЈКМНОРСТХУаеѕіјорсхуԁһԛԝɡΑΒΕΖΗΙΚΜΝΟΡΤΥΧονρϲι",
    "ABESIJKMHOPCTXYaesijopcxydhqwgABEZHIKMNOPTYXovpci",
)
# What markdown or HTML puts inside a word without showing it: emphasis and code marks, a tag.
_MARKUP = r"(?:[*~`]|<[^<>\n]{0,40}>)*"
_ESCAPED_PUNCTUATION = re.compile(r"\\([!-/:-@\[-`{-~])")
_SPACES = re.compile(r"\s+")


def as_read(text: str, case_sensitive: bool = True) -> str:
    """`text` as a reader sees it (module docstring), for comparing two texts."""
    text = unicodedata.normalize("NFKC", html.unescape(text))
    text = "".join(ch for ch in text if unicodedata.category(ch) != "Cf")
    text = _ESCAPED_PUNCTUATION.sub(r"\1", text).translate(_LOOK_ALIKES)
    text = _SPACES.sub(" ", text)
    return text if case_sensitive else text.casefold()


def said_pattern(needle: str, case_sensitive: bool = True) -> re.Pattern[str]:
    """`needle` as read, with markup allowed between its characters."""
    return re.compile(_MARKUP.join(re.escape(ch) for ch in as_read(needle, case_sensitive)))


@register_check(KIND)
def said(check: AgentSaidCheck, context: JudgeContext) -> CheckVerdict:
    evidence = context.evidence
    pattern = said_pattern(check.text, check.case_sensitive)

    denied: list[str] = []  # where the text stood only in clauses denying it

    def holds(text: str, where: str) -> bool:
        read = as_read(text, check.case_sensitive)
        spans = [m.span() for m in pattern.finditer(read)]
        if spans and check.affirmed and not affirmed_somewhere(read, spans):
            denied.append(where)
            return False
        return bool(spans)

    answer_refs = [context.ref(r) for r in evidence.of_kind("final_answer")]
    if evidence.final_answer is not None and holds(evidence.final_answer, "the final answer"):
        return passed(KIND, f"the final answer contains {check.text!r}", answer_refs)
    for line, text in evidence.messages:
        if holds(text, f"the agent's message at session line {line}"):
            return passed(
                KIND, f"the agent's message at session line {line} contains {check.text!r}"
            )
    if denied:
        return blocked(KIND, denied_detail(denied[0], check.text), answer_refs, "unclear-rule")
    if not evidence.messages_recorded:
        return blocked(
            KIND,
            "this evidence was saved before the agent's messages were recorded: only its final"
            f" answer is known, and it lacks {check.text!r}",
        )
    if not evidence.messages and evidence.final_answer is None:
        return failed(KIND, "the agent said nothing to the user")
    count = len(evidence.messages)
    return failed(
        KIND,
        f"no message of the agent ({count} in the session, the final answer too) contains"
        f" {check.text!r}",
        answer_refs,
    )
