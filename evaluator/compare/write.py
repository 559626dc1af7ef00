"""Where a comparison is written: `comparison.json` and `comparison.md` in the candidate run."""

from __future__ import annotations

from pathlib import Path

from evaluator.artifacts.rundir import write_atomic, write_json
from evaluator.compare.markdown import render_markdown
from evaluator.compare.model import Comparison

JSON_NAME = "comparison.json"
MARKDOWN_NAME = "comparison.md"


def write_comparison(comparison: Comparison, candidate_dir: Path) -> tuple[Path, Path]:
    json_path, markdown_path = candidate_dir / JSON_NAME, candidate_dir / MARKDOWN_NAME
    write_json(json_path, comparison)
    write_atomic(markdown_path, render_markdown(comparison))
    return json_path, markdown_path
