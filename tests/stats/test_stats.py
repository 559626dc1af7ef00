"""The statistics module against published values, values derived by hand, and edge cases."""

from __future__ import annotations

import itertools

import pytest
from scipy.stats import fisher_exact

from evaluator.stats.cost import VariantCost, cost_of_difference
from evaluator.stats.exact import one_sided_p
from evaluator.stats.holm import holm
from evaluator.stats.noise import headline, noise_floor
from evaluator.stats.paired import bootstrap_mean, fewest_cases_to_call, sign_flip_p
from evaluator.stats.proportion import Interval, newcombe, wilson
from evaluator.stats.variants import CaseCounts, compare_variants, order_cases


def close(found: Interval | None, low: float, high: float, tol: float = 5e-5) -> bool:
    assert found is not None
    return abs(found.low - low) <= tol and abs(found.high - high) <= tol


# Newcombe (1998), "Two-sided confidence intervals for the single proportion", Table I, method 3.
@pytest.mark.parametrize(
    ("passed", "total", "low", "high"),
    [
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 20, 0.0, 0.1611),
        (1, 29, 0.0061, 0.1718),
    ],
)
def test_wilson_matches_newcombes_single_proportion_examples(
    passed: int, total: int, low: float, high: float
) -> None:
    assert close(wilson(passed, total), low, high)


def test_wilson_edges() -> None:
    assert wilson(0, 0) is None
    # n/n ends exactly at 1 and 0/n at 0; 5/5 starts at 0.5655, 0/1 ends at 0.7935 (z = 1.96).
    assert close(wilson(5, 5), 0.5655, 1.0) and wilson(5, 5).high == 1.0  # type: ignore[union-attr]
    assert close(wilson(0, 1), 0.0, 0.7935) and wilson(0, 1).low == 0.0  # type: ignore[union-attr]
    with pytest.raises(ValueError):
        wilson(3, 2)


# Newcombe (1998), "Interval estimation for the difference between independent proportions",
# Table II, method 10; (e) and (f) follow by hand from the Wilson bounds of 0/10 and 0/20.
@pytest.mark.parametrize(
    ("b", "nb", "a", "na", "low", "high"),
    [
        (56, 70, 48, 80, 0.0524, 0.3339),
        (9, 10, 3, 10, 0.1705, 0.8090),
        (0, 10, 0, 20, -0.1611, 0.2775),
        (0, 10, 0, 10, -0.2775, 0.2775),
    ],
)
def test_newcombe_matches_the_papers_examples(
    b: int, nb: int, a: int, na: int, low: float, high: float
) -> None:
    assert close(newcombe(b, nb, a, na), low, high)


def test_newcombe_edges() -> None:
    assert newcombe(1, 1, 0, 0) is None
    everything = newcombe(5, 5, 5, 5)
    assert everything is not None and everything.contains(0.0)
    extreme = newcombe(5, 5, 0, 5)
    assert extreme is not None and extreme.high == 1.0 and extreme.low > 0


def test_boschloo_extreme_tables_by_hand() -> None:
    # Only the observed table is as extreme, so p = max over pi of pi^K (1 - pi)^K = 4^-K.
    assert one_sided_p(5, 5, 0, 5, "greater") == pytest.approx(4**-5)
    assert one_sided_p(0, 5, 5, 5, "less") == pytest.approx(4**-5)
    assert one_sided_p(3, 3, 0, 3, "greater") == pytest.approx(4**-3)
    # K = 1: 1/1 against 0/1 is p = 1/4, never significant.
    assert one_sided_p(1, 1, 0, 1, "greater") == pytest.approx(0.25)


def test_boschloo_is_exact_and_never_less_powerful_than_fisher() -> None:
    # scipy's documented example (Lydersen et al. 2009's table): p = 0.0355.
    assert one_sided_p(74, 105, 43, 75, "greater") == pytest.approx(0.0355, abs=1e-4)
    for b, a in itertools.product(range(6), range(6)):
        fisher = fisher_exact([[b, 5 - b], [a, 5 - a]], alternative="greater").pvalue
        found = one_sided_p(b, 5, a, 5, "greater")
        assert found is not None and found <= fisher + 1e-9


def test_boschloo_edges() -> None:
    assert one_sided_p(0, 0, 3, 5, "greater") is None
    assert one_sided_p(5, 5, 5, 5, "greater") == 1.0  # no failure anywhere: no evidence
    assert one_sided_p(0, 5, 0, 5, "less") == 1.0
    with pytest.raises(ValueError):
        one_sided_p(6, 5, 0, 5, "less")


def test_holm_by_hand() -> None:
    # Sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1 = 0.02, 0.03, 0.06, 0.04 -> running max.
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.5, 0.9]) == pytest.approx([1.0, 1.0])
    assert holm([0.02]) == [0.02]
    assert holm([]) == []
    with pytest.raises(ValueError):
        holm([1.5])


