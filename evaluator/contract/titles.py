"""A case's title made from its prompt (an evals.json eval without a `name`), and the title its
fingerprint hashes.

The title is the prompt's first line, cut at a word when longer than `TITLE_LENGTH` with an
ellipsis. Until round 15 it was cut at exactly 80 characters, mid-word (`... The reade`); the
fingerprint (`digest.case_digest`) still hashes that older cut for a title made this way, so a
run of an evals.json, or a suite converted from one, before and after the change judged the
same case (`compare` and `gate` refuse runs whose case definitions differ).
"""

from __future__ import annotations

TITLE_LENGTH = 80
ELLIPSIS = "…"
# A cut at a word keeps at least this much of the line; a line without a space that early
# (a long path or URL) is cut mid-word, as it can only be.
SHORTEST_WORD_CUT = TITLE_LENGTH // 2


def _first_line(prompt: str) -> str:
    lines = prompt.strip().splitlines()
    return lines[0] if lines else ""


def prompt_title(prompt: str) -> str:
    """The prompt's first line, at most `TITLE_LENGTH` characters, cut at a word."""
    line = _first_line(prompt)
    if len(line) <= TITLE_LENGTH:
        return line
    head = line[: TITLE_LENGTH - len(ELLIPSIS) + 1]
    space = max(head.rfind(" "), head.rfind("\t"))
    cut = space if space >= SHORTEST_WORD_CUT else TITLE_LENGTH - len(ELLIPSIS)
    return head[:cut].rstrip() + ELLIPSIS


def fingerprint_title(title: str, prompt: str) -> str:
    """The title a case's fingerprint hashes: for a title made from its prompt, the older
    mid-word cut; any other title as it is."""
    line = _first_line(prompt)
    if len(line) > TITLE_LENGTH and title == prompt_title(prompt):
        return line[:TITLE_LENGTH]
    return title
