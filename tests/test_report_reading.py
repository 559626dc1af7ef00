"""The comparative and trigger reports as a reader sees them: words that say what happened, and
markdown shown as a page, never as its source (docs/real-repos.md, "Upstream repos, ninth
session")."""

from __future__ import annotations

from evaluator.html.markdown import render_markdown


def test_markdown_is_rendered_and_every_text_escaped() -> None:
    text = (
        "# Title <i>\n\n"
        "Some `<b>code</b>` and **bold <u>**.\n"
        "continued line\n\n"
        "- first <script>x</script>\n"
        "  carried on\n"
        "- second\n\n"
        "1. do this\n"
        "2. then that\n\n"
        "| case | text |\n"
        "|---|---|\n"
        "| a<b | pipe \\| inside |\n\n"
        "```\n<raw> & kept\n```\n"
    )
    html = render_markdown(text, heading_offset=1)
    assert "<h2>Title &lt;i&gt;</h2>" in html
    assert (
        "<p>Some <code>&lt;b&gt;code&lt;/b&gt;</code> and <strong>bold &lt;u&gt;</strong>."
        " continued line</p>" in html
    )
    assert (
        "<ul><li>first &lt;script&gt;x&lt;/script&gt; carried on</li><li>second</li></ul>" in html
    )
    assert "<ol><li>do this</li><li>then that</li></ol>" in html
    assert "<thead><tr><th>case</th><th>text</th></tr></thead>" in html
    assert "<tr><td>a&lt;b</td><td>pipe | inside</td></tr>" in html
    assert "<pre>&lt;raw&gt; &amp; kept</pre>" in html
    assert "<script>" not in html and "<i>" not in html and "|---|" not in html
