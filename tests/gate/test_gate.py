"""`agentic-eval gate` reproduces the real SkillOpt gate on verified scores of any contract run dir."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from skillopt.evaluation.gate import evaluate_gate, select_gate_score

from evaluator.cli.main import main

Case = tuple[str, int, int]  # (status, assertion entries passed, entries)


def P(entries: int = 2) -> Case:
    return ("pass", entries, entries)


def F(passed: int = 0, entries: int = 2) -> Case:
    return ("fail", passed, entries)


TIMEOUT: Case = ("blocked:insufficient-evidence", 0, 2)  # another evaluator's blocked: counts 0
UNCLEAR: Case = ("blocked:unclear-rule", 0, 2)  # excluded from the score


def write_run(directory: Path, cases: list[Case], state: str = "completed") -> Path:
    """A minimal run dir as another evaluator would write it: only the contract's fields."""
    ids = [f"case-{i}" for i in range(len(cases))]
    directory.mkdir(parents=True)
    manifest = {"run_id": directory.name, "run_state": state, "resolved_case_ids": ids}
    (directory / "manifest.json").write_text(json.dumps(manifest))
    (directory / "case-results").mkdir()
    for case_id, (status, passed, entries) in zip(ids, cases, strict=True):
        status, _, reason = status.partition(":")
        assertions = [
            {"summary": f"entry {i}", "status": "pass" if i < passed else "fail", "evidence": []}
            for i in range(entries)
        ]
        if status == "blocked":
            assertions = [{"summary": "x", "status": "blocked", "evidence": []}]
        result = {"case_id": case_id, "status": status, "assertions": assertions}
        if reason:
            result["blocked_reason"] = reason
        (directory / "case-results" / f"{case_id}.json").write_text(json.dumps(result))
    return directory


def expected_scores(cases: list[Case]) -> tuple[float, float]:
    """hard and soft computed by hand from the spec: the unclear-rule cases are left out."""
    counted = [c for c in cases if c != UNCLEAR]
    hard = sum(1 for c in counted if c[0] == "pass") / len(counted)
    soft = sum((c[1] / c[2]) if not c[0].startswith("blocked") else 0.0 for c in counted)
    return hard, soft / len(counted)


def gate(
    capsys: pytest.CaptureFixture[str], *args: str, as_json: bool = True
) -> tuple[int, dict[str, Any] | str]:
    with pytest.raises(SystemExit) as info:
        main(["gate", *args, *(["--json"] if as_json else [])])
    out = capsys.readouterr()
    code = int(info.value.code or 0)
    if as_json and code in (0, 1):
        return code, json.loads(out.out)
    if as_json:  # an error: the one line on stderr, and the same problem as JSON on stdout
        error = json.loads(out.out)
        assert error["ok"] is False and error["exit_code"] == code
        assert f"agentic-eval: {error['errors'][0]['text']}" in out.err
        return code, out.err
    return code, out.out + out.err


TABLE: list[tuple[str, list[Case], list[Case] | None, list[Case] | None, str, float]] = [
    # name, candidate, current, best, metric, mixed weight
    ("first-skill-no-current", [P(), F()], None, None, "hard", 0.5),
    ("beats-current-no-best", [P(), P()], [P(), F()], None, "hard", 0.5),
    ("tie-with-current-rejected", [P(), F()], [F(), P()], None, "hard", 0.5),
    ("beats-current-ties-best-accept", [P(), F()], [F(), F()], [P(), F()], "hard", 0.5),
    ("beats-current-below-best", [P(), F(), F()], [F(), F(), F()], [P(), P(), F()], "hard", 0.5),
    ("beats-both-new-best", [P(), P(), F()], [P(), F(), F()], [P(), F(), F()], "hard", 0.5),
    ("below-current", [F(), F()], [P(), F()], [P(), F()], "hard", 0.5),
    ("blocked-only-by-agent-scores-zero", [TIMEOUT, TIMEOUT], [P(), F()], None, "hard", 0.5),
    ("blocked-only-current", [F(1), F()], [TIMEOUT, TIMEOUT], None, "soft", 0.5),
    ("eval-blocked-in-both-left-out", [P(), UNCLEAR, P()], [P(), UNCLEAR, F()], None, "hard", 0.5),
    ("soft-breaks-hard-tie", [F(1), F()], [F(), F()], None, "soft", 0.5),
    ("soft-tie-rejected", [F(1), F()], [F(), F(1)], None, "soft", 0.5),
    ("mixed-default-weight", [F(1), P()], [P(), F()], None, "mixed", 0.5),
    (
        "mixed-quarter-weight",
        [F(1, 4), F(3, 4)],
        [F(2, 4), F(1, 4)],
        [P(4), F(0, 4)],
        "mixed",
        0.25,
    ),
    ("mixed-weight-above-one-is-soft", [F(1), F()], [F(), F()], None, "mixed", 1.7),
    ("mixed-weight-below-zero-is-hard", [F(1), F()], [F(), F()], None, "mixed", -0.3),
    ("mixed-tie-with-best", [P(), F(1)], [F(), F()], [F(2), P()], "mixed", 0.5),
]


