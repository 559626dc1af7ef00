"""Rubric scores without a model: verification of a score (citations, scale), the vote majority,
the spread per case and variant, head-to-head wins, the grader's `score` through a fake backend,
and the bad input of subjective evaluations (exit 2, one line, before anything runs)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from evaluator.cli.main import run_cli
from evaluator.contract.models import Rubric
from evaluator.errors import InputError
from evaluator.evaluate.build import FinishedVariant, compare, variant_summary
from evaluator.evaluate.model import AttemptScore, EvaluationResult
from evaluator.evaluate.report import render_eval_report
from evaluator.evaluate.rubric import (
    _case,
    dimension_head_to_head,
    dimension_items,
    load_rubric,
    score_variant,
)
from evaluator.evaluate.variants import load_evaluation
from evaluator.evidence import SessionEvidence
from evaluator.grader import Grader, GraderSettings, JudgeBackend, JudgeCall, JudgeReply
from evaluator.grader.scoring import decide, verify_score
from evaluator.judge.scoring import DimensionItem, DimensionScore, VoteScore, scale_value
from evaluator.modelserver import Behavior, BehaviorLibrary
from evaluator.modelserver.behaviors import coverage_problems
from evaluator.plan import open_repo
from evaluator.repo import rubric_file
from evaluator.stats.spread import head_to_head, spread
from tests.conftest import ROOT
from tests.evaluate.test_evaluate import _result, _variant

UPSTREAM = ROOT / "tests/fixtures/upstream/agentic-evals"
WS = "/work/ws"
RECORDS: dict[str, dict[str, Any]] = {
    "msg-1": {"id": "msg-1", "kind": "session_meta"},
    "msg-2": {"id": "msg-2", "kind": "command_observed", "command": "cat SKILL.md"},
    "msg-3": {"id": "msg-3", "kind": "file_write_observed", "path": f"{WS}/notes.txt"},
    "msg-4": {"id": "msg-4", "kind": "final_answer", "text": "Done."},
}
CORRECTNESS = DimensionItem(
    "answer-quality", "correctness", "Is it right?", ("1", "2", "3", "4", "5"), (("1", "Wrong"),)
)
ANSWER = DimensionItem("r", "tone", "How the final answer sounds to the user", ("1", "2", "3"))
WORDS = DimensionItem("r", "style", None, ("poor", "fair", "good"))


def scored(item: DimensionItem, score: object, *refs: str) -> tuple[str | None, list[str]]:
    raw = json.dumps({"score": score, "rationale": "because", "refs": list(refs)})
    result = verify_score(raw, item, RECORDS, WS)
    return result.score, result.problems


def test_a_score_citing_what_the_agent_did_counts() -> None:
    assert scored(CORRECTNESS, 4, "msg-2", "msg-4") == ("4", [])
    assert scored(CORRECTNESS, "5", "msg-3") == ("5", [])
    assert scored(WORDS, "fair", "msg-4") == ("fair", [])


def test_invented_missing_or_wrong_kind_citations_give_a_null_score() -> None:
    score, problems = scored(CORRECTNESS, 4, "msg-4", "msg-99")
    assert score is None and problems == ["cites records that do not exist: msg-99"]
    score, problems = scored(CORRECTNESS, 4)
    assert score is None and problems == ["a score cites no record"]
    # the session's start shows nothing the agent did
    score, problems = scored(CORRECTNESS, 4, "msg-1")
    assert score is None and problems == ["the cited records show nothing the agent did"]
    # a dimension about the final answer needs the final answer cited, not a command
    score, problems = scored(ANSWER, 3, "msg-2")
    assert score is None
    assert problems == ["a claim about the final answer needs the cited `final_answer` record"]
    assert scored(ANSWER, 3, "msg-4") == ("3", [])


def test_a_score_off_the_scale_or_a_malformed_reply_is_null() -> None:
    score, problems = scored(CORRECTNESS, 6, "msg-4")
    assert score is None and problems == ["score '6' is not on the scale 1, 2, 3, 4, 5"]
    assert scored(WORDS, "excellent", "msg-4")[0] is None
    assert scored(CORRECTNESS, 4.5, "msg-4")[0] is None  # not an integer or a scale word
    bad = verify_score("not json", CORRECTNESS, RECORDS, WS)
    assert bad.score is None and bad.problems == ["the reply is not JSON"]
    extra = json.dumps({"score": 4, "rationale": "r", "refs": ["msg-4"], "bonus": 1})
    assert verify_score(extra, CORRECTNESS, RECORDS, WS).score is None


def test_votes_need_a_verified_majority_and_report_their_spread() -> None:
    votes = [VoteScore(1, "4"), VoteScore(2, "5"), VoteScore(3, None, "cites msg-99")]
    decision = decide(CORRECTNESS, votes)
    assert (decision.score, decision.value) == ("4", 4.5)
    assert decision.note == "3 votes: 4, 5, null; vote 3: cites msg-99"
    two_null = [VoteScore(1, "4"), VoteScore(2, None, "x"), VoteScore(3, None, "y")]
    decision = decide(CORRECTNESS, two_null)
    assert decision.score is None and decision.value is None
    assert "no majority of verified scores" in (decision.note or "")
    single = decide(WORDS, [VoteScore(1, "good")])
    assert (single.score, single.value, single.note) == ("good", 3.0, None)
    assert decide(CORRECTNESS, [VoteScore(1, None, "off the scale")]).score is None


def test_a_scale_of_words_is_ordinal_and_numbers_are_their_value() -> None:
    assert scale_value(WORDS, "poor") == 1.0 and scale_value(WORDS, "good") == 3.0
    assert scale_value(CORRECTNESS, "4") == 4.0


def test_case_and_variant_spreads_leave_nulls_out() -> None:
    attempts = [
        AttemptScore(attempt=1, score="4", value=4.0, votes=[4.0, 4.0, 4.0], refs=[], record=None),
        AttemptScore(attempt=2, score=None, value=None, votes=[None], refs=[], record=None),
        AttemptScore(attempt=3, score="2", value=3.0, votes=[2.0, 4.0, None], refs=[], record=None),
    ]
    case = _case("c1", attempts)
    assert (case.scored, case.nulls, case.mean, case.low, case.high) == (2, 1, 3.5, 3.0, 4.0)
    assert case.sd == pytest.approx(0.7071, abs=1e-4)
    # within-attempt vote sds: 0 for the unanimous attempt, 1.414 for (2, 4); mean 0.707
    assert case.vote_sd == pytest.approx(0.7071, abs=1e-4)
    nothing = spread([None, None])
    assert (nothing.n, nothing.nulls, nothing.mean, nothing.sd) == (0, 2, None, None)
    one = spread([3.0])
    assert (one.mean, one.sd, one.low, one.high) == (3.0, None, 3.0, 3.0)


def test_head_to_head_counts_wins_losses_and_ties_per_case() -> None:
    count = head_to_head([3.0, 4.0, 2.0, None, 5.0], [4.0, 4.0, 1.0, 3.0, None])
    assert (count.wins, count.losses, count.ties, count.untested) == (1, 1, 1, 2)
    assert count.mean_difference == pytest.approx(0.0)


class FakeJudge(JudgeBackend):
    """Answers each dimension with the reply scripted for it (found by the dimension's name in
    the prompt), and keeps the prompts and schemas it was asked with."""

    name = "fake"

    def __init__(self, replies: dict[str, str]) -> None:
        self.replies = replies
        self.calls: list[JudgeCall] = []

    @property
    def model(self) -> str:
        return "fake-model"

    def ask(self, call: JudgeCall) -> JudgeReply:
        self.calls.append(call)
        for name, raw in self.replies.items():
            if f'The dimension (JSON string): "{name}"' in call.prompt:
                return JudgeReply(raw)
        return JudgeReply(None, "no reply scripted")


def test_the_grader_scores_each_dimension_shows_the_anchors_and_records_why(
    tmp_path: Path,
) -> None:
    evidence = SessionEvidence.from_json(
        {"final_answer": "Done.", "records": list(RECORDS.values()), "complete": True}
    )
    clarity = DimensionItem("answer-quality", "clarity", None, ("1", "2", "3"))
    backend = FakeJudge(
        {
            "correctness": json.dumps({"score": 5, "rationale": "r", "refs": ["msg-2", "msg-4"]}),
            "clarity": json.dumps({"score": 3, "rationale": "r", "refs": ["msg-42"]}),
        }
    )
    grader = Grader(backend, GraderSettings(scratch_root=tmp_path / "scratch"))
    records = tmp_path / "run/case-artifacts/c1/attempts/attempt-01/rubric"
    first, second = grader.score([CORRECTNESS, clarity], evidence, Path(WS), records)
    assert (first.dimension, first.score, first.value, first.refs) == (
        "correctness",
        "5",
        5.0,
        ("msg-2", "msg-4"),
    )
    assert second.score is None and second.value is None
    assert second.note == "cites records that do not exist: msg-42"
    # the two calls run in parallel: find correctness's by its dimension
    (call,) = [c for c in backend.calls if '(JSON string): "correctness"' in c.prompt]
    assert call.prompt.startswith("# agentic-eval judge request: rubric score")
    assert '{"1": "Wrong"}' in call.prompt and '["1", "2", "3", "4", "5"]' in call.prompt
    assert call.answer_schema["properties"]["score"]["enum"] == list(CORRECTNESS.scale)
    assert first.record_path is not None
    assert first.record_path.startswith("case-artifacts/c1/attempts/attempt-01/rubric/rubric.")
    saved = json.loads((tmp_path / "run" / str(second.record_path)).read_text())
    assert saved["score"] is None and saved["votes"][0]["verification"]["ok"] is False
    # asked again about the same evidence: answered from the cache, no model call
    grader.score([CORRECTNESS], evidence, Path(WS), records)
    assert len(backend.calls) == 2


def test_the_upstream_subjective_file_loads_as_one_variant_with_its_rubric() -> None:
    repo = open_repo(UPSTREAM, None, lenient=True)
    plan = load_evaluation(UPSTREAM / "evaluations/subjective/tone.yaml", repo)
    assert plan.mode == "subjective"
    assert [(v.label, v.kind) for v in plan.variants] == [("current", "current")]
    assert plan.rubric is not None
    items = dimension_items(plan.rubric)
    assert [(i.name, i.scale, i.anchors) for i in items] == [
        ("correctness", ("1", "2", "3", "4", "5"), (("1", "Wrong"), ("5", "Right"))),
        ("clarity", ("1", "2", "3"), ()),
    ]
    # `rubric` is a path in the eval repo, as upstream writes it, or a rubric id
    assert rubric_file("rubrics/answer-quality.yaml", UPSTREAM) == rubric_file(
        "answer-quality", UPSTREAM
    )
    # the ab file names the same rubric; it is loaded for its head-to-head
    ab = load_evaluation(UPSTREAM / "evaluations/ab/skill-v1-vs-v2.yaml", repo)
    assert ab.rubric is not None and ab.rubric.rubric_id == "answer-quality"


def _evaluate(repo: Path, runs: Path, evaluation: Path, *extra: str) -> int:
    return run_cli(
        [
            "evaluate",
            "--repo",
            str(repo),
            "--runs-dir",
            str(runs),
            "--lenient",
            "--evaluation",
            str(evaluation),
            *extra,
        ]
    )


@pytest.fixture
def upstream(tmp_path: Path) -> Path:
    copy = tmp_path / "agentic-evals"
    shutil.copytree(UPSTREAM, copy)
    return copy


@pytest.mark.parametrize(
    ("rubric", "expected"),
    [
        (None, "answer-quality.yaml:9:7: dimensions[0].anchors: anchor '7' is not on the scale"),
        ("rubrics/missing.yaml", "tone.yaml:4:9: rubric: rubric file not found:"),
    ],
)
def test_a_rubric_that_does_not_load_is_one_line_and_exit_2(
    upstream: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    rubric: str | None,
    expected: str,
) -> None:
    evaluation = upstream / "evaluations/subjective/tone.yaml"
    if rubric is None:
        path = upstream / "rubrics/answer-quality.yaml"
        path.write_text(path.read_text().replace('"5": "Right"', '"7": "Right"'))
    else:
        evaluation.write_text(evaluation.read_text().replace("rubrics/answer-quality.yaml", rubric))
    runs = tmp_path / "runs"
    assert _evaluate(upstream, runs, evaluation, "--judge-model", "m") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and expected in err[0], err
    assert not runs.exists()


def test_a_rubric_with_a_bad_field_names_it(upstream: Path, tmp_path: Path) -> None:
    path = upstream / "rubrics/answer-quality.yaml"
    path.write_text(path.read_text().replace("scale: [1, 2, 3]", "scale: []"))
    with pytest.raises(InputError, match=r"answer-quality.yaml:\d+:\d+: dimensions\[1\]\.scale"):
        load_rubric(path, lenient=True)


def test_a_subjective_evaluation_without_a_model_judge_is_refused(
    upstream: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    evaluation = upstream / "evaluations/subjective/tone.yaml"
    runs = tmp_path / "runs"
    assert _evaluate(upstream, runs, evaluation, "--judge", "rules") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert "--judge: a subjective evaluation scores its rubric with the model judge" in err[0]
    assert _evaluate(upstream, runs, evaluation) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "give --judge-model" in err[0], err
    assert not runs.exists()


class ScoreByCase:
    """A scorer that gives each case the scores scripted for it (the case is read from the
    record directory), so the aggregation can be checked by hand; it counts its calls."""

    def __init__(self, scores: dict[str, list[str | None]]) -> None:
        self.scores = scores
        self.calls: list[str] = []

    def score(
        self,
        dimensions: list[DimensionItem],
        evidence: SessionEvidence,
        workspace: Path,
        record_dir: Path,
        files_root: Path | None = None,
    ) -> list[DimensionScore]:
        case = record_dir.parents[2].name
        attempt = int(record_dir.parent.name.removeprefix("attempt-"))
        self.calls.append(f"{case}/{attempt}")
        given = self.scores[case][attempt - 1]
        return [
            DimensionScore(
                d.name,
                given,
                None if given is None else scale_value(d, given),
                (VoteScore(1, given, None if given else "cites msg-99"),),
                "r",
                ("msg-4",) if given else (),
                None,
                None if given else "cites msg-99",
            )
            for d in dimensions
        ]


def _scored_variant(tmp_path: Path, label: str, statuses: dict[str, list[str]]) -> FinishedVariant:
    results = [_result(case, s) for case, s in statuses.items()]
    variant = _variant(tmp_path, label, results)
    for result in results:
        for record in result.attempts:
            directory = variant.run_dir.attempt_artifacts(result.case_id, record.attempt)
            directory.mkdir(parents=True)
            (directory / "accepted-session.json").write_text(
                json.dumps({"final_answer": "Done.", "records": list(RECORDS.values())})
            )
    return variant


def test_judged_attempts_are_scored_aggregated_and_compared_per_dimension(tmp_path: Path) -> None:
    rubric = Rubric.model_validate(
        {"rubric_id": "q", "dimensions": [{"name": "correctness", "scale": [1, 2, 3, 4, 5]}]}
    )
    old = _scored_variant(tmp_path, "v1", {"a": ["pass", "fail"], "b": ["pass", "pass"]})
    new = _scored_variant(tmp_path, "v2", {"a": ["pass", "blocked"], "b": ["pass", "pass"]})
    old_scorer = ScoreByCase({"a": ["2", "4"], "b": ["5", None]})
    new_scorer = ScoreByCase({"a": ["4", "1"], "b": ["3", "3"]})
    ours = score_variant(old_scorer, old, rubric, tmp_path)
    theirs = score_variant(new_scorer, new, rubric, tmp_path)
    assert new_scorer.calls == ["a/1", "b/1", "b/2"]  # a blocked attempt is not scored
    (dimension,) = ours.dimensions
    a, b = dimension.cases
    assert (a.mean, a.scored, a.nulls, b.mean, b.scored, b.nulls) == (3.0, 2, 0, 5.0, 1, 1)
    assert a.sd == pytest.approx(1.4142, abs=1e-4) and b.sd is None
    assert (dimension.mean, dimension.cases_scored) == (4.0, 2)
    assert (dimension.attempts_scored, dimension.attempts_null) == (3, 1)
    assert ours.scores == {"correctness": 4.0}
    assert ours.notes == ["correctness, b/attempt-02: null (cites msg-99)"]
    (versus,) = dimension_head_to_head(ours, theirs)
    # a: 3.0 -> 4.0 (win), b: 5.0 -> 3.0 (loss)
    assert (versus.wins, versus.losses, versus.ties, versus.untested) == (1, 1, 0, 0)
    assert versus.mean_difference == pytest.approx(-0.5)
    comparison, _ = compare(old, new, None)
    comparison.dimensions = [versus]
    summaries = [
        variant_summary(old).model_copy(update={"rubric": ours}),
        variant_summary(new).model_copy(update={"rubric": theirs}),
    ]
    result = EvaluationResult(
        eval_id="e",
        mode="ab",
        target_id="t",
        suite_ids=["s"],
        case_ids=["a", "b"],
        agent="codex-exec",
        attempts=2,
        started_at="now",
        interleaved=True,
        variants=summaries,
        comparisons=[comparison],
        rubric_id="q",
    )
    report = render_eval_report(result)
    assert "## Head-to-Head" in report
    assert "| correctness | 1 | 1 | 0 | 0 | -0.50 |" in report
    assert "| v1 | correctness | 1, 2, 3, 4, 5 | 4.00 | 1.41 | 3.00..5.00 | 2/2 | 3/1 |" in report
    subjective = result.model_copy(update={"mode": "subjective", "comparisons": []})
    assert "## Head-to-Head" not in render_eval_report(subjective)
    # Scored with at least one verified score: no failure for that reason; every score null:
    # the evaluation answered nothing it was asked (exit 1); not scored at all: nothing to say.
    from evaluator.cli.evaluate import rubric_unscored

    assert not rubric_unscored(result)
    nothing = ours.model_copy(update={"scores": {"correctness": None}})
    all_null = [v.model_copy(update={"rubric": nothing}) for v in summaries]
    assert rubric_unscored(result.model_copy(update={"variants": all_null}))
    unrubricked = [v.model_copy(update={"rubric": None}) for v in summaries]
    assert not rubric_unscored(result.model_copy(update={"variants": unrubricked}))


def test_one_behaviours_folder_scripts_the_agent_and_the_judge() -> None:
    """A behaviour ending in `final_json` answers the judge's prompt, which no case has; one
    ending in `final` that matches no case prompt is still refused."""
    agent = Behavior.model_validate(
        {"name": "agent", "match": {"prompt_contains": "add a column"}, "steps": [{"final": "ok"}]}
    )
    judge = Behavior.model_validate(
        {
            "name": "judge/clarity",
            "match": {"prompt_contains": 'The dimension (JSON string): "clarity"'},
            "steps": [{"final_json": {"score": 3, "rationale": "r", "refs": ["msg-2"]}}],
        }
    )
    stray = Behavior.model_validate(
        {"name": "stray", "match": {"prompt_contains": "nobody asks"}, "steps": [{"final": "x"}]}
    )
    prompts = {"c": "Please add a column."}
    assert coverage_problems(BehaviorLibrary([agent, judge]), prompts) == []
    (problem,) = coverage_problems(BehaviorLibrary([agent, judge, stray]), prompts)
    assert "behaviour 'stray' matches no case prompt" in str(problem)
