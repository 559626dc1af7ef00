"""The agent's text inside the Markdown we write (`transcript.md`, `report.md`).

Commands, paths, tool names and final answers are the agent's words: an agent that writes a line
break CommonMark reads (a carriage return, not only a newline), or a backtick that ends our code
span, would make the rest of its text a line, a heading, a link or an image of the report's own
(red team, round 11). So every piece of it is shown on one line, each line-breaking character
as `⏎`, inside one code span whose fence no backtick run in the text can close.
"""

from __future__ import annotations

import re

LINE_BREAK_MARK = "⏎ "
# Every character `str.splitlines` breaks on (CommonMark itself breaks on LF and CR; a viewer
# may take the others for line ends too).
_LINE_BREAKS = re.compile("\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")


def one_line(text: str) -> str:
    """`text` on one line: each line break shown as `⏎`."""
    return _LINE_BREAKS.sub(LINE_BREAK_MARK, text)


def code_span(text: str) -> str:
    """`text` as one Markdown code span on one line, whatever backticks it holds (CommonMark: a
    fence longer than any run inside, padded by a space where the text starts or ends with a
    backtick, which the renderer strips)."""
    flat = one_line(text)
    fence = "`" * (max((len(run) for run in re.findall(r"`+", flat)), default=0) + 1)
    pad = " " if flat.startswith("`") or flat.endswith("`") else ""
    return f"{fence}{pad}{flat}{pad}{fence}"
