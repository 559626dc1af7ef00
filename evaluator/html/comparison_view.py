"""What `comparison.html` shows: the two runs side by side, every case's class with both sides'
results, and for each assertion entry that flipped, its verdict and evidence on each side, linked
to that run's `report.html` where the run directory and its report are there to link to."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from pydantic import ValidationError

from evaluator.artifacts.models import CaseResult
from evaluator.artifacts.rundir import RunDir
from evaluator.compare.markdown import headline, side_text
from evaluator.compare.model import AssertionFlip, CaseComparison, CaseSide, Comparison, RunSummary
from evaluator.html.run_page import RUN_HTML
from evaluator.html.run_view import Anchors, Link, case_anchor, evidence_anchors
from evaluator.vocabulary import COMPARISON_CLASSES


@dataclass
class RunSideView:
    label: str
    run_id: str
    path: str
    report: Link | None
    pass_rate: str
    coverage: str
    counts: str


@dataclass
class SideView:
    text: str
    status: str | None
    report: Link | None


@dataclass
class FlipView:
    entry_id: str
    summary: str
    polarity: str
    direction: str
    base_status: str
    candidate_status: str
    base_counts: str
    candidate_counts: str
    base_evidence: list[Link]
    candidate_evidence: list[Link]


@dataclass
class CaseRowView:
    case_id: str
    anchor: str
    suite: str
    title: str
    classification: str
    reason: str
    test: str
    base: SideView
    candidate: SideView
    flips: list[FlipView]


@dataclass
class ComparisonView:
    title: str
    headline: str
    method: str
    differences: list[str]
    runs: list[RunSideView]
    counts: list[tuple[str, int]]
    classes: list[str]
    suites: list[str]
    cases: list[CaseRowView]


def _rate(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.0%}"


def _href(target: Path, page_dir: Path, fragment: str = "") -> str:
    """A relative link from the page to a file; always `./` or `../` first, so a directory name
    can never be read as a URL scheme."""
    relative = os.path.relpath(target, page_dir)
    if not relative.startswith(".."):
        relative = "./" + relative
    return quote(relative) + (f"#{fragment}" if fragment else "")


class _Run:
    """One side's run directory, when it can be found, and its case results on demand."""

    def __init__(self, summary: RunSummary, directory: Path | None, page_dir: Path) -> None:
        self.summary = summary
        self.directory = directory
        self.page_dir = page_dir
        self._anchors: dict[str, Anchors] = {}

    @property
    def report(self) -> Path | None:
        if self.directory is None or not (self.directory / RUN_HTML).is_file():
            return None
        return self.directory / RUN_HTML

    def anchors(self, side: CaseSide, case_id: str) -> Anchors | None:
        if self.directory is None:
            return None
        if case_id not in self._anchors:
            try:
                result = CaseResult.model_validate_json(
                    (self.directory / side.case_result).read_text(encoding="utf-8")
                )
            except (OSError, ValidationError):
                return None
            self._anchors[case_id] = evidence_anchors(RunDir(self.directory), result)
        return self._anchors[case_id]

    def case_link(self, case_id: str) -> Link | None:
        report = self.report
        if report is None:
            return None
        href = _href(report, self.page_dir, case_anchor(case_id))
        return Link(f"{self.summary.run_id}: {case_id}", href, label="report")

    def evidence(self, side: CaseSide | None, case_id: str, refs: list[str]) -> list[Link]:
        anchors = self.anchors(side, case_id) if side is not None else None
        report = self.report
        links = []
        for ref in refs:
            anchor = anchors.anchor(ref) if anchors is not None else None
            if anchor is not None and report is not None:
                href = _href(report, self.page_dir, anchor)
                links.append(Link(ref, href, label=Anchors.label(ref)))
            else:
                links.append(Link(ref, None))
        return links


