"""The metric registry (`hard`, `soft`, `mixed`, `uplift`) under `gate` and `score`'s verdict."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluator.artifacts.attribution import CaseScore, RunScore
from evaluator.errors import InputError
from evaluator.gate.metrics.base import MetricContext, MetricUnavailable
from evaluator.gate.metrics.registry import METRIC_NAMES, check_baseline, get_metric
from evaluator.gate.metrics.uplift import case_differences
from evaluator.gate.score import decide
from evaluator.stats.paired import sign_flip_p
from tests.gate.test_gate import UNCLEAR, F, P, gate, write_run


def run_score(rates: list[float | None]) -> RunScore:
    cases = [
        CaseScore(f"case-{i}", "blocked" if r is None else "pass" if r == 1 else "fail", r, r)
        for i, r in enumerate(rates)
    ]
    return RunScore(len(cases), cases)


def test_the_registry_names_every_metric_and_loads_it_lazily() -> None:
    assert METRIC_NAMES == ("hard", "soft", "mixed", "uplift", "trigger-f1")
    for name in METRIC_NAMES:
        assert get_metric(name).name == name
    with pytest.raises(ValueError, match="unknown metric 'f1'"):
        get_metric("f1")


def test_rate_metrics() -> None:
    score = RunScore(2, [CaseScore("a", "pass", 1.0, 1.0), CaseScore("b", "fail", 0.0, 0.5)])
    context = MetricContext(mixed_weight=0.25)
    assert get_metric("hard").measure(score, context).value == 0.5
    assert get_metric("soft").measure(score, context).value == 0.75
    assert get_metric("mixed").measure(score, context).value == pytest.approx(
        0.75 * 0.5 + 0.25 * 0.75
    )


def test_uplift_pairs_cases_with_a_verdict_on_both_sides() -> None:
    skill = run_score([1.0, 0.8, None, 0.6, 1.0, 0.4])
    baseline = run_score([0.2, 0.8, 1.0, None, 0.4, 0.0])
    assert case_differences(skill, baseline) == pytest.approx([0.8, 0.0, 0.6, 0.4])
    value = get_metric("uplift").measure(skill, MetricContext(baseline=baseline))
    assert value.value == pytest.approx(0.45) and value.cases == 4
    assert value.p == pytest.approx(sign_flip_p([0.8, 0.0, 0.6, 0.4], "greater"))
    assert value.low is not None and value.high is not None and value.low <= 0.45 <= value.high
    with pytest.raises(InputError, match="needs a baseline run"):
        get_metric("uplift").measure(skill, MetricContext())
    apart, baseline = run_score([1.0, None]), run_score([None, 1.0])
    with pytest.raises(MetricUnavailable, match="no case has a verdict in both"):
        get_metric("uplift").measure(apart, MetricContext(baseline=baseline))
    verdict = decide(
        apart, min_coverage=0.5, metric="uplift", context=MetricContext(baseline=baseline)
    )
    assert verdict.line() == "VERDICT: ERROR no-shared-verdict cases=2 blocked=1"


def test_check_baseline_pairs_the_option_with_the_metric() -> None:
    check_baseline("uplift", Path("x"))
    check_baseline("hard", None)
    with pytest.raises(InputError, match="needs --baseline-run"):
        check_baseline("uplift", None)
    with pytest.raises(InputError, match="takes no baseline run"):
        check_baseline("soft", Path("x"))


def test_score_verdict_on_uplift_needs_a_shown_gain() -> None:
    baseline = run_score([0.0] * 6)
    helped = run_score([1.0, 0.8, 0.6, 1.0, 0.4, 0.8])
    verdict = decide(
        helped, metric="uplift", context=MetricContext(baseline=baseline), threshold=0.0
    )
    assert verdict.kind == "PASS"
    assert "uplift=+0.767" in verdict.line() and "p=0.0156" in verdict.line()  # 1/64: 6 gains
    noisy = run_score([1.0, 0.0, 0.2, 0.0, 0.0, 0.0])
    verdict = decide(
        noisy, metric="uplift", context=MetricContext(baseline=baseline), threshold=0.0
    )
    assert verdict.kind == "FAIL" and "not significant" in verdict.reason
    assert "can never reach it" not in verdict.reason  # six cases could have
    # Two cases, both helped all the way: still not shown, and the reason says why.
    two = decide(
        run_score([1.0, 1.0]),
        metric="uplift",
        context=MetricContext(baseline=run_score([0.0, 0.0])),
        threshold=0.0,
    )
    assert two.kind == "FAIL"
    assert "2 case(s) can never reach it, at least 5 are needed" in two.reason
    # The same gain against a higher bar: the interval must start above it.
    verdict = decide(
        helped, metric="uplift", context=MetricContext(baseline=baseline), threshold=0.7
    )
    assert verdict.kind == "FAIL" and "not above 0.7" in verdict.reason
    assert verdict.to_json()["metric"]["cases"] == 6


def test_score_verdict_on_hard_and_soft_keeps_its_line() -> None:
    score = RunScore(2, [CaseScore("a", "pass", 1.0, 1.0), CaseScore("b", "fail", 0.0, 0.5)])
    verdict = decide(score, min_pass_rate=0.5)
    assert verdict.line() == "VERDICT: PASS hard=0.500 soft=0.750 cases=2 blocked=0"
    assert decide(score, min_pass_rate=0.6, metric="soft").kind == "PASS"
    assert decide(score, min_pass_rate=0.6).reason == "hard 0.500 is below min-pass-rate 0.6"


def test_gate_on_uplift_rejects_a_skill_that_does_no_good(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    baseline = write_run(tmp_path / "none", [F()] * 5 + [P()])
    good = write_run(tmp_path / "good", [P()] * 6)
    same = write_run(tmp_path / "same", [F()] * 5 + [P()])
    code, out = gate(
        capsys, "--candidate", str(good), "--metric", "uplift", "--baseline-run", str(baseline)
    )
    assert code == 0 and isinstance(out, dict)
    assert out["action"] == "accept_new_best" and out["candidate_metric"]["p"] == pytest.approx(
        1 / 32
    )
    code, out = gate(
        capsys, "--candidate", str(same), "--metric", "uplift", "--baseline-run", str(baseline)
    )
    assert code == 1 and isinstance(out, dict)
    assert out["action"] == "reject" and "not significant" in out["reason"]
    code, out = gate(capsys, "--candidate", str(good), "--metric", "uplift")
    assert code == 2 and "needs --baseline-run" in str(out)
    code, out = gate(capsys, "--candidate", str(good), "--baseline-run", str(baseline))
    assert code == 2 and "takes no baseline run" in str(out)
    blocked = write_run(tmp_path / "blocked", [UNCLEAR] * 6)
    code, out = gate(
        capsys, "--candidate", str(good), "--metric", "uplift", "--baseline-run", str(blocked)
    )
    assert code == 3 and "no case got a verdict" in str(out)


def test_score_reads_the_baseline_before_anything_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from evaluator.cli.main import main
    from tests.conftest import ROOT

    baseline = write_run(tmp_path / "none", [P()])  # holds case-0 only
    args = ["score", "--repo", str(ROOT / "agentic-evals"), "--runs-dir", str(tmp_path / "runs")]
    args += ["--case", "bootstrap-reads-skill-first", "--metric", "uplift"]
    with pytest.raises(SystemExit) as info:
        main([*args, "--baseline-run", str(baseline)])
    out = capsys.readouterr().out.splitlines()
    assert info.value.code == 2
    assert out[-1].startswith("VERDICT: ERROR input-error: ")
    assert "the baseline run has no result for bootstrap-reads-skill-first" in out[-1]
    with pytest.raises(SystemExit) as info:
        main(args)
    assert info.value.code == 2 and "needs --baseline-run" in capsys.readouterr().out
    assert not (tmp_path / "runs").exists()  # nothing ran


@pytest.mark.parametrize(
    ("threshold", "attempts", "refused"),
    [
        (0.67, 3, "2 of 3"),
        (0.34, 3, "1 of 3"),
        (0.81, 5, "4 of 5"),
        (0.66, 3, None),  # accepts 2 of 3
        (0.8, 5, None),  # exactly 4 of 5
        (1.0, 3, None),
        (0.67, 1, None),  # one attempt: 0 or 1, nothing near
        (0.7, 3, None),  # well above 2 of 3: meant
        (0.67, None, None),  # K from the cases: unknown here
    ],
)
def test_a_threshold_just_above_a_reachable_rate_is_named(
    threshold: float, attempts: int | None, refused: str | None
) -> None:
    from evaluator.gate.thresholds import near_miss

    said = near_miss(threshold, attempts)
    if refused is None:
        assert said is None
    else:
        assert said is not None and f"passed {refused} " in said
