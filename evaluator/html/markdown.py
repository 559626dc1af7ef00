"""Our own reports' markdown as HTML, for pages that show a `.md` we wrote (`eval-report.md` in
`eval-report.html`), and the `code` and **bold** of notes in `report.html`. markdown-it-py with
raw HTML off: case ids, prompts and notes come from the eval repo and the agent, so every piece
of their text is escaped and nothing in them can become markup (a link's unsafe scheme,
`javascript:`, is refused by the library's own check)."""

from __future__ import annotations

import functools

from markdown_it import MarkdownIt
from markdown_it.token import Token


@functools.cache
def _blocks() -> MarkdownIt:
    return MarkdownIt("commonmark", {"html": False}).enable("table")


@functools.cache
def _spans() -> MarkdownIt:
    # A note is one line of text: only its code spans and emphasis are markup.
    return MarkdownIt("zero").enable(["backticks", "emphasis"])


def inline(text: str) -> str:
    """`code` and **bold** in one line of text, the rest escaped."""
    html: str = _spans().renderInline(text)
    return html


def render_markdown(text: str, heading_offset: int = 0) -> str:
    """`text` as HTML; `heading_offset` lowers every heading (1: `#` becomes `<h2>`), for a
    report shown under a page's own title."""
    parser = _blocks()
    tokens = parser.parse(text)
    for token in tokens:
        if token.type in ("heading_open", "heading_close"):
            _lower(token, heading_offset)
    html: str = parser.renderer.render(tokens, parser.options, {})
    return html


def _lower(token: Token, offset: int) -> None:
    level = min(6, int(token.tag[1:]) + offset)
    token.tag = f"h{level}"