@pytest.mark.parametrize(
    "candidate,current,best,metric,weight", [t[1:] for t in TABLE], ids=[t[0] for t in TABLE]
)
def test_gate_agrees_with_skillopt(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    candidate: list[Case],
    current: list[Case] | None,
    best: list[Case] | None,
    metric: str,
    weight: float,
) -> None:
    args = ["--candidate", str(write_run(tmp_path / "cand", candidate))]
    args += ["--metric", metric, "--mixed-weight", str(weight), "--min-coverage", "0"]
    # SkillOpt's trainer starts with current = best = -1.0, and best tracks current until beaten.
    cur_score = best_score = -1.0
    if current is not None:
        args += ["--current", str(write_run(tmp_path / "cur", current))]
        cur_score = best_score = select_gate_score(*expected_scores(current), metric, weight)  # type: ignore[arg-type]
    if best is not None:
        args += ["--best", str(write_run(tmp_path / "best", best))]
        best_score = select_gate_score(*expected_scores(best), metric, weight)  # type: ignore[arg-type]
    hard, soft = expected_scores(candidate)
    theirs = evaluate_gate(
        "candidate",
        hard,
        "current",
        cur_score,
        "best",
        best_score,
        best_step=0,
        global_step=1,
        cand_soft=soft,
        metric=metric,  # type: ignore[arg-type]
        mixed_weight=weight,
    )
    code, ours = gate(capsys, *args)
    assert isinstance(ours, dict)
    assert ours["action"] == theirs.action
    assert ours["candidate_score"] == pytest.approx(
        select_gate_score(hard, soft, metric, weight)  # type: ignore[arg-type]
    )
    assert ours["current_score"] == pytest.approx(cur_score)
    assert ours["best_score"] == pytest.approx(best_score)
    assert code == (1 if theirs.action == "reject" else 0)


def test_the_table_covers_every_action() -> None:
    actions = set()
    for _, candidate, current, best, metric, weight in TABLE:
        cur = select_gate_score(*expected_scores(current), metric, weight) if current else -1.0  # type: ignore[arg-type]
        bst = select_gate_score(*expected_scores(best), metric, weight) if best else cur  # type: ignore[arg-type]
        hard, soft = expected_scores(candidate)
        result = evaluate_gate(
            "c", hard, "u", cur, "b", bst, 0, 1, cand_soft=soft, metric=metric, mixed_weight=weight
        )  # type: ignore[arg-type]
        actions.add(result.action)
    assert len(TABLE) >= 12
    assert actions == {"accept_new_best", "accept", "reject"}


def test_no_regression_rejects_when_a_passing_case_stops_passing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    current = write_run(tmp_path / "cur", [P(), F(), F()])
    candidate = write_run(tmp_path / "cand", [F(), P(), P()])
    args = ["--candidate", str(candidate), "--current", str(current)]
    code, plain = gate(capsys, *args)
    assert code == 0 and isinstance(plain, dict) and plain["action"] == "accept_new_best"
    assert plain["regressions"] == [{"case_id": "case-0", "current": "pass", "candidate": "fail"}]
    code, strict = gate(capsys, *args, "--no-regression")
    assert code == 1 and isinstance(strict, dict) and strict["action"] == "reject"
    assert "case-0" in strict["reason"]


def test_a_case_missing_from_the_candidate_counts_as_regressed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    current = write_run(tmp_path / "cur", [P(), P(), F()])
    candidate = write_run(tmp_path / "cand", [P(), P(), P()])
    candidate_manifest = candidate / "manifest.json"
    candidate_manifest.write_text(json.dumps({"run_id": "cand"}))  # minimal: ids from files
    args = ["--candidate", str(candidate), "--current", str(current), "--no-regression"]
    code, out = gate(capsys, *args)
    assert code == 0 and isinstance(out, dict)  # 1.0 > 0.667, and no passing case is missing
    assert out["differences"] == []
    (candidate / "case-results/case-1.json").unlink()
    code, out = gate(capsys, *args, "--allow-different-cases")
    assert code == 1 and isinstance(out, dict)
    assert out["regressions"] == [{"case_id": "case-1", "current": "pass", "candidate": "missing"}]
    assert out["differences"] == ["case(s) only in the current run: case-1"]


