"""`comparison.html`: the side-by-side view of a comparison, beside `comparison.json` in the
candidate run."""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from evaluator.artifacts.rundir import write_atomic
from evaluator.compare.model import Comparison
from evaluator.compare.write import JSON_NAME
from evaluator.errors import InputError
from evaluator.html.comparison_view import build_comparison_view
from evaluator.html.page import render_page

COMPARISON_HTML = "comparison.html"


def render_comparison_html(comparison: Comparison, candidate_dir: Path) -> str:
    view = build_comparison_view(comparison, candidate_dir)
    return render_page("comparison.html.j2", view=view)


def write_comparison_html(comparison: Comparison, candidate_dir: Path) -> Path:
    path = candidate_dir / COMPARISON_HTML
    write_atomic(path, render_comparison_html(comparison, candidate_dir))
    return path


def rewrite_comparison_html(run_dir: Path) -> Path | None:
    """Re-renders `comparison.html` from the run's `comparison.json`, if the run has one."""
    source = run_dir / JSON_NAME
    if not source.is_file():
        return None
    try:
        comparison = Comparison.model_validate_json(source.read_text(encoding="utf-8"))
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(p) for p in error["loc"]) or "(top level)"
        raise InputError(f"unreadable comparison: {where}: {error['msg']}", path=source) from None
    return write_comparison_html(comparison, run_dir)
