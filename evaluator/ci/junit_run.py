"""A run as JUnit XML: one `<testcase>` per case, for CI systems that render test reports.

A case's classname is `target.suite`; a failing case carries one `<failure>` whose message names
the first failing assertion entry and its evidence refs (the text lists every failing entry); a
blocked case is `<skipped>` with its reason; the attempt counts are `<properties>` of the case.
Evidence refs are relative to the run directory, which the suite's `run_dir` property names.
"""

from __future__ import annotations

from pathlib import Path

from junitparser import Failure, JUnitXml, Properties, Property, Skipped, TestCase, TestSuite

from evaluator.artifacts.models import AssertionResult, CaseResult
from evaluator.artifacts.shown_controls import shown_controls

FAILURE_TYPE = "assertion"


def entry_line(entry: AssertionResult) -> str:
    what = "observed" if entry.polarity == "forbidden" else "failed"
    name = entry.entry_id or entry.polarity
    if entry.evidence:
        cited = f" [evidence: {', '.join(entry.evidence)}]"
    else:
        # A required thing that never happened has no record to cite: say what was looked for.
        details = [c.detail for c in entry.checks if c.status == "fail"]
        cited = f" [no evidence: {details[0]}]" if details else " [no evidence]"
    return f"{name} {what}: {entry.summary}{cited}"


def case_properties(values: dict[str, object]) -> Properties:
    properties = Properties()
    for name, value in values.items():
        if value is not None:
            properties.add_property(Property(name, str(value)))
    return properties


def _attempt_counts(result: CaseResult) -> dict[str, object]:
    stats = result.stats
    if stats is None:
        return {"status": result.status}
    return {
        "status": result.status,
        "attempts": stats.attempts,
        "judged": stats.judged,
        "passed": stats.passed,
        "failed": stats.failed,
        "blocked": stats.blocked,
        "pass_rate": None if stats.pass_rate is None else f"{stats.pass_rate:.3f}",
        "flaky": str(stats.flaky).lower(),
        "case_file": result.case_file,
    }


def _failure(result: CaseResult) -> Failure:
    failing = [a for a in result.assertions if a.status == "fail"]
    if not failing:
        note = result.notes[0] if result.notes else "the case failed"
        return Failure(note, type_=FAILURE_TYPE)
    failure = Failure(entry_line(failing[0]), type_=FAILURE_TYPE)
    failure.text = "\n".join(entry_line(a) for a in failing)
    return failure


def case_testcase(result: CaseResult, target_id: str) -> TestCase:
    suite = result.suite_id or "cases"
    seconds = sum(a.duration_s or 0.0 for a in result.attempts)
    case = TestCase(result.case_id, classname=f"{target_id}.{suite}", time=round(seconds, 3))
    case.append(case_properties(_attempt_counts(result)))
    if result.status == "fail":
        case.result = [_failure(result)]
    elif result.status == "blocked":
        reason = f"blocked: {result.blocked_reason or 'no reason recorded'}"
        why = result.notes[-1] if result.notes else ""  # the last attempt's, after any retry
        case.result = [Skipped(f"{reason}: {why}" if why else reason)]
    return case


def run_junit(run_id: str, run_dir: Path, target_id: str, results: list[CaseResult]) -> JUnitXml:
    suite = TestSuite(f"agentic-eval {target_id} {run_id}")
    suite.add_property("run_id", run_id)
    suite.add_property("run_dir", str(run_dir))
    for result in results:
        suite.add_testcase(case_testcase(result, target_id))
    return one_suite_file(suite)


def one_suite_file(suite: TestSuite) -> JUnitXml:
    """The `<testsuites>` document around one suite, with the totals counted."""
    suite.update_statistics()
    xml = JUnitXml("agentic-eval")
    xml.add_testsuite(suite)
    xml.update_statistics()
    return xml


def write_junit(xml: JUnitXml, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    _shown_controls(xml)
    xml.write(str(path), pretty=True)


def _shown_controls(xml: JUnitXml) -> None:
    """Every text and attribute of the document with its control characters escaped: a note
    quoting the agent's command may hold one, which XML 1.0 does not allow (the writer stopped
    with a traceback, and the run's step summary was lost with it: red team, round 12b)."""
    for element in xml._elem.iter():
        if element.text:
            element.text = shown_controls(element.text)
        if element.tail:
            element.tail = shown_controls(element.tail)
        for name, value in element.attrib.items():
            element.attrib[name] = shown_controls(value)