def _locate(summary: RunSummary, candidate_dir: Path, is_candidate: bool) -> Path | None:
    """The run directory of one side: the candidate's is the page's own; the base is where the
    comparison found it, or a sibling of the candidate with its run id (runs moved together)."""
    if is_candidate:
        return candidate_dir
    for directory in (Path(summary.path), candidate_dir.parent / summary.run_id):
        if (directory / "manifest.json").is_file():
            return directory
    return None


def _run_side(label: str, run: _Run) -> RunSideView:
    s = run.summary
    report = run.report
    return RunSideView(
        label=label,
        run_id=s.run_id,
        path=s.path,
        report=Link(str(report), _href(report, run.page_dir), label="report.html")
        if report is not None
        else None,
        pass_rate=_rate(s.pass_rate),
        coverage=_rate(s.coverage),
        counts=f"{s.passed} pass, {s.failed} fail, {s.blocked} blocked of {s.cases}",
    )


def _counts(passed: int, judged: int) -> str:
    return f"{passed}/{judged}" if judged else "-"


def _flip(flip: AssertionFlip, case: CaseComparison, base: _Run, candidate: _Run) -> FlipView:
    return FlipView(
        entry_id=flip.entry_id,
        summary=flip.summary,
        polarity=flip.polarity,
        direction=flip.direction,
        base_status=flip.base_status or "absent",
        candidate_status=flip.candidate_status or "absent",
        base_counts=_counts(flip.base_passed, flip.base_judged),
        candidate_counts=_counts(flip.candidate_passed, flip.candidate_judged),
        base_evidence=base.evidence(
            case.base, case.renamed_from or case.case_id, flip.base_evidence
        ),
        candidate_evidence=candidate.evidence(
            case.candidate, case.case_id, flip.candidate_evidence
        ),
    )


def _p(direction: str, raw: float | None, corrected: float | None) -> str:
    if raw is None:
        return ""
    holm = f" (Holm {corrected:.3g})" if corrected is not None else ""
    return f"p({direction}) {raw:.3g}{holm}"


def _test(case: CaseComparison) -> str:
    names = {"boschloo-one-sided": "Boschloo", "fisher-one-sided": "Fisher"}
    if case.decision not in names:
        return case.decision
    p = [_p("drop", case.p_drop, case.p_drop_holm), _p("rise", case.p_rise, case.p_rise_holm)]
    return f"{names[case.decision]} one-sided: " + ", ".join(x for x in p if x)


def _side(side: CaseSide | None, run: _Run, case_id: str) -> SideView:
    return SideView(
        text=side_text(side),
        status=side.status if side is not None else None,
        report=run.case_link(case_id) if side is not None else None,
    )


def build_comparison_view(comparison: Comparison, candidate_dir: Path) -> ComparisonView:
    base = _Run(comparison.base, _locate(comparison.base, candidate_dir, False), candidate_dir)
    candidate = _Run(
        comparison.candidate, _locate(comparison.candidate, candidate_dir, True), candidate_dir
    )
    present = {c.classification for c in comparison.cases}
    return ComparisonView(
        title=f"Comparison: {comparison.base.name} → {comparison.candidate.name}",
        headline=headline(comparison),
        method=comparison.method,
        differences=comparison.differences,
        runs=[_run_side("base", base), _run_side("candidate", candidate)],
        counts=[(name, count) for name, count in comparison.counts.items() if count],
        classes=[name for name in COMPARISON_CLASSES if name in present],
        suites=sorted({c.suite_id for c in comparison.cases if c.suite_id}),
        cases=[
            CaseRowView(
                case_id=case.case_id,
                anchor=case_anchor(case.case_id),
                suite=case.suite_id or "",
                title=case.title or "",
                classification=case.classification,
                reason=case.reason
                + (f" (renamed from {case.renamed_from})" if case.renamed_from else ""),
                test=_test(case),
                base=_side(case.base, base, case.renamed_from or case.case_id),
                candidate=_side(case.candidate, candidate, case.case_id),
                flips=[_flip(f, case, base, candidate) for f in case.assertion_flips],
            )
            for case in comparison.cases
        ],
    )
