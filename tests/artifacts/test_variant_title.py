"""An `evaluate` variant's run is titled by what it is: every variant's run id is `run` (the
public layout, `variants/<label>/run`), so its reports name the variant and the evaluation."""

from __future__ import annotations

from pathlib import Path

from evaluator.artifacts.models import VariantRole
from evaluator.artifacts.report import render_report
from evaluator.artifacts.rundir import RunDir
from evaluator.html.run_page import render_run_html
from tests.artifacts.test_attribution import manifest


def test_a_variant_s_reports_name_the_variant_and_the_evaluation(tmp_path: Path) -> None:
    role = VariantRole(
        label="with_skill", evaluation_id="eval-7f3a", compared=["without_skill", "with_skill"]
    )
    variant = manifest(["c"], variant=role).model_copy(update={"run_id": "run"})
    title = "variant with_skill of evaluation eval-7f3a (against without_skill)"
    assert render_report(variant, []).splitlines()[0] == f"# Evaluation report: {title}"
    html = render_run_html(RunDir(tmp_path), variant, [])
    assert f"<title>Evaluation report: {title}" in html
    assert f"<h1>Evaluation report: {title}</h1>" in html


def test_a_run_of_its_own_keeps_its_id_as_its_title(tmp_path: Path) -> None:
    plain = manifest(["c"]).model_copy(update={"run_id": "20261129-abc"})
    assert render_report(plain, []).splitlines()[0] == "# Evaluation report: 20261129-abc"
    assert "<h1>Evaluation report: <code>20261129-abc</code></h1>" in render_run_html(
        RunDir(tmp_path), plain, []
    )
