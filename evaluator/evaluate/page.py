"""`eval-report.html`: the evaluation for a browser, rendered through the one page template
(`html/page.py`: autoescaped, under the reports' Content-Security-Policy, no external asset): per
variant the pass rate and its Wilson interval, and per comparison a chart of each case's
difference with its Newcombe interval on a -100..+100 pp axis, the hurt cases first and red,
beside the numbers of `eval-report.md`."""

from __future__ import annotations

from dataclasses import dataclass

from markupsafe import Markup

from evaluator.evaluate.model import EvaluationResult, VariantComparison
from evaluator.html.markdown import render_markdown
from evaluator.html.page import render_page

EVAL_REPORT_HTML = "eval-report.html"
WIDTH, LABEL, ROW = 640, 260, 22  # chart width, case-label column, row height (px)
AXIS = WIDTH - LABEL - 20
HURT, BETTER, SAME = "#c0392b", "#1e8449", "#555"


def _x(value: float) -> str:
    """A difference in [-1, 1] on the chart's axis."""
    return f"{LABEL + (max(-1.0, min(1.0, value)) + 1) / 2 * AXIS:.1f}"


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 100:.1f}%"


def _pp(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 100:+.1f} pp"


@dataclass(frozen=True)
class Tick:
    x: str
    label: str
    dashed: bool


@dataclass(frozen=True)
class ChartRow:
    case_id: str
    y: int
    colour: str
    low: str | None
    high: str | None
    dot: str | None
    difference: str


@dataclass(frozen=True)
class ComparisonView:
    compared: str
    reference: str
    headline: str
    width: int
    height: int
    top: float
    bottom: int
    label_x: int
    ticks: list[Tick]
    rows: list[ChartRow]


@dataclass(frozen=True)
class VariantRow:
    label: str
    description: str
    pass_rate: str
    interval: str
    passed: int
    counted: int


@dataclass(frozen=True)
class EvaluationView:
    eval_id: str
    variants: list[VariantRow]
    comparisons: list[ComparisonView]
    report: Markup


def chart(comparison: VariantComparison) -> ComparisonView:
    height = ROW * (len(comparison.cases) + 2)
    rows = []
    for number, case in enumerate(comparison.cases, start=1):
        interval = case.interval
        rows.append(
            ChartRow(
                case_id=case.case_id,
                y=number * ROW,
                colour=HURT if case.hurt else BETTER if case.significant else SAME,
                low=_x(interval.low) if interval is not None else None,
                high=_x(interval.high) if interval is not None else None,
                dot=_x(case.difference) if case.difference is not None else None,
                difference=_pp(case.difference),
            )
        )
    return ComparisonView(
        compared=comparison.compared,
        reference=comparison.reference,
        headline=comparison.headline.text,
        width=WIDTH,
        height=height,
        top=ROW / 2,
        bottom=height - ROW,
        label_x=LABEL - 8,
        ticks=[Tick(_x(t), f"{t * 100:+.0f}", t != 0) for t in (-1.0, -0.5, 0.0, 0.5, 1.0)],
        rows=rows,
    )


def render_eval_page(result: EvaluationResult, markdown: str) -> str:
    variants = [
        VariantRow(
            label=v.label,
            description=v.description,
            pass_rate=_pct(v.pass_rate),
            interval=f"[{_pct(v.interval.low)}, {_pct(v.interval.high)}]" if v.interval else "n/a",
            passed=v.passed,
            counted=v.counted,
        )
        for v in result.variants
    ]
    view = EvaluationView(
        eval_id=result.eval_id,
        variants=variants,
        comparisons=[chart(c) for c in result.comparisons],
        report=_report(markdown),
    )
    return render_page("evaluation.html.j2", view=view)


def _report(markdown: str) -> Markup:
    """`eval-report.md` rendered under the page's "Report" heading: its own title (the page's
    `<h1>` already) is left out, its sections become `<h3>`. markdown-it escapes every text of
    it and renders no raw HTML (`html/markdown.py`), so its output is markup we made."""
    lines = markdown.splitlines()
    if lines and lines[0].startswith("# "):
        lines = lines[1:]
    return Markup(render_markdown("\n".join(lines), heading_offset=1))