def _flips(data: list[float]) -> float:
    """The exact sign-flip p-value (greater), by enumerating every sign pattern."""
    observed = sum(data)
    patterns = list(itertools.product((1, -1), repeat=len(data)))
    hits = sum(
        1
        for signs in patterns
        if sum(s * d for s, d in zip(signs, data, strict=True)) >= observed - 1e-12
    )
    return hits / len(patterns)


@pytest.mark.parametrize(
    "data", [[1.0] * 5, [0.2, 0.4, 0.0, 0.6, -0.2, 0.2], [0.6, -0.4, 1.0, 0.2, 0.0, 0.0, 0.8]]
)
def test_sign_flip_is_the_exact_enumeration(data: list[float]) -> None:
    assert sign_flip_p(data, "greater") == pytest.approx(_flips(data))
    assert sign_flip_p([-d for d in data], "less") == pytest.approx(_flips(data))


def test_sign_flip_edges() -> None:
    assert sign_flip_p([], "greater") is None
    assert sign_flip_p([0.0, 0.0], "greater") == 1.0
    assert sign_flip_p([1.0], "greater") == pytest.approx(0.5)  # one case: never significant
    assert sign_flip_p([1.0], "less") == 1.0


def test_bootstrap_is_seeded_and_sane() -> None:
    data = [0.2, 0.4, 0.0, 0.6, -0.2, 0.2, 1.0, 0.0]
    first, again = bootstrap_mean(data), bootstrap_mean(data)
    assert first == again and first is not None
    assert first.method == "BCa"
    assert first.interval.low < sum(data) / len(data) < first.interval.high
    spread = [0.13, 0.52, -0.07, 0.61, 0.33, 0.05, 0.9, 0.27]
    seeded, other = bootstrap_mean(spread), bootstrap_mean(spread, seed=1)
    assert seeded is not None and other is not None
    assert other.interval != seeded.interval  # the seed is used
    assert bootstrap_mean([0.4]) is None
    flat = bootstrap_mean([1.0, 1.0, 1.0])
    assert flat is not None and flat.interval == Interval(1.0, 1.0) and flat.method == "degenerate"


def test_compare_variants_lists_the_hurt_cases_first() -> None:
    counts = [
        CaseCounts("helped", 0, 5, 5, 5),
        CaseCounts("broken", 5, 5, 0, 5),
        CaseCounts("dented", 5, 5, 4, 5),
        CaseCounts("same", 5, 5, 5, 5),
        CaseCounts("never-ran", 0, 0, 1, 1),
    ]
    found = compare_variants(counts, "greater")
    order = [c.counts.case_id for c in found.cases]
    assert order == ["broken", "dented", "same", "helped", "never-ran"]
    broken, helped = found.cases[0], found.cases[3]
    assert broken.hurt and not broken.significant
    # 4 testable cases: Holm multiplies the smallest p (4^-5) by 4.
    assert helped.significant and helped.p_holm == pytest.approx(4 * 4**-5)
    assert found.untestable == ["never-ran"]
    # Rates over the cases both variants have: A 15/20, B 14/20.
    assert (found.rate_a.passed, found.rate_a.total, found.rate_b.passed) == (15, 20, 14)
    assert found.overall.cases == 4
    written = found.to_json()  # Wilson of 15/20 by hand: 0.7097 ± 0.1784
    assert written["cases"][0]["counts"]["case_id"] == "broken"
    assert written["rate_a"]["interval"] == {
        "low": pytest.approx(0.5313, abs=1e-4),
        "high": pytest.approx(0.8881, abs=1e-4),
    }
    assert found.overall.mean_difference == pytest.approx((1 - 1 - 0.2 + 0) / 4)
    assert not found.overall.significant


def test_compare_variants_single_attempt_and_empty() -> None:
    k1 = compare_variants([CaseCounts(f"c{i}", 0, 1, 1, 1) for i in range(6)])
    assert not any(c.significant for c in k1.cases)  # K = 1 is never significant per case
    assert k1.overall.p == pytest.approx(1 / 64) and k1.overall.significant
    empty = compare_variants([CaseCounts("x", 0, 0, 0, 0)])
    assert empty.overall.mean_difference is None and empty.rate_a.interval is None
    assert headline(empty, None).call == "no-data"
    with pytest.raises(ValueError):
        compare_variants([CaseCounts("x", 0, 1, 0, 1)] * 2)


def test_headline_respects_the_noise_floor() -> None:
    helped = compare_variants(
        [CaseCounts(f"c{i}", 1, 5, 4, 5) for i in range(8)] + [CaseCounts("c8", 2, 5, 3, 5)]
    )
    assert helped.overall.significant
    assert headline(helped, None).call == "better"
    assert "no A/A noise floor was measured" in headline(helped, None).text
    assert headline(helped, 0.1).call == "better"
    assert headline(helped, 0.9).call == "inside-noise"
    aa = compare_variants([CaseCounts(f"c{i}", 3, 5, b, 5) for i, b in enumerate([2, 3, 4, 3])])
    floor = noise_floor(aa)
    assert aa.overall.bootstrap is not None
    assert floor == max(
        abs(aa.overall.bootstrap.interval.low), abs(aa.overall.bootstrap.interval.high)
    )
    assert headline(aa, floor).call == "no-difference"
    worse = compare_variants([CaseCounts(f"c{i}", 5, 5, 0, 5) for i in range(6)], "less")
    assert headline(worse, 0.1).call == "worse"


