"""The agent's text inside the Markdown we write (`transcript.md`, `report.md`, the CI step
summary).

Commands, paths, tool names and final answers are the agent's words: an agent that writes a line
break CommonMark reads (a carriage return, not only a newline), or a backtick that ends our code
span, would make the rest of its text a line, a heading, a link or an image of the report's own
(red team, round 11). So every piece of it is shown on one line, each line-breaking character
as `⏎` and each other control character as its escape (round 12b), inside one code span whose
fence no backtick run in the text can close.

A note or a check's detail is our prose with the agent's words in it (a command quoted after a
colon): it is written as `report.html` reads it (`html/markdown.py`), its code spans and emphasis
kept and every other character literal, so no link, image or HTML tag of the agent's renders.
"""

from __future__ import annotations

import functools
import re

from markdown_it import MarkdownIt

from evaluator.artifacts.shown_controls import shown_controls

LINE_BREAK_MARK = "⏎ "
# Every character `str.splitlines` breaks on (CommonMark itself breaks on LF and CR; a viewer
# may take the others for line ends too).
_LINE_BREAKS = re.compile("\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")


def one_line(text: str) -> str:
    """`text` on one line: each line break shown as `⏎`, each other control character as its
    escape (`shown_controls`: a terminal showing the file must not act on it)."""
    return shown_controls(_LINE_BREAKS.sub(LINE_BREAK_MARK, text))


def code_span(text: str) -> str:
    """`text` as one Markdown code span on one line, whatever backticks it holds (CommonMark: a
    fence longer than any run inside, padded by a space where the text starts or ends with a
    backtick, which the renderer strips)."""
    flat = one_line(text)
    fence = "`" * (max((len(run) for run in re.findall(r"`+", flat)), default=0) + 1)
    pad = " " if flat.startswith("`") or flat.endswith("`") else ""
    return f"{fence}{pad}{flat}{pad}{fence}"


# The characters that start markup other than emphasis and code: links and images (`[`, `]`),
# raw HTML and autolinks (`<`, `>`), entities (`&`), code (a backtick), escapes (`\\`).
_MARKUP = re.compile(r"([\\`\[\]<>&])")
# What would open a block at the start of a list item's text: a heading, a nested list, a rule.
_BLOCK_START = re.compile(
    r"^\s*(?:#{1,6}|[-+*]|\d{1,9}[.)])(?=\s|$)|^\s*[-*_](?=(?:\s*[-*_]){2,}\s*$)"
)


@functools.cache
def _spans() -> MarkdownIt:
    # The reading `report.html` gives a note (`html/markdown.py`): code spans and emphasis only.
    return MarkdownIt("zero").enable(["backticks", "emphasis"])


def prose(text: str) -> str:
    """A note on one line, as Markdown that renders what `report.html` shows of it: its code
    spans (refenced, `code_span`) and emphasis, every other character as itself."""
    (inline,) = [t for t in _spans().parseInline(one_line(text)) if t.type == "inline"]
    parts: list[str] = []
    for token in inline.children or []:
        if token.type == "code_inline":
            parts.append(code_span(token.content))
        elif token.type in ("strong_open", "strong_close", "em_open", "em_close"):
            parts.append(token.markup)
        else:
            parts.append(_MARKUP.sub(r"\\\1", token.content))
    shown = "".join(parts)
    return _BLOCK_START.sub(lambda m: m.group()[:-1] + "\\" + m.group()[-1], shown)
