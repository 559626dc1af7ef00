"""Whether a text an answer holds is said there, or only denied, doubted or asked about.

"The final answer says `migration applied`" is a claim about what the agent told the user; an
answer reading "I could not confirm `migration applied`" holds the text and says the opposite.
A literal check cannot tell them apart, so prose that claims a statement (`says`, `reports`,
`states`; not `mentions`, `names` or `lists`, for which the text's presence is the claim)
compiles to a check that asks this module whether any occurrence stands in a clause that
affirms it. Where none does, the check leaves the entry to judgement (the model judge, else
`unclear-rule`): never a pass, and never a failure either, since a cue word can stand beside
an honest statement too.

A clause ends at a sentence's end, `;`, `:`, a line break or a bullet, and before a contrastive
conjunction (`but`, `however`, `although`, `though`, `whereas`: "I did not expect it, but `3
passed`" says `3 passed`; "not `X` but `Y`" denies `X` and says `Y`); a clause that a concessive
conjunction opens ("Although I did not expect it, `3 passed`") ends at its first comma too. It
denies what it holds when it has a negation ("not", "never", any "n't", "cannot", "unable", "neither", "nor", "no
longer", "failed to"), a condition ("if", "unless", "whether") or ends in a question mark.
Code spans other than the occurrence are left out of the cue search: a quoted `0 not run` is
what a tool printed, not the agent's denial.
"""

from __future__ import annotations

import re
from itertools import pairwise

# A clause ends at punctuation followed by space (not the `.` of `report.md` or `3.11`), at a
# line break, where a list item starts, or just before a contrastive conjunction (an empty
# match there: the conjunction opens the next clause). Not `yet`: "not yet confirmed `X`" would
# lose its negation.
_CLAUSE_END = re.compile(
    r"[.!?;:](?=\s|$)|\n|(?:^|\s)[-*•](?=\s)|(?=(?i:\b(?:but|however|although|though|whereas)\b))"
)
# A concessive clause ("Although I did not expect it, ...") ends at its first comma as well.
_CONCEDING = re.compile(r"\s*(?i:(?:even\s+)?(?:although|though|whereas))\b")
_COMMA = re.compile(r",(?=\s)")
_CODE_SPAN = re.compile(r"`[^`\n]*`")
_WORD = re.compile(r"[a-z]+(?:['’][a-z]+)?")
_NEGATIONS = frozenset(
    {"not", "never", "cannot", "unable", "neither", "nor", "if", "unless", "whether"}
)
_NEGATED_PAIRS = frozenset({("no", "longer"), ("failed", "to"), ("fails", "to"), ("fail", "to")})


def _clause_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    """The clause around `text[start:end]`: from the last clause end before it to the next."""
    left = 0
    for match in _CLAUSE_END.finditer(text, 0, start):
        left = match.end()
    following = _CLAUSE_END.search(text, end)
    right = following.end() if following is not None else len(text)
    if _CONCEDING.match(text, left):
        for comma in _COMMA.finditer(text, left, right):
            if comma.end() <= start:
                left = comma.end()
            elif comma.start() >= end:
                right = comma.start()
            break
    return left, right


def _denies(clause: str) -> bool:
    if clause.rstrip().endswith("?"):
        return True
    words = _WORD.findall(_CODE_SPAN.sub(" ", clause).casefold())
    if any(w in _NEGATIONS or w.endswith(("n't", "n’t")) for w in words):
        return True
    return any(pair in _NEGATED_PAIRS for pair in pairwise(words))


def affirmed_somewhere(text: str, spans: list[tuple[int, int]]) -> bool:
    """Whether any of the occurrences `spans` (offsets into `text`) stands in a clause that
    does not deny it (module docstring). The occurrence itself is cut out of its clause first:
    the text looked for may hold a "not" of its own."""
    for start, end in spans:
        left, right = _clause_bounds(text, start, end)
        if not _denies(text[left:start] + " " + text[end:right]):
            return True
    return False


def occurrences(haystack: str, needle: str) -> list[tuple[int, int]]:
    """Every (start, end) of `needle` in `haystack`, overlapping ones included."""
    spans = []
    at = haystack.find(needle)
    while at != -1 and needle:
        spans.append((at, at + len(needle)))
        at = haystack.find(needle, at + 1)
    return spans


# What a check says when the text stands only where the answer denies it.
def denied_detail(where: str, text: str) -> str:
    return (
        f"{where} holds {text!r} only where it denies, doubts or asks about it (a negation, a"
        " condition or a question in the same clause): whether that says it is left to judgement"
    )
