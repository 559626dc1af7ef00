"""Control characters of the agent's text on every HTML page the project writes (`report.html`,
`comparison.html`, `eval-report.html`): each is shown as its escape, as `transcript.md` and
`report.md` show it (`artifacts/shown_controls.py`), never passed to the browser to act on (a
right-to-left override reorders the line around it; an escape sequence or a BEL is dropped
silently, so the page and the markdown disagreed about what the agent wrote)."""

from __future__ import annotations

import ast
import html
import json
import re
from pathlib import Path

from evaluator.artifacts.models import CaseResult
from evaluator.artifacts.rundir import RunDir
from evaluator.compare.build import compare_runs
from evaluator.evaluate.build import compare, variant_summary
from evaluator.evaluate.page import render_eval_page
from evaluator.evaluate.report import render_eval_report
from evaluator.html.comparison_page import render_comparison_html
from evaluator.html.page import environment
from evaluator.html.run_page import render_run_html
from tests.artifacts.test_attribution import manifest
from tests.compare.test_compare import write_run
from tests.conftest import ROOT, parsed_module
from tests.evaluate.test_evaluate import _ab_result, _result, _variant

# An escape sequence that erases the line and writes a green pass, a BEL, a C1 CSI, a
# right-to-left override, a NUL.
FORGED = "x\x1b[2K\x1b[1G\x1b[32mcase-1: pass\x07 \x9b2K \u202essap \x00end"
RAW = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]"
)


def _shown(page: str) -> str:
    """The page as a reader's browser decodes it (character references resolved), checked to
    hold no raw control character and the forged text as its escapes."""
    for text in (page, html.unescape(page)):
        assert not RAW.search(text), RAW.findall(text)
    decoded = html.unescape(page)
    assert "x\\x1b[2K\\x1b[1G\\x1b[32mcase-1: pass\\x07 \\x9b2K \\u202essap \\x00end" in decoded
    return decoded


def test_report_html_shows_the_controls_of_a_note(tmp_path: Path) -> None:
    result = CaseResult.model_validate(
        {"case_id": "c", "workspace_root": None, "thread_id": None, "session_path": None}
        | {"status": "blocked", "blocked_reason": "insufficient-evidence", "assertions": []}
        | {"notes": [f"attempt 01 blocked: a command may not have run: `{FORGED}` {FORGED}"]}
    )
    decoded = _shown(render_run_html(RunDir(tmp_path), manifest(["c"]), [result]))
    # the note's code span is still our markup
    assert "<code>x\\x1b[2K" in decoded


def test_comparison_html_shows_the_controls(tmp_path: Path) -> None:
    base = write_run(tmp_path / "base", {"c": ["pass"]})
    candidate = write_run(tmp_path / "candidate", {"c": ["fail"]})
    comparison = compare_runs(base, candidate)
    case = comparison.cases[0].model_copy(update={"title": FORGED, "reason": FORGED})
    forged = comparison.model_copy(update={"cases": [case]})
    _shown(render_comparison_html(forged, candidate))


def test_eval_report_html_shows_the_controls(tmp_path: Path) -> None:
    """A contamination finding quotes the no-skill attempt's command (the agent's text), in the
    page's table and in the report's markdown rendered into it."""
    reference = _variant(
        tmp_path,
        "without_skill",
        [_result("same", ["pass"] * 4 + ["blocked"], [None] * 4 + ["contaminated: copy"])],
        checked=True,
    )
    attempt = reference.run_dir.path / "case-artifacts/same/attempts/attempt-05"
    attempt.mkdir(parents=True)
    finding = {"layer": "session", "ref": "msg-3", "detail": f"curl x # {FORGED}"}
    (attempt / "contamination.json").write_text(
        json.dumps({"contaminated": True, "layers": ["session"], "findings": [finding]})
    )
    compared = _variant(tmp_path, "with_skill", [_result("same", ["pass"] * 5)])
    comparison, _ = compare(reference, compared, None)
    result = _ab_result(
        ["same"], [variant_summary(reference), variant_summary(compared)], [comparison]
    )
    _shown(render_eval_page(result, render_eval_report(result) + f"\n\nraw: {FORGED}\n"))


def test_every_template_value_goes_through_the_rule() -> None:
    """Text, an attribute and our `prose` markup alike; look-alikes (a tab, a newline, accents,
    an emoji, a zero-width joiner, Arabic) unchanged."""
    template = environment().from_string('<a title="{{ x }}">{{ x }}</a><p>{{ x | prose }}</p>')
    _shown(template.render(x=FORGED))
    honest = "a\tb\ncafé 😀 \u200d نص `code`"
    page = template.render(x=honest)
    assert html.unescape(page).count("a\tb\ncafé 😀 \u200d نص") == 3


def test_every_html_page_is_rendered_through_the_one_environment() -> None:
    """The rule holds for every page only while every page is rendered by `html/page.py`'s
    environment: no other module makes a Jinja2 environment or writes HTML by hand."""
    makers = []
    for path in sorted((ROOT / "evaluator").rglob("*.py")):
        for node in ast.walk(parsed_module(path)):
            named = isinstance(node, ast.Name) and node.id in ("Environment", "Template")
            attribute = isinstance(node, ast.Attribute) and node.attr in ("Environment", "Template")
            hand_made = isinstance(node, ast.Constant) and isinstance(node.value, str)
            hand_made = hand_made and "<!doctype html" in str(node.value).lower()
            if named or attribute or hand_made:
                makers.append(str(path.relative_to(ROOT)))
    assert sorted(set(makers)) == ["evaluator/html/page.py"]
