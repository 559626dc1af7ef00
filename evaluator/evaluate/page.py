"""`eval-report.html`: the evaluation for a browser, self-contained (no script, no external
asset): per variant the pass rate and its Wilson interval, and per comparison a chart of each
case's difference with its Newcombe interval on a -100..+100 pp axis, the hurt cases first and
red, beside the numbers of `eval-report.md`."""

from __future__ import annotations

from html import escape

from evaluator.evaluate.model import EvaluationResult, VariantComparison
from evaluator.html.markdown import render_markdown

EVAL_REPORT_HTML = "eval-report.html"
WIDTH, LABEL, ROW = 640, 260, 22  # chart width, case-label column, row height (px)
AXIS = WIDTH - LABEL - 20


def _x(value: float) -> float:
    """A difference in [-1, 1] on the chart's axis."""
    return LABEL + (max(-1.0, min(1.0, value)) + 1) / 2 * AXIS


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 100:.1f}%"


def _pp(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 100:+.1f} pp"


def chart(comparison: VariantComparison) -> str:
    cases = comparison.cases
    height = ROW * (len(cases) + 2)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}"'
        f' role="img" aria-label="per-case difference, {escape(comparison.compared)} minus'
        f' {escape(comparison.reference)}">'
    ]
    for tick in (-1.0, -0.5, 0.0, 0.5, 1.0):
        x = _x(tick)
        dash = "" if tick == 0 else ' stroke-dasharray="2,3"'
        parts.append(
            f'<line x1="{x:.1f}" y1="{ROW / 2}" x2="{x:.1f}" y2="{height - ROW}"'
            f' stroke="#999"{dash}/>'
            f'<text x="{x:.1f}" y="{height - 6}" font-size="11" text-anchor="middle">'
            f"{tick * 100:+.0f}</text>"
        )
    for row, case in enumerate(cases, start=1):
        y = row * ROW
        colour = "#c0392b" if case.hurt else "#1e8449" if case.significant else "#555"
        parts.append(
            f'<text x="{LABEL - 8}" y="{y + 4}" font-size="12" text-anchor="end">'
            f"{escape(case.case_id)}</text>"
        )
        if case.interval is not None:
            parts.append(
                f'<line x1="{_x(case.interval.low):.1f}" y1="{y}" x2="{_x(case.interval.high):.1f}"'
                f' y2="{y}" stroke="{colour}" stroke-width="3"/>'
            )
        if case.difference is not None:
            parts.append(
                f'<circle cx="{_x(case.difference):.1f}" cy="{y}" r="4" fill="{colour}">'
                f"<title>{escape(case.case_id)}: {_pp(case.difference)}</title></circle>"
            )
    parts.append("</svg>")
    return "".join(parts)


def render_eval_page(result: EvaluationResult, markdown: str) -> str:
    rows = "".join(
        f"<tr><td>{escape(v.label)}</td><td>{escape(v.description)}</td>"
        f"<td>{_pct(v.pass_rate)}</td><td>"
        + (f"[{_pct(v.interval.low)}, {_pct(v.interval.high)}]" if v.interval else "n/a")
        + f"</td><td>{v.passed}/{v.counted}</td></tr>"
        for v in result.variants
    )
    sections = "".join(
        f"<h2>{escape(c.compared)} vs {escape(c.reference)}</h2>"
        f"<p>{escape(c.headline.text)}</p>"
        "<p>Each case: the difference in pass rate (dot) and its 95% Newcombe interval (bar),"
        " in points; red: significantly hurt, green: significantly better.</p>"
        f"{chart(c)}"
        for c in result.comparisons
    )
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        f"<title>Evaluation {escape(result.eval_id)}</title>"
        "<style>body{font-family:sans-serif;max-width:60rem;margin:2rem auto}"
        "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2rem .5rem}"
        "pre{white-space:pre-wrap;background:#f6f6f6;padding:1rem}</style></head><body>"
        f"<h1>Evaluation {escape(result.eval_id)}</h1>"
        "<table><tr><th>variant</th><th>what</th><th>pass rate</th><th>95% CI (Wilson)</th>"
        f"<th>passed/counted</th></tr>{rows}</table>{sections}"
        f"<h2>Report</h2>{_report(markdown)}</body></html>\n"
    )


def _report(markdown: str) -> str:
    """`eval-report.md` rendered under the page's "Report" heading: its own title (the page's
    `<h1>` already) is left out, its sections become `<h3>`."""
    lines = markdown.splitlines()
    if lines and lines[0].startswith("# "):
        lines = lines[1:]
    return render_markdown("\n".join(lines), heading_offset=1)