@pytest.mark.parametrize("role", ["current", "best"])
def test_a_candidate_without_a_verdict_on_a_case_decided_before_is_rejected(
    role: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The candidate's case-1 blocked by the eval or the machine (left out of its score), where
    current or best failed it: 1.0 over one case against 0.5 over two was an `accept_new_best`
    (SkillOpt's gate on the two means says so); it is a reject saying which case."""
    runs = {
        "current": write_run(tmp_path / "cur", [P(), F()] if role == "current" else [F(), F()]),
        "best": write_run(tmp_path / "best", [P(), F()]),
    }
    candidate = write_run(tmp_path / "cand", [P(), UNCLEAR])
    args = ["--candidate", str(candidate), "--min-coverage", "0"]
    args += ["--current", str(runs["current"])]
    if role == "best":
        args += ["--best", str(runs["best"])]
    code, out = gate(capsys, *args)
    assert code == 1 and isinstance(out, dict)
    assert out["action"] == "reject"
    assert out["candidate_score"] == 1.0
    assert (
        "rejected: the candidate has no verdict on 1 case(s) current or best decided (case-1)"
        in out["reason"]
    )
    # the look-alike: the same case without a verdict in the run compared too is no reason
    both = write_run(tmp_path / "both", [P(), UNCLEAR])
    code, out = gate(
        capsys, "--candidate", str(candidate), "--current", str(both), "--min-coverage", "0"
    )
    assert isinstance(out, dict) and "no verdict" not in out["reason"]


def test_runs_of_different_cases_are_not_gated_without_being_told(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A score is a mean over its run's cases: the same skill scored without the case current
    failed "beat" current (1.0 > 0.5, accept_new_best, exit 0 on main). Refused as compare
    refuses such runs, unless --allow-different-cases; the same cases in another order gate."""
    current = write_run(tmp_path / "cur", [P(), F()])
    subset = write_run(tmp_path / "subset", [P()])
    code, out = gate(capsys, "--candidate", str(subset), "--current", str(current))
    assert code == 2
    assert out == (
        f"agentic-eval: {subset}: case(s) only in the current run: case-1: their scores are not"
        " comparable (pass --allow-different-cases to gate anyway)\n"
    )
    code, plain = gate(capsys, "--candidate", str(subset), "--best", str(current), as_json=False)
    assert code == 2 and "only in the best run: case-1" in str(plain)
    # A candidate with a case added is refused too, naming it.
    added = write_run(tmp_path / "added", [P(), F(), P()])
    code, out = gate(capsys, "--candidate", str(added), "--current", str(current))
    assert code == 2 and "case(s) only in the candidate run: case-2" in str(out)
    code, out = gate(
        capsys, "--candidate", str(subset), "--current", str(current), "--allow-different-cases"
    )
    assert code == 0 and isinstance(out, dict) and out["action"] == "accept_new_best"
    assert out["differences"] == ["case(s) only in the current run: case-1"]
    # The look-alike: the same cases, listed in another order, are comparable.
    shuffled = write_run(tmp_path / "shuffled", [P(), P()])
    manifest = json.loads((shuffled / "manifest.json").read_text())
    (shuffled / "manifest.json").write_text(
        json.dumps({**manifest, "resolved_case_ids": ["case-1", "case-0"]})
    )
    code, out = gate(capsys, "--candidate", str(shuffled), "--current", str(current))
    assert code == 0 and isinstance(out, dict) and out["differences"] == []


def test_a_case_whose_definition_changed_is_not_gated(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A current run of an older definition of a case (its `case_digest`) scored a different
    question; so did a run of another target."""
    current = write_run(tmp_path / "cur", [P(), F()])
    candidate = write_run(tmp_path / "cand", [P(), P()])
    for run, digest in ((current, "a" * 64), (candidate, "b" * 64)):
        path = run / "case-results/case-1.json"
        path.write_text(json.dumps({**json.loads(path.read_text()), "case_digest": digest}))
    code, out = gate(capsys, "--candidate", str(candidate), "--current", str(current))
    assert code == 2 and "different case definitions: case-1" in str(out)
    manifest = json.loads((candidate / "manifest.json").read_text())
    (candidate / "manifest.json").write_text(json.dumps({**manifest, "target_id": "other"}))
    code, out = gate(capsys, "--candidate", str(candidate), "--current", str(current))
    assert code == 2 and "different targets: current unknown, candidate other" in str(out)


def test_a_run_without_a_verdict_has_no_score(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    only_eval_blocked = write_run(tmp_path / "cand", [UNCLEAR, UNCLEAR])
    code, out = gate(capsys, "--candidate", str(only_eval_blocked))
    assert code == 3 and "no case got a verdict" in str(out)
    low = write_run(tmp_path / "low", [P(), UNCLEAR, UNCLEAR])
    code, out = gate(capsys, "--candidate", str(low))
    assert code == 3 and "coverage 0.333 is below 0.8" in str(out)


@pytest.mark.parametrize(
    "damage,message",
    [
        ("running", "manifest.json: run_state: the run is running"),
        ("unfinished", "case-results: unfinished case(s) without a result: case-1"),
        ("bad-status", "case-1.json: status: status 'skipped' is not pass, fail or blocked"),
        ("bad-json", "case-1.json:2:"),
        ("no-manifest", "r: not a run directory (no manifest.json)"),
    ],
)
def test_unfinished_or_broken_runs_are_input_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], damage: str, message: str
) -> None:
    run = write_run(
        tmp_path / "r", [P(), F()], state="running" if damage == "running" else "completed"
    )
    result = run / "case-results/case-1.json"
    if damage == "unfinished":
        result.unlink()
    elif damage == "bad-status":
        result.write_text(json.dumps({"case_id": "case-1", "status": "skipped"}))
    elif damage == "bad-json":
        result.write_text('{\n  "status": pass\n}')
    elif damage == "no-manifest":
        (run / "manifest.json").unlink()
    code, out = gate(capsys, "--candidate", str(run))
    assert code == 2
    lines = str(out).strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and "Traceback" not in str(out)