def test_fewest_cases_to_call_is_where_the_smallest_sign_flip_p_reaches_alpha() -> None:
    assert fewest_cases_to_call(0.05, "greater") == 5  # 1/32 = 0.031; 1/16 = 0.0625 is not
    assert fewest_cases_to_call(0.05, "two-sided") == 6  # 2/64 = 0.031; 2/32 = 0.0625 is not
    assert fewest_cases_to_call(0.01, "greater") == 7
    assert sign_flip_p([1.0] * 5, "greater") <= 0.05 < sign_flip_p([1.0] * 4, "greater")


def test_headline_says_when_too_few_cases_make_an_overall_call_impossible() -> None:
    """3/3 against 0/3 on two cases: each case is significantly better, but two cases can never
    give an overall p below 1/4; the headline says why it calls nothing and names the cases."""
    two = compare_variants([CaseCounts("a", 0, 3, 3, 3), CaseCounts("b", 0, 3, 3, 3)])
    assert all(case.significant for case in two.cases) and not two.overall.significant
    said = headline(two, None)
    assert said.call == "no-difference"
    assert "2 case(s) are too few" in said.text and "it needs at least 5," in said.text
    assert "per case, significantly better on 2: a (+100.0 pp, Holm p=0.0313), b (" in said.text
    # Enough cases and nothing significant anywhere: the plain sentence, no per-case list.
    flat = compare_variants([CaseCounts(f"c{i}", 2, 3, 2, 3) for i in range(6)])
    assert headline(flat, None).text.startswith("no significant difference (")


def test_order_cases_is_stable_on_ties() -> None:
    found = compare_variants([CaseCounts(c, 1, 2, 1, 2) for c in ("b", "a")])
    assert [c.counts.case_id for c in order_cases(found.cases)] == ["a", "b"]


def test_cost_of_a_difference_by_hand() -> None:
    # A: 10 attempts, 50,000 tokens, 300 s; B: 8 attempts, 64,000 tokens, 320 s.
    a, b = VariantCost(10, 50_000, 300.0), VariantCost(8, 64_000, 320.0)
    found = cost_of_difference(a, b, 0.25)
    assert found.extra_tokens_per_attempt == pytest.approx(3_000)  # 8,000 - 5,000
    assert found.extra_seconds_per_attempt == pytest.approx(10.0)  # 40 - 30
    assert found.tokens_per_point == pytest.approx(120)  # 3,000 / 25 points
    assert found.seconds_per_point == pytest.approx(0.4)
    assert cost_of_difference(a, b, 0.0).tokens_per_point is None  # no gain, no price
    assert cost_of_difference(a, b, -0.1).tokens_per_point is None
    unknown = cost_of_difference(VariantCost(10, None, None), b, 0.25)
    assert unknown.extra_tokens_per_attempt is None and unknown.tokens_per_point is None
    assert VariantCost(0, 0, 0.0).tokens_per_attempt() is None


def test_bootstrap_agrees_with_the_normal_interval_on_many_cases() -> None:
    # 400 differences with known mean and spread: the bootstrap interval of the mean must come
    # close to mean ± 1.96 sd / sqrt(n), the large-sample reference.
    data = [(-1) ** i * ((i * 37) % 11) / 10 + 0.1 for i in range(400)]
    n = len(data)
    mean = sum(data) / n
    sd = (sum((d - mean) ** 2 for d in data) / (n - 1)) ** 0.5
    half = 1.96 * sd / n**0.5
    found = bootstrap_mean(data)
    assert found is not None
    assert found.interval.low == pytest.approx(mean - half, abs=0.1 * half)
    assert found.interval.high == pytest.approx(mean + half, abs=0.1 * half)


def test_headline_gives_each_called_case_its_own_figures_not_the_overall_ones() -> None:
    """One case, 0/3 without and 3/3 with: the headline said "per case, significantly better on
    1: eval-3 (mean per-case difference +100.0 pp, paired p=0.5000, 1 cases, alpha 0.05)", the
    overall sign-flip p read as the case's (sixth-round new user). The overall figures now
    follow the overall clause, and each case called gives its own difference and Holm p."""
    one = compare_variants([CaseCounts("eval-3", 0, 3, 3, 3)])
    (case,) = one.cases
    assert case.significant and case.p_holm is not None
    text = headline(one, None).text
    overall, _, per_case = text.partition("; per case, ")
    assert "paired p=0.5000, 1 case, alpha 0.05" in overall
    assert per_case == f"significantly better on 1: eval-3 (+100.0 pp, Holm p={case.p_holm:.4f})"
    none = compare_variants([CaseCounts(c, 2, 3, 2, 3) for c in ("a", "b")])
    assert headline(none, None).text.endswith(
        "paired p=1.0000, 2 cases, alpha 0.05); per case, significantly better on none"
    )
