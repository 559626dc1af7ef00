"""Trigger metrics (pure): per-prompt majority, precision/recall/F1 over prompts and attempts,
seeded bootstrap intervals, and the suspect flag with its causes."""

from __future__ import annotations

import pytest

from evaluator.evidence.triggers import Trigger
from evaluator.triggers.metrics import (
    AttemptOutcome,
    Counts,
    attempt_outcome,
    bootstrap,
    prompt_counts,
    prompt_rates,
    suspicion,
    trigger_metrics,
)


def attempts(prompt: str, expect: bool, fired: list[bool], **extra: object) -> list[AttemptOutcome]:
    return [AttemptOutcome(prompt, expect, f, **extra) for f in fired]  # type: ignore[arg-type]


def test_a_prompt_triggers_on_a_strict_majority_of_its_valid_attempts() -> None:
    outcomes = [
        *attempts("two-of-three", True, [True, True, False]),
        *attempts("one-of-two", True, [True, False]),
        AttemptOutcome("with-invalid", False, True),
        AttemptOutcome("with-invalid", False, True, invalid="host skill"),
        AttemptOutcome("with-invalid", False, False, invalid="host skill"),
    ]
    rates = {r.prompt: r for r in prompt_rates(outcomes)}
    assert rates["two-of-three"].triggered is True
    assert rates["two-of-three"].rate == pytest.approx(2 / 3)
    assert rates["one-of-two"].triggered is False  # a tie is no majority
    assert (rates["with-invalid"].attempts, rates["with-invalid"].invalid) == (1, 2)
    assert rates["with-invalid"].triggered is True and rates["with-invalid"].misfires


def test_precision_recall_f1_over_prompts_and_over_attempts() -> None:
    outcomes = [
        *attempts("p1", True, [True, True, True]),  # tp; attempts 3 tp
        *attempts("p2", True, [True, False, False]),  # fn; attempts 1 tp 2 fn
        *attempts("n1", False, [True, True, False]),  # fp; attempts 2 fp 1 tn
        *attempts("n2", False, [False, False, False]),  # tn; attempts 3 tn
    ]
    metrics = trigger_metrics(outcomes)
    assert metrics.over_prompts.counts == Counts(tp=1, fp=1, fn=1, tn=1)
    assert metrics.over_prompts.precision == 0.5
    assert metrics.over_prompts.recall == 0.5
    assert metrics.over_prompts.f1 == 0.5
    assert metrics.over_attempts.counts == Counts(tp=4, fp=2, fn=2, tn=4)
    assert metrics.over_attempts.precision == pytest.approx(4 / 6)
    assert metrics.over_attempts.recall == pytest.approx(4 / 6)
    assert metrics.suspect is None
    for score in (metrics.over_prompts, metrics.over_attempts):
        for name in ("precision", "recall", "f1"):
            interval = score.intervals[name]
            assert interval.low is not None and interval.high is not None
            assert 0 <= interval.low <= getattr(score, name) <= interval.high <= 1


def test_undefined_ratios_are_none_not_a_perfect_score() -> None:
    counts = Counts(fn=3, tn=3)
    assert counts.precision is None and counts.recall == 0.0 and counts.f1 is None
    assert Counts(tn=2, fp=0).recall is None


def test_bootstrap_is_seeded_and_depends_on_the_seed() -> None:
    # 12 prompts, recall 5/8 and precision 5/7 over prompts.
    pattern = [(True, True)] * 5 + [(True, False)] * 3 + [(False, True)] * 2 + [(False, False)] * 2
    rates = prompt_rates([o for i, (e, f) in enumerate(pattern) for o in attempts(f"p{i}", e, [f])])
    first = bootstrap(rates, prompt_counts, samples=50, seed=1)
    assert first == bootstrap(rates, prompt_counts, samples=50, seed=1)
    others = [bootstrap(rates, prompt_counts, samples=50, seed=s) for s in range(2, 8)]
    assert any(o != first for o in others)
    assert first["recall"].low is not None and first["recall"].low < 5 / 8 < first["recall"].high


def test_eight_prompts_all_right_have_an_honest_interval() -> None:
    """Session 18: a bootstrap over prompts resampled eight prompts all right to 1.0 every time,
    `[1, 1]` (and a gate showed `ci=[1.000,1.000]`); the interval is now the counts' Wilson
    interval, F1 through tp / (tp + fp + fn)."""
    outcomes = [
        *(o for i in range(4) for o in attempts(f"yes{i}", True, [True] * 3)),
        *(o for i in range(4) for o in attempts(f"no{i}", False, [False] * 3)),
    ]
    metrics = trigger_metrics(outcomes, samples=200)
    prompts = metrics.over_prompts.intervals
    assert metrics.over_prompts.f1 == 1.0
    # Wilson's 4 of 4 is [0.510, 1]; F1 = 2J / (1 + J) of it is [0.676, 1]
    assert prompts["recall"].low == pytest.approx(0.510, abs=1e-3) and prompts["recall"].high == 1
    assert prompts["f1"].low == pytest.approx(0.676, abs=1e-3) and prompts["f1"].high == 1
    # over 24 attempts: narrower, still not a point
    f1 = metrics.over_attempts.intervals["f1"]
    assert f1.low is not None and prompts["f1"].low < f1.low < 1 and f1.high == 1


