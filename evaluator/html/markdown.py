"""Our own reports' markdown as HTML, for pages that show a `.md` we wrote (`eval-report.md` in
`eval-report.html`): headings, paragraphs, bullet and numbered lists, pipe tables, fenced code,
`code` and **bold**. Every piece of text is escaped first: case ids, prompts and notes come from
the eval repo and the agent, so nothing in them can become markup; anything else is a paragraph."""

from __future__ import annotations

import re
from html import escape

_HEADING = re.compile(r"^(#{1,6}) +(.*)$")
_BULLET = re.compile(r"^[-*] +(.*)$")
_NUMBERED = re.compile(r"^\d+[.)] +(.*)$")
_TABLE_RULE = re.compile(r"^\|? *:?-{3,}:? *(\| *:?-{3,}:? *)*\|? *$")
_INLINE = re.compile(r"`([^`]+)`|\*\*(.+?)\*\*")


def inline(text: str) -> str:
    """`code` and **bold** in one line of text, the rest escaped."""
    parts: list[str] = []
    last = 0
    for match in _INLINE.finditer(text):
        parts.append(escape(text[last : match.start()]))
        code, bold = match.groups()
        parts.append(
            f"<code>{escape(code)}</code>"
            if code is not None
            else f"<strong>{inline(bold)}</strong>"
        )
        last = match.end()
    parts.append(escape(text[last:]))
    return "".join(parts)


def _cells(row: str) -> list[str]:
    """A pipe-table row's cells; `\\|` is a pipe inside a cell (our reports write it so)."""
    inner = row.strip()
    inner = inner[1:] if inner.startswith("|") else inner
    inner = inner[:-1] if inner.endswith("|") and not inner.endswith("\\|") else inner
    return [cell.strip().replace("\\|", "|") for cell in re.split(r"(?<!\\)\|", inner)]


def _table(rows: list[str]) -> str:
    header, body = rows[0], rows[2:]
    head = "".join(f"<th>{inline(cell)}</th>" for cell in _cells(header))
    lines = "".join(
        "<tr>" + "".join(f"<td>{inline(cell)}</td>" for cell in _cells(row)) + "</tr>"
        for row in body
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{lines}</tbody></table>"


def render_markdown(text: str, heading_offset: int = 0) -> str:
    """`text` as HTML; `heading_offset` lowers every heading (1: `#` becomes `<h2>`), for a
    report shown under a page's own title."""
    lines = text.splitlines()
    out: list[str] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        stripped = line.strip()
        if not stripped:
            index += 1
            continue
        if stripped.startswith("```"):
            end = index + 1
            while end < len(lines) and not lines[end].strip().startswith("```"):
                end += 1
            out.append(f"<pre>{escape(chr(10).join(lines[index + 1 : end]))}</pre>")
            index = end + 1
            continue
        heading = _HEADING.match(stripped)
        if heading:
            level = min(6, len(heading.group(1)) + heading_offset)
            out.append(f"<h{level}>{inline(heading.group(2))}</h{level}>")
            index += 1
            continue
        if (
            stripped.startswith("|")
            and index + 1 < len(lines)
            and _TABLE_RULE.match(lines[index + 1].strip())
        ):
            end = index + 2
            while end < len(lines) and lines[end].strip().startswith("|"):
                end += 1
            out.append(_table([row.strip() for row in lines[index:end]]))
            index = end
            continue
        for pattern, tag in ((_BULLET, "ul"), (_NUMBERED, "ol")):
            if pattern.match(stripped):
                items: list[str] = []
                while index < len(lines) and lines[index].strip():
                    item = pattern.match(lines[index].strip())
                    if item:
                        items.append(item.group(1))
                    elif lines[index].startswith((" ", "\t")) and items:
                        # A continuation line of the item above.
                        items[-1] += " " + lines[index].strip()
                    else:
                        break
                    index += 1
                out.append(
                    f"<{tag}>" + "".join(f"<li>{inline(i)}</li>" for i in items) + f"</{tag}>"
                )
                break
        else:
            paragraph: list[str] = []
            while index < len(lines) and lines[index].strip() and not _starts_block(lines[index]):
                paragraph.append(lines[index].strip())
                index += 1
            if not paragraph:  # a block start that did not make a block: shown as text
                paragraph.append(stripped)
                index += 1
            out.append(f"<p>{inline(' '.join(paragraph))}</p>")
    return "\n".join(out)


def _starts_block(line: str) -> bool:
    stripped = line.strip()
    return bool(
        _HEADING.match(stripped)
        or _BULLET.match(stripped)
        or _NUMBERED.match(stripped)
        or stripped.startswith(("|", "```"))
    )
