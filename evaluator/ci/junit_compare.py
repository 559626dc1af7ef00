"""A comparison as JUnit XML: a regression is a failure naming the assertion entries that broke."""

from __future__ import annotations

from junitparser import Failure, JUnitXml, Skipped, TestCase, TestSuite

from evaluator.ci.junit_run import FAILURE_TYPE, case_properties, one_suite_file
from evaluator.compare.markdown import flip_line, side_text
from evaluator.compare.model import CaseComparison, Comparison

# A case the comparison cannot judge on both sides is skipped, with the reason.
SKIPPED_CLASSES = ("same-blocked", "environment-divergence", "removed")


def _properties(case: CaseComparison) -> dict[str, object]:
    values: dict[str, object] = {"classification": case.classification, "decision": case.decision}
    for label, side in (("base", case.base), ("candidate", case.candidate)):
        if side is not None:
            values |= {
                f"{label}_attempts": side.attempts,
                f"{label}_passed": side.passed,
                f"{label}_counted": side.counted,
                f"{label}_blocked": side.blocked,
            }
    if case.p_drop is not None:
        values["p_drop"] = f"{case.p_drop:.4f}"
    if case.p_drop_holm is not None:
        values["p_drop_holm"] = f"{case.p_drop_holm:.4f}"
    return values


def comparison_testcase(case: CaseComparison, target_id: str) -> TestCase:
    testcase = TestCase(case.case_id, classname=f"{target_id}.{case.suite_id or 'cases'}")
    testcase.append(case_properties(_properties(case)))
    sides = f"base {side_text(case.base)}, candidate {side_text(case.candidate)}"
    if case.classification == "regression":
        broke = [f for f in case.assertion_flips if f.direction == "broke"] or case.assertion_flips
        head = flip_line(broke[0]) if broke else case.reason
        failure = Failure(f"regression: {head}", type_=FAILURE_TYPE)
        failure.text = "\n".join([f"{case.reason}; {sides}", *(flip_line(f) for f in broke)])
        testcase.result = [failure]
    elif case.classification in SKIPPED_CLASSES:
        testcase.result = [Skipped(f"{case.classification}: {case.reason}")]
    return testcase


def comparison_junit(comparison: Comparison) -> JUnitXml:
    target = comparison.candidate.target_id or comparison.base.target_id or "target"
    suite = TestSuite(f"agentic-eval compare {comparison.base.name} -> {comparison.candidate.name}")
    suite.add_property("base_run", comparison.base.path)
    suite.add_property("candidate_run", comparison.candidate.path)
    suite.add_property("alpha", f"{comparison.alpha:g}")
    suite.add_property("method", comparison.method)
    for case in comparison.cases:
        suite.add_testcase(comparison_testcase(case, target))
    return one_suite_file(suite)
