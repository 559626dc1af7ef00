"""Per-case statistics over K attempts; blocked attempts are counted apart from the denominator."""

from __future__ import annotations

from math import comb

from evaluator.artifacts.models import CaseStats


def case_stats(statuses: list[str]) -> CaseStats:
    passed = statuses.count("pass")
    failed = statuses.count("fail")
    blocked = statuses.count("blocked")
    judged = passed + failed
    if judged == 0:
        return CaseStats(
            attempts=len(statuses),
            judged=0,
            passed=0,
            failed=0,
            blocked=blocked,
            pass_rate=None,
            pass_at_k=None,
            pass_pow_k=None,
            flaky=False,
        )
    k = judged
    # Unbiased estimators with k = n: pass@k = 1 - C(n-c, k)/C(n, k), pass^k = C(c, k)/C(n, k).
    pass_at_k = 1 - comb(judged - passed, k) / comb(judged, k)
    pass_pow_k = comb(passed, k) / comb(judged, k)
    return CaseStats(
        attempts=len(statuses),
        judged=judged,
        passed=passed,
        failed=failed,
        blocked=blocked,
        pass_rate=passed / judged,
        pass_at_k=pass_at_k,
        pass_pow_k=pass_pow_k,
        flaky=0 < passed < judged,
    )