def test_a_mixed_run_s_interval_holds_its_f1_inside_zero_and_one() -> None:
    pattern = [(True, True)] * 3 + [(True, False), (False, True)] + [(False, False)] * 3
    rates = [o for i, (e, f) in enumerate(pattern) for o in attempts(f"p{i}", e, [f])]
    interval = trigger_metrics(rates).over_prompts.intervals["f1"]
    assert interval.low is not None and interval.high is not None
    # bootstrap gave [0.286, 1.0]: a description that misfired twice could be perfect
    assert 0.3 < interval.low < 0.75 < interval.high < 0.95


def test_nothing_fired_is_suspect_with_the_causes_the_outcomes_show() -> None:
    outcomes = [
        AttemptOutcome("p1", True, False, listed=False, tool_calls=2),
        AttemptOutcome("p1", True, False, timed_out=True, tool_calls=1),
        AttemptOutcome("p2", True, False, tool_calls=0),
        AttemptOutcome("p2", True, False, others=("pdf-tools",), tool_calls=1),
        AttemptOutcome("n1", False, False, invalid="unclean skill registry: host skill"),
    ]
    found = suspicion(outcomes)
    assert found is not None and found.kind == "nothing-fired"
    text = "\n".join(found.causes)
    assert "1 of 5 attempts were invalid: unclean skill registry: host skill (1)" in text
    should = "of 4 attempts on prompts that should fire"
    assert f"missing from the skill list the agent reported in 1 {should}" in text
    assert f"1 {should} ended by timeout" in text
    assert f"without any tool call in 1 {should}" in text
    assert "other skills fired instead: pdf-tools (1)" in text


def test_nothing_fired_counts_causes_only_on_prompts_that_should_fire() -> None:
    """A prompt that should not fire answered without a tool call is right, not a cause: a run
    whose only fault is a description that matches nothing says it sees no cause."""
    outcomes = [
        *attempts("p", True, [False, False]),
        AttemptOutcome("n", False, False, tool_calls=0),
        AttemptOutcome("n", False, False, tool_calls=0, others=("pdf-tools",)),
    ]
    found = suspicion(outcomes)
    assert found is not None and found.kind == "nothing-fired"
    assert found.causes[0].startswith("no cause visible"), found.causes


def test_nothing_fired_without_visible_cause_says_so() -> None:
    found = suspicion(attempts("p", True, [False, False]) + attempts("n", False, [False]))
    assert found is not None and found.causes[0].startswith("no cause visible")


def test_everything_fired_is_suspect() -> None:
    outcomes = [
        *attempts("p", True, [True, True], first_call=True),
        *attempts("n", False, [True, True], first_call=True),
    ]
    found = suspicion(outcomes, skill="db-migrations", prompt_texts={"n": "no db-migrations here"})
    assert found is not None and found.kind == "everything-fired"
    assert any("name the skill: n" in c for c in found.causes)
    assert any("first tool call of every attempt" in c for c in found.causes)


def test_a_mixed_run_is_not_suspect() -> None:
    assert suspicion(attempts("p", True, [True]) + attempts("n", False, [False])) is None
    # Everything fired, but there was no prompt that should not: nothing to tell apart.
    assert suspicion(attempts("p", True, [True, True])) is None


def test_an_attempt_outcome_from_the_triggers_of_its_session() -> None:
    triggers = [Trigger("pdf-tools", 1, "msg-2"), Trigger("db-migrations", 3, "msg-7")]
    outcome = attempt_outcome("p", True, "db-migrations", triggers, reported=["pdf-tools"])
    assert (outcome.fired, outcome.others, outcome.first_call) == (True, ("pdf-tools",), False)
    assert outcome.listed is False
    missed = attempt_outcome("n", False, "db-migrations", [], tool_calls=0, timed_out=True)
    assert (missed.fired, missed.first_call, missed.listed, missed.tool_calls) == (
        False,
        None,
        None,
        0,
    )


def test_a_run_where_most_prompts_have_no_valid_attempt_is_suspect() -> None:
    decided = [AttemptOutcome("p1", True, True), AttemptOutcome("p2", False, False)]
    undecided = [
        AttemptOutcome(f"q{n}", n % 2 == 0, False, invalid="blocked: environment") for n in range(3)
    ]
    flagged = suspicion([*decided, *undecided])
    assert flagged is not None and flagged.kind == "mostly-undecided"
    assert flagged.causes == [
        "3 of 5 prompts have no valid attempt (invalid: blocked: environment (3))"
    ]
    assert suspicion([*decided, *undecided[:2]]) is None  # half decided: a score, its interval wide
