"""`report.html`: the run's self-contained HTML report, written next to `report.md`."""

from __future__ import annotations

from pathlib import Path

from evaluator.artifacts.models import CaseResult, Manifest
from evaluator.artifacts.rundir import RunDir, write_atomic
from evaluator.html.page import render_page
from evaluator.html.run_view import build_run_view

RUN_HTML = "report.html"


def render_run_html(run_dir: RunDir, manifest: Manifest, results: list[CaseResult]) -> str:
    return render_page("run.html.j2", run=build_run_view(run_dir, manifest, results))


def write_run_html(run_dir: RunDir, manifest: Manifest, results: list[CaseResult]) -> Path:
    path = run_dir.path / RUN_HTML
    write_atomic(path, render_run_html(run_dir, manifest, results))
    return path
