"""What `report.html` shows, read from a run directory: the summary, one row and one section per
case (assertion verdicts with links to the records they cite, attempts, isolation findings with
the offending paths) and every attempt's transcript with the cited and offending records marked.

Anchors are built from ids we wrote (case ids are validated, record ids are `msg-N`), so a link
from a verdict to its record is `#<case>--attempt-NN--msg-N`. Text is passed to the template as
it is: the template escapes it.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from evaluator.artifacts.attribution import blocked_label, score_run
from evaluator.artifacts.models import AttemptFile, CaseResult, CheckVerdict, Manifest
from evaluator.artifacts.record_text import describe_record
from evaluator.artifacts.report import decided_by_lines, entry_label, usage_line
from evaluator.artifacts.report_findings import read_json_object
from evaluator.artifacts.rundir import RunDir
from evaluator.artifacts.trigger_report import TRIGGERS_FILE, prompt_verdict, trigger_headline
from evaluator.vocabulary import ALL_STATUSES

# Past this many records a transcript shows only the cited and offending ones (the page stays
# usable; the full session is the linked accepted-session.json).
MAX_RECORDS = 2000
MAX_TEXT = 4000
# A ref we may turn into a relative link to a file of the run directory.
_RUN_FILE_REF = re.compile(r"^case-artifacts/[A-Za-z0-9._/-]+(#[A-Za-z0-9._-]+)?$")
_ATTEMPT_REF = re.compile(r"/attempts/(attempt-[0-9]+)/")


@dataclass(frozen=True)
class Link:
    """An evidence ref: `href` is an anchor on the page, a relative file of the run, or None;
    `label` is what the page shows (the full ref is the link's title)."""

    text: str
    href: str | None
    on_page: bool = False
    label: str = ""


@dataclass
class RecordView:
    id: str
    anchor: str
    kind: str
    headline: str
    text: str | None = None
    text_omitted: int = 0
    cited_by: list[Link] = field(default_factory=list)
    offending: list[str] = field(default_factory=list)


@dataclass
class TranscriptView:
    anchor: str
    title: str
    file_href: str
    prompt: str | None
    facts: list[str]
    records: list[RecordView]
    omitted: int = 0


@dataclass
class CheckView:
    depth: int
    kind: str
    status: str
    detail: str
    evidence: list[Link]


@dataclass
class AssertionView:
    anchor: str
    entry_id: str
    polarity: str
    status: str
    label: str
    summary: str
    decided_by: list[str]
    notes: list[str]
    evidence: list[Link]
    checks: list[CheckView]


@dataclass
class ViolationView:
    kind: str
    path: str
    detail: str
    record: Link


@dataclass
class AttemptView:
    number: int
    anchor: str
    transcript_anchor: str | None
    status: str
    valid: bool
    reason: str
    isolation: str
    isolation_reason: str
    retry_of: int | None
    duration: str
    violations: list[ViolationView]
    opaque: list[tuple[Link, str]]
    disagreements: list[str]
    layers: str


@dataclass
class CaseView:
    case_id: str
    anchor: str
    suite: str
    title: str
    status: str
    blocked_reason: str
    flaky: bool
    attempts_label: str
    pass_rate: str
    notes: list[str]
    mismatches: list[str]
    final_answer: str | None
    assertions: list[AssertionView]
    attempts: list[AttemptView]
    transcripts: list[TranscriptView]


@dataclass
class RunView:
    run_id: str
    title: str  # the run id, or the variant of an evaluation the run is
    facts: list[tuple[str, str]]
    counts: dict[str, int]
    headline: str
    notes: list[str]
    statuses: list[str]
    suites: list[str]
    cases: list[CaseView]
    triggers: dict[str, Any] | None = None  # a trigger run's triggers.json
    headline_label: str = "Verified pass rate"


def _attempt_file(path: Path) -> AttemptFile | None:
    try:
        return AttemptFile.model_validate_json(path.read_text(encoding="utf-8"))
    except (OSError, ValidationError):
        return None


def _shorten(text: str) -> tuple[str, int]:
    return (text, 0) if len(text) <= MAX_TEXT else (text[:MAX_TEXT], len(text) - MAX_TEXT)


class Anchors:
    """Where each session file's records are on the page: ref prefix → anchor prefix."""

    def __init__(self) -> None:
        self.prefixes: dict[str, str] = {}
        self.ids: dict[str, set[str]] = {}

    def add(self, ref_prefix: str, anchor_prefix: str, record_ids: set[str]) -> None:
        self.prefixes[ref_prefix] = anchor_prefix
        self.ids[ref_prefix] = record_ids

    @staticmethod
    def label(ref: str) -> str:
        """`#msg-N` for the case's accepted session, `attempt-NN#msg-N` for an attempt's."""
        prefix, _, record = ref.partition("#")
        attempt = _ATTEMPT_REF.search(prefix)
        return f"{attempt.group(1)}#{record}" if attempt else f"#{record}"

    def anchor(self, ref: str) -> str | None:
        prefix, _, record = ref.partition("#")
        if prefix in self.prefixes and record in self.ids[prefix]:
            return f"{self.prefixes[prefix]}--{record}"
        return None

    def link(self, ref: str) -> Link:
        anchor = self.anchor(ref)
        if anchor is not None:
            return Link(ref, "#" + anchor, on_page=True, label=self.label(ref))
        if _RUN_FILE_REF.fullmatch(ref) and ".." not in ref.split("/"):
            return Link(ref, ref.partition("#")[0])
        return Link(ref, None)


def _transcript(
    session: dict[str, Any],
    anchor: str,
    title: str,
    file_href: str,
    workspace: str,
    cited: dict[str, list[Link]],
    offending: dict[str, list[str]],
) -> TranscriptView:
    records = [r for r in session.get("records") or [] if isinstance(r, dict)]
    keep_all = len(records) <= MAX_RECORDS
    views = []
    for record in records:
        rid = str(record.get("id"))
        if not keep_all and rid not in cited and rid not in offending:
            continue
        raw = record.get("text")
        text, omitted = _shorten(str(raw)) if raw is not None else (None, 0)
        views.append(
            RecordView(
                id=rid,
                anchor=f"{anchor}--{rid}",
                kind=str(record.get("kind")),
                headline=describe_record(record, workspace).plain(),
                text=text,
                text_omitted=omitted,
                cited_by=cited.get(rid, []),
                offending=offending.get(rid, []),
            )
        )
    facts = [
        f"thread {session.get('thread_id') or 'unknown'}",
        f"CLI {session.get('cli_version') or 'unknown'}",
        "complete" if session.get("complete") else "incomplete (the session shows no end)",
        f"{session.get('record_count', len(records))} records",
    ]
    return TranscriptView(
        anchor=anchor,
        title=title,
        file_href=file_href,
        prompt=session.get("first_user_message"),
        facts=facts,
        records=views,
        omitted=len(records) - len(views),
    )


def _checks(checks: list[CheckVerdict], anchors: Anchors, depth: int = 0) -> list[CheckView]:
    views = []
    for check in checks:
        views.append(
            CheckView(
                depth=depth,
                kind=check.kind,
                status=check.status,
                detail=check.detail,
                evidence=[anchors.link(ref) for ref in check.evidence],
            )
        )
        views += _checks(check.checks, anchors, depth + 1)
    return views


def _evidence_refs(result: CaseResult) -> dict[str, list[tuple[str, str]]]:
    """ref → the (entry id, entry anchor) of every assertion entry that cites it."""

    def walk(checks: list[CheckVerdict]) -> list[str]:
        return [ref for c in checks for ref in (*c.evidence, *walk(c.checks))]

    cited: dict[str, list[tuple[str, str]]] = {}
    for index, assertion in enumerate(result.assertions):
        entry = assertion.entry_id or f"entry {index + 1}"
        anchor = _entry_anchor(result.case_id, index)
        for ref in dict.fromkeys([*assertion.evidence, *walk(assertion.checks)]):
            cited.setdefault(ref, []).append((entry, anchor))
    return cited


def _entry_anchor(case_id: str, index: int) -> str:
    return f"{case_id}--entry-{index + 1}"


Attempt = tuple[int, AttemptFile | None, dict[str, Any] | None]


def _load_attempts(run_dir: RunDir, case_id: str) -> list[Attempt]:
    """Every attempt of a case: its number, `attempt.json` and `accepted-session.json`."""
    attempts = []
    for directory in sorted((run_dir.case_artifacts(case_id) / "attempts").glob("attempt-*")):
        suffix = directory.name.removeprefix("attempt-")
        if suffix.isdigit():
            attempts.append(
                (
                    int(suffix),
                    _attempt_file(directory / "attempt.json"),
                    read_json_object(directory / "accepted-session.json"),
                )
            )
    return attempts


def _anchors(run_dir: RunDir, result: CaseResult, attempts: list[Attempt]) -> Anchors:
    anchors = Anchors()
    for number, _, session in attempts:
        if session is None:
            continue
        ids = {str(r.get("id")) for r in session.get("records") or [] if isinstance(r, dict)}
        anchor = _attempt_anchor(result.case_id, number)
        anchors.add(run_dir.attempt_ref_prefix(result.case_id, number), anchor, ids)
        if result.thread_id and session.get("thread_id") == result.thread_id:
            # The case-level copy is this attempt's session: its refs land here too.
            anchors.add(run_dir.case_ref_prefix(result.case_id), anchor, ids)
    return anchors


def evidence_anchors(run_dir: RunDir, result: CaseResult) -> Anchors:
    """Where the records a case's verdicts cite are in that run's `report.html`."""
    return _anchors(run_dir, result, _load_attempts(run_dir, result.case_id))


def _case(run_dir: RunDir, result: CaseResult) -> CaseView:
    case_id = result.case_id
    attempts = _load_attempts(run_dir, case_id)
    anchors = _anchors(run_dir, result, attempts)
    citing = _evidence_refs(result)
    assertions = [
        AssertionView(
            anchor=_entry_anchor(case_id, index),
            entry_id=a.entry_id or f"entry {index + 1}",
            polarity=a.polarity,
            status=a.status,
            label=entry_label(a),
            summary=a.summary,
            decided_by=decided_by_lines(a),
            notes=a.notes,
            evidence=[anchors.link(ref) for ref in a.evidence],
            checks=_checks(a.checks, anchors),
        )
        for index, a in enumerate(result.assertions)
    ]
    attempt_views = []
    transcripts = []
    for number, record, session in attempts:
        ref_prefix = run_dir.attempt_ref_prefix(case_id, number)
        violations = (
            record.isolation_report.violations if record and record.isolation_report else []
        )
        offending: dict[str, list[str]] = {}
        for violation in violations:
            offending.setdefault(violation.ref, []).append(f"{violation.kind} {violation.path}")
        if session is not None:
            cited: dict[str, list[Link]] = {}
            for ref, entries in citing.items():
                anchor = anchors.anchor(ref)
                if anchor is not None and anchor.startswith(
                    _attempt_anchor(case_id, number) + "--"
                ):
                    cited.setdefault(ref.partition("#")[2], []).extend(
                        Link(entry, "#" + entry_anchor, on_page=True, label=entry)
                        for entry, entry_anchor in entries
                    )
            transcripts.append(
                _transcript(
                    session,
                    _attempt_anchor(case_id, number),
                    f"attempt {number:02d}",
                    ref_prefix,
                    (record.workspace_root if record else "") or "",
                    cited,
                    offending,
                )
            )
        if record is not None:
            attempt_views.append(
                _attempt(case_id, number, record, anchors, ref_prefix, session is not None)
            )
    stats = result.stats
    return CaseView(
        case_id=case_id,
        anchor=case_anchor(case_id),
        suite=result.suite_id or "",
        title=result.title or "",
        status=result.status,
        blocked_reason=blocked_label(result) if result.status == "blocked" else "",
        flaky=bool(stats and stats.flaky),
        attempts_label=f"{stats.passed}/{stats.judged} (+{stats.blocked} blocked)"
        if stats
        else "-",
        pass_rate=f"{stats.pass_rate:.0%}" if stats and stats.pass_rate is not None else "n/a",
        notes=result.notes,
        mismatches=result.environment_mismatches,
        final_answer=_final_answer(run_dir, case_id),
        assertions=assertions,
        attempts=attempt_views,
        transcripts=transcripts,
    )


def case_anchor(case_id: str) -> str:
    return f"case-{case_id}"


def _attempt_anchor(case_id: str, number: int) -> str:
    return f"{case_id}--attempt-{number:02d}"


def _attempt(
    case_id: str,
    number: int,
    record: AttemptFile,
    anchors: Anchors,
    ref_prefix: str,
    has_session: bool,
) -> AttemptView:
    report = record.isolation_report
    trace = record.trace_report or {}
    layers = record.isolation_layers
    return AttemptView(
        number=number,
        anchor=f"{_attempt_anchor(case_id, number)}--summary",
        transcript_anchor=_attempt_anchor(case_id, number) if has_session else None,
        status=record.status or "-",
        valid=record.valid,
        reason=record.reason or "",
        isolation=record.isolation or "not assessed",
        isolation_reason=record.isolation_reason or "",
        retry_of=record.retry_of,
        duration=f"{record.duration_s:.1f} s" if record.duration_s is not None else "-",
        violations=[
            ViolationView(v.kind, v.path, v.detail, anchors.link(f"{ref_prefix}#{v.ref}"))
            for v in (report.violations if report else [])
        ],
        opaque=[
            (anchors.link(f"{ref_prefix}#{o.get('ref', '')}"), o.get("reason", ""))
            for o in (report.opaque if report else [])
        ],
        disagreements=[str(d) for d in trace.get("disagreements") or []],
        layers=(f"jail {layers.sandbox}, trace {layers.trace}" if layers is not None else "-"),
    )


def _final_answer(run_dir: RunDir, case_id: str) -> str | None:
    try:
        return (run_dir.case_artifacts(case_id) / "final-answer.txt").read_text(encoding="utf-8")
    except OSError:
        return None


def build_run_view(run_dir: RunDir, manifest: Manifest, results: list[CaseResult]) -> RunView:
    counts = Counter(r.status for r in results)
    triggers = _triggers(run_dir)
    facts = [
        ("Target", f"{manifest.target_id} (skill {manifest.target_skill_path})"),
        ("Suites", ", ".join(manifest.suite_ids)),
        (
            "Agent",
            f"{manifest.agent_label()}, model"
            f" {manifest.model or 'default'}"
            + (f", scripted behaviours {manifest.behaviors_dir}" if manifest.behaviors_dir else ""),
        ),
        (
            "Run state",
            f"{manifest.run_state}; started {manifest.started_at}"
            + (f", finished {manifest.finished_at}" if manifest.finished_at else ""),
        ),
        ("Attempts per case", f"{manifest.attempts}; workers {manifest.workers}"),
        (
            "Isolation layers",
            f"session evidence; access trace {manifest.trace or 'off'};"
            f" jail {manifest.sandbox or 'none'}",
        ),
        ("Usage", usage_line(results)),
    ]
    return RunView(
        run_id=manifest.run_id,
        title=manifest.title(),
        facts=facts,
        counts={status: counts[status] for status in ALL_STATUSES},
        headline=trigger_headline(triggers)
        if triggers is not None
        else score_run(results, len(manifest.resolved_case_ids)).headline(),
        notes=manifest.notes,
        statuses=[s for s in ALL_STATUSES if counts[s]],
        suites=sorted({r.suite_id for r in results if r.suite_id}),
        cases=[_case(run_dir, r) for r in results],
        triggers=triggers,
        headline_label="Trigger prompts" if triggers is not None else "Verified pass rate",
    )


def _triggers(run_dir: RunDir) -> dict[str, Any] | None:
    try:
        data = json.loads((run_dir.path / TRIGGERS_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    for prompt in data.get("prompts") or []:
        prompt["verdict"] = prompt_verdict(prompt)
    return data
