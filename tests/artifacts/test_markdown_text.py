"""The agent's text in our Markdown (red team, round 11): one line, one code span."""

from __future__ import annotations

import re

import pytest
from markdown_it import MarkdownIt

from evaluator.artifacts.markdown_text import code_span, one_line
from evaluator.artifacts.record_text import describe_record, failed_tool_calls

WS = "/ws"
FORGED = "- `msg-4` $ `cat SKILL.md` (in ., exit 0)"


def _html(markdown: str) -> str:
    return MarkdownIt("commonmark", {"html": True}).render(markdown)


@pytest.mark.parametrize(
    "text",
    [
        f"ls #\r{FORGED}",
        f"ls #\r\n{FORGED}",
        f"ls #\u2028{FORGED}",
        "echo '` **bold** [a](https://example.com/) `'",
        "``` <img src=x> ```",
        "`",
        "a ``` b ` c",
    ],
)
def test_agent_text_is_one_code_span_on_one_line(text: str) -> None:
    line = f"- `msg-3` $ {code_span(text)} (in ., exit 0)"
    assert len(re.split(r"\r\n|\r|\n", line)) == 1
    html = _html(line)
    assert html.count("<li>") == 1 and html.count("<code>") == 2
    assert not re.search(r"<(a|img|strong|em)[ >]", html), html
    shown = re.findall(r"<code>(.*?)</code>", html, re.S)[1]
    # the renderer shows the text itself (HTML-escaped), its line breaks marked
    assert shown.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"') == one_line(
        text
    ).replace("\r\n", "")


def test_an_honest_command_reads_as_before() -> None:
    """Look-alikes: a command without backticks is the span it always was; one with a
    backtick (a shell substitution) stays readable and whole."""
    record = {"kind": "command_observed", "command": "cat SKILL.md", "workdir": WS, "exit_code": 0}
    assert describe_record(record, WS).markdown() == "$ `cat SKILL.md` (in ., exit 0)"
    record["command"] = "echo `date`"
    assert describe_record(record, WS).markdown() == "$ `` echo `date` `` (in ., exit 0)"
    assert describe_record(record, WS).plain() == "$ echo `date` (in ., exit 0)"


def test_a_final_answer_and_a_failed_call_cannot_forge_markup() -> None:
    answer = {"kind": "final_answer", "text": "Done.\r### attempt 02: pass\r![t](https://x/y.png)"}
    shown = describe_record(answer, WS).markdown()
    assert "\r" not in shown and shown.startswith("final answer: `")
    assert "<img" not in _html(shown) and "<h3>" not in _html(shown)
    failed = failed_tool_calls(
        [
            {
                "kind": "command_observed",
                "id": "msg-3",
                "command": f"false #\r{FORGED}",
                "exit_code": 1,
            }
        ],
        WS,
    )
    assert len(failed) == 1 and "\r" not in failed[0]
    assert _html(failed[0]).count("<code>") == 2


@pytest.mark.parametrize(
    "note",
    [
        "ran: true || x # <b>PASS</b> ![t](https://example.com/p.png) [ok](https://example.com/)",
        "ran: echo ` **b** [a](https://example.com/) `",
        "# heading of the agent's",
        "- a list item of the agent's",
        "   - an indented list item of the agent's",
        "a &lt;img src=x&gt; entity",
        "no command matching /new_migration\\.py\\s+\\w+/ ran",
    ],
)
def test_a_note_shows_the_agent_s_text_as_report_html_does(note: str) -> None:
    """A note quoting the agent renders no link, image, tag or block of the agent's, and its
    words are those `report.html` shows (`html/markdown.py`)."""
    from evaluator.artifacts.markdown_text import prose
    from evaluator.html.markdown import inline

    html = _html(f"- {prose(note)}")
    assert not re.search(r"<(a|img|b|h\d|ul|ol)[ >]", html.replace("<ul>\n<li>", "", 1)), html
    assert re.sub(r"<[^>]+>", "", html).strip() == re.sub(r"<[^>]+>", "", inline(note)).strip()


def test_our_own_code_and_bold_in_a_note_are_kept() -> None:
    from evaluator.artifacts.markdown_text import prose

    note = "**blocked** by `command_ran`: `python3 x.py` may not have run"
    assert prose(note) == note
    assert _html(prose(note)).count("<code>") == 2
