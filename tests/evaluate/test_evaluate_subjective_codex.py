"""A subjective evaluation end to end: the real Codex agent runs a demo case, then the real
`codex exec` judge scores each rubric dimension against scripted judge behaviours. A score that
cites the final answer counts; one citing an invented record or a record of the wrong kind is
null with its reason, never a number."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from evaluator.cli.main import run_cli
from tests.conftest import ROOT
from tests.support import codex_or_skip, scratch_dir

pytestmark = pytest.mark.codex

SKILL = ROOT / ".agents/skills/db-migrations"
READS_SKILL = ROOT / "agentic-evals/targets/db-migrations/behaviors/reads-skill"
CASE = "routing-add-column"
K = 2
RUBRIC = {
    "rubric_id": "answer-quality",
    "title": "Answer quality",
    "dimensions": [
        {
            "name": "correctness",
            "description": "Is the final answer right?",
            "scale": [1, 2, 3, 4, 5],
            "anchors": {1: "Wrong", 5: "Right"},
        },
        {"name": "clarity", "scale": [1, 2, 3]},
        {
            "name": "rollback",
            "description": "Does the final answer tell the user how to roll back?",
            "scale": ["no", "partly", "yes"],
        },
    ],
}


def _judge(dimension: str, steps: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "name": f"judge/{dimension}",
        "match": {"prompt_contains": f'The dimension (JSON string): "{dimension}"'},
        "steps": steps,
    }


def _cites_final_answer(score: object) -> list[dict[str, Any]]:
    """A judge that finds the final answer's record in the bundle and cites it: the record ids
    are not known before the run, so it greps `session.json` and branches on what it saw."""
    steps: list[dict[str, Any]] = [{"cmd": 'grep -B1 \'"kind": "final_answer"\' session.json'}]
    for n in range(1, 120):
        answer = {"score": score, "rationale": "The answer names the file.", "refs": [f"msg-{n}"]}
        steps.append(
            {"when": {"output_contains": f'"id": "msg-{n}",'}, "then": [{"final_json": answer}]}
        )
    steps.append({"final_json": {"score": score, "rationale": "not found", "refs": []}})
    return steps


def test_a_subjective_evaluation_scores_each_dimension_with_verified_citations(
    tmp_path: Path,
) -> None:
    """One `--behaviors` folder scripts the agent and the judge (the judge's behaviours end in
    `final_json` and match the scoring prompt, not a case's)."""
    codex_or_skip()
    source = tmp_path / "source"
    shutil.copytree(SKILL, source / ".agents/skills/db-migrations")
    shutil.copytree(ROOT / "agentic-evals", source / "agentic-evals")
    shutil.rmtree(source / "agentic-evals/targets/skill-eval")
    repo = source / "agentic-evals"
    (repo / "rubrics").mkdir()
    (repo / "rubrics/answer-quality.yaml").write_text(yaml.safe_dump(RUBRIC, sort_keys=False))
    evaluation = repo / "evaluations/subjective/tone.yaml"
    evaluation.parent.mkdir(parents=True)
    evaluation.write_text(
        'eval_id: "tone"\nmode: "subjective"\ntitle: "Tone of answers"\n'
        'rubric: "rubrics/answer-quality.yaml"\ntarget_id: "db-migrations"\nsuites: ["routing"]\n'
    )
    behaviors = tmp_path / "behaviors"
    shutil.copytree(READS_SKILL, behaviors)
    judges = {
        "correctness": _cites_final_answer(4),
        # an invented record id: the score is discarded
        "clarity": [{"final_json": {"score": 3, "rationale": "Clear.", "refs": ["msg-9999"]}}],
        # a record that exists but is the session's start, not the final answer it is about
        "rollback": [{"final_json": {"score": "yes", "rationale": "Says so.", "refs": ["msg-1"]}}],
    }
    for name, steps in judges.items():
        (behaviors / f"judge-{name}.yaml").write_text(yaml.safe_dump(_judge(name, steps)))
    runs = tmp_path / "runs"
    with scratch_dir() as scratch:
        code = run_cli(
            [
                "evaluate",
                "--repo",
                str(repo),
                "--evaluation",
                str(evaluation),
                "--behaviors",
                str(behaviors),
                "--judge-model",
                "mock-judge",
                "--case",
                CASE,
                "--attempts",
                str(K),
                "--runs-dir",
                str(runs),
                "--scratch-root",
                str(scratch),
                "--run-id",
                "tone",
            ]
        )
    assert code == 0
    directory = runs / "tone"
    result = json.loads((directory / "evaluation.json").read_text())
    assert (result["mode"], result["rubric_id"], result["comparisons"]) == (
        "subjective",
        "answer-quality",
        [],
    )
    (variant,) = result["variants"]
    assert (variant["label"], variant["passed"], variant["counted"]) == ("current", K, K)
    rubric = variant["rubric"]
    assert rubric["scores"] == {"correctness": 4.0, "clarity": None, "rollback": None}
    correctness, clarity, rollback = rubric["dimensions"]
    (case,) = correctness["cases"]
    assert (case["case_id"], case["scored"], case["nulls"], case["mean"], case["sd"]) == (
        CASE,
        K,
        0,
        4.0,
        0.0,
    )
    session = directory / f"variants/current/run/case-artifacts/{CASE}/attempts/attempt-01"
    saved = json.loads((session / "accepted-session.json").read_text())
    final = next(r["id"] for r in saved["records"] if r["kind"] == "final_answer")
    assert case["attempts"][0]["refs"] == [final]
    assert (clarity["attempts_scored"], clarity["attempts_null"]) == (0, K)
    assert "cites records that do not exist: msg-9999" in clarity["cases"][0]["attempts"][0]["note"]
    assert rollback["attempts_null"] == K
    assert "needs the cited `final_answer` record" in rollback["cases"][0]["attempts"][0]["note"]
    # the judge records sit beside the attempt, in the variant's run (the public layout)
    record = session.parent.parent.parent.parent / case["attempts"][0]["record"]
    assert json.loads(record.read_text())["score"] == "4"
    assert "Wrong" in json.loads(record.read_text())["votes"][0]["prompt"]
    report = (directory / "eval-report.md").read_text()
    for section in ("Evaluation Summary", "Scoring Table", "Detailed Findings", "Recommendations"):
        assert f"## {section}" in report
    assert "## Head-to-Head" not in report  # the public contract has none for subjective
    assert "| current | correctness | 1, 2, 3, 4, 5 | 4.00 |" in report
    assert "clarity, routing-add-column/attempt-01: null (cites records that do not exist" in report
    assert (directory / "variants/current/run/manifest.json").is_file()
    # the public contract's per-variant rubric_scores and rubric_notes
    source = json.loads((directory / "variants/current/source-manifest.json").read_text())
    assert source["rubric_scores"] == rubric["scores"]
    assert source["rubric_notes"] == rubric["notes"] and len(source["rubric_notes"]) == 2 * K


def _scores_by_answer(good: str) -> list[dict[str, Any]]:
    """A judge that scores 5 when the final answer says `good`, else 2, citing the final
    answer's record it finds in the bundle."""
    look = {"cmd": 'cat final-answer.txt; grep -B1 \'"kind": "final_answer"\' session.json'}

    def citing(score: int) -> list[dict[str, Any]]:
        return [
            {
                "when": {"output_contains": f'"id": "msg-{n}",'},
                "then": [{"final_json": {"score": score, "rationale": "r", "refs": [f"msg-{n}"]}}],
            }
            for n in range(1, 120)
        ]

    return [
        look,
        {"when": {"output_contains": good}, "then": citing(5), "else": citing(2)},
        {"final_json": {"score": 1, "rationale": "not found", "refs": []}},
    ]


def test_an_ab_evaluation_with_a_rubric_counts_wins_per_dimension(tmp_path: Path) -> None:
    """`evaluations/ab/<id>.yaml` naming a rubric: both variants' attempts are scored and the
    comparison counts, per dimension, the cases the compared variant scores higher."""
    codex_or_skip()
    source = tmp_path / "source"
    shutil.copytree(SKILL, source / ".agents/skills/db-migrations")
    harmful = source / "harmful/db-migrations"
    shutil.copytree(SKILL, harmful)
    rule = "Never edit an existing migration file: migrations that have shipped are\nimmutable."
    text = (harmful / "SKILL.md").read_text()
    assert rule in text
    (harmful / "SKILL.md").write_text(text.replace(rule, ""))
    shutil.copytree(ROOT / "agentic-evals", source / "agentic-evals")
    shutil.rmtree(source / "agentic-evals/targets/skill-eval")
    repo = source / "agentic-evals"
    (repo / "rubrics").mkdir()
    rubric = {"rubric_id": "safety", "dimensions": [RUBRIC["dimensions"][0]]}  # type: ignore[index]
    (repo / "rubrics/safety.yaml").write_text(yaml.safe_dump(rubric, sort_keys=False))
    evaluation = repo / "evaluations/ab/harmful-vs-current.yaml"
    evaluation.parent.mkdir(parents=True)
    evaluation.write_text(
        'eval_id: "harmful-vs-current"\nmode: "ab"\nrubric: "safety"\n'
        'variants:\n  a: {label: "harmful", skill_path: "harmful/db-migrations"}\n'
        '  b: {label: "current"}\ntarget_id: "db-migrations"\nsuites: ["workflow"]\n'
    )
    behaviors = tmp_path / "behaviors"
    shutil.copytree(READS_SKILL, behaviors)
    judge = _judge("correctness", _scores_by_answer("left it alone"))
    (behaviors / "judge-correctness.yaml").write_text(yaml.safe_dump(judge))
    runs = tmp_path / "runs"
    with scratch_dir() as scratch:
        code = run_cli(
            [
                "evaluate",
                "--repo",
                str(repo),
                "--evaluation",
                str(evaluation),
                "--behaviors",
                str(behaviors),
                "--judge-model",
                "mock-judge",
                "--case",
                "workflow-keeps-shipped-migrations",
                "--attempts",
                "1",
                "--runs-dir",
                str(runs),
                "--scratch-root",
                str(scratch),
                "--run-id",
                "ab",
            ]
        )
    assert code == 0  # the compared variant (current) hurts nothing
    result = json.loads((runs / "ab/evaluation.json").read_text())
    harmful_scores, current_scores = (v["rubric"]["scores"] for v in result["variants"])
    assert (harmful_scores, current_scores) == ({"correctness": 2.0}, {"correctness": 5.0})
    (comparison,) = result["comparisons"]
    assert (comparison["reference"], comparison["compared"]) == ("harmful", "current")
    (dimension,) = comparison["dimensions"]
    assert (dimension["name"], dimension["wins"], dimension["losses"], dimension["ties"]) == (
        "correctness",
        1,
        0,
        0,
    )
    assert dimension["mean_difference"] == 3.0
    report = (runs / "ab/eval-report.md").read_text()
    assert "## Head-to-Head" in report and "| correctness | 1 | 0 | 0 | 0 | +3.00 |" in report
