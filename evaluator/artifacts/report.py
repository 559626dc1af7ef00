"""`report.md`: exactly Run Summary, Case Table, Failures, Suggested Next Fixes."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from evaluator.artifacts.attribution import blocked_label, score_run
from evaluator.artifacts.markdown_text import code_span, prose
from evaluator.artifacts.models import AssertionResult, CaseResult, Manifest
from evaluator.artifacts.report_findings import CaseFindings, render_fixes
from evaluator.artifacts.trigger_report import trigger_fixes, trigger_headline

ENTRY_FILE = "SKILL.md"

REPORT_SECTIONS = ("Run Summary", "Case Table", "Failures", "Suggested Next Fixes")
MAX_FIXES = 3


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def entry_label(assertion: AssertionResult) -> str:
    """A forbidden entry's status in its own words: its behaviour was observed or not."""
    if assertion.polarity == "forbidden" and assertion.status != "blocked":
        return "observed" if assertion.status == "fail" else "not observed"
    reason: str = assertion.blocked_reason or ""
    if assertion.blocked_by == "agent":
        # Said, since it decides the score: the agent's own gap counts as not passed.
        reason = f"{reason}, caused by the agent" if reason else "caused by the agent"
    return assertion.status + (f" ({reason})" if reason else "")


def decided_by_lines(assertion: AssertionResult) -> list[str]:
    """Who decided the entry, and from what: the checks, the sentence and rule, the judge record."""
    if assertion.decided_by is None:
        return []  # not judged: its notes say why
    if assertion.decided_by == "rules":
        return [
            f'decided by rules: {p.role} "{p.sentence}" (rule `{p.rule}`)'
            for p in assertion.provenance
        ]
    if assertion.decided_by == "model" and assertion.model is not None:
        record = f" (record `{assertion.model.record_path}`)" if assertion.model.record_path else ""
        return [f"decided by the model judge: {assertion.model.verdict}{record}"]
    return [f"decided by {assertion.decided_by}"]


def usage_line(results: list[CaseResult]) -> str:
    """What the run cost: the agents' wall time and the tokens their sessions recorded."""
    records = [a for r in results for a in r.attempts]
    seconds = sum(a.duration_s or 0.0 for a in records)
    totals: Counter[str] = Counter()
    for record in records:
        totals.update(record.tokens or {})
    tokens = (
        ", ".join(
            f"{name} {totals[name]:,}" for name in ("input", "cached_input", "output", "total")
        )
        if totals
        else "none recorded"
    )
    return f"Agent time: {seconds:.1f} s over {len(records)} attempt(s); tokens: {tokens}"


def description_file(manifest: Manifest) -> str:
    """The entry skill's file as its author edits it, relative to the source workspace, as the
    case fixes name files: in an eval repo the workspace path is the source's too; a
    skill-creator skill is its own source workspace, mounted at `.agents/skills/<name>/`, so
    its file is `SKILL.md` there and the workspace path names nothing the author has. A
    candidate text given to the run (`--skill`) keeps the path it was written to."""
    path = manifest.target_skill_path
    if manifest.candidate_skill or not manifest.source_workspace:
        return path
    source = Path(manifest.source_workspace)
    if not (source / path).is_file() and (source / ENTRY_FILE).is_file():
        return ENTRY_FILE
    return path


def render_report(
    manifest: Manifest,
    results: list[CaseResult],
    findings: dict[str, CaseFindings] | None = None,
    triggers: dict[str, Any] | None = None,
    run_state: str | None = None,
) -> str:
    """`triggers`: a trigger run's `triggers.json`, whose scores replace the pass rate.
    `run_state`: the state to state (`rundir.unfinished_why`), default the manifest's."""
    counts = Counter(r.status for r in results)
    lines = [
        f"# Evaluation report: {manifest.title()}",
        "",
        "## Run Summary",
        "",
        f"- Target: `{manifest.target_id}` (skill `{manifest.target_skill_path}`)",
        f"- Suites: {', '.join(manifest.suite_ids)}",
        f"- Agent: {manifest.agent_label()}, model"
        f" {manifest.model or 'default'}"
        + (f", scripted behaviours `{manifest.behaviors_dir}`" if manifest.behaviors_dir else ""),
        f"- Run state: {run_state or manifest.run_state}; started {manifest.started_at}"
        + (f", finished {manifest.finished_at}" if manifest.finished_at else ""),
        f"- Cases: {len(results)} of {len(manifest.resolved_case_ids)} finished;"
        f" pass {counts['pass']}, fail {counts['fail']}, blocked {counts['blocked']}",
        f"- Trigger prompts: {trigger_headline(triggers)}"
        if triggers is not None
        else f"- Verified pass rate: {score_run(results, len(manifest.resolved_case_ids)).headline()}",
        f"- Attempts per case: {manifest.attempts}; workers: {manifest.workers}",
        f"- Isolation layers: session evidence; access trace: {manifest.trace or 'off'};"
        f" jail: {manifest.sandbox or 'none'}",
        f"- {usage_line(results)}",
    ]
    for note in manifest.notes:
        lines.append(f"- Note: {note}")
    lines += [
        "",
        "## Case Table",
        "",
        "| case | suite | status | reason | attempts | pass rate |",
        "|---|---|---|---|---|---|",
    ]
    for result in results:
        stats = result.stats
        attempts = f"{stats.passed}/{stats.judged} (+{stats.blocked} blocked)" if stats else "-"
        pass_rate = f"{stats.pass_rate:.0%}" if stats and stats.pass_rate is not None else "n/a"
        flaky = " flaky" if stats and stats.flaky else ""
        lines.append(
            f"| {_cell(result.case_id)} | {_cell(result.suite_id or '')} | {result.status}{flaky} |"
            f" {_cell(blocked_label(result) if result.status == 'blocked' else '')} |"
            f" {attempts} | {pass_rate} |"
        )
    lines += ["", "## Failures", ""]
    failing = [r for r in results if r.status != "pass"]
    if not failing:
        lines.append("None.")
    for result in failing:
        label = result.status + (
            f" ({blocked_label(result)})" if result.status == "blocked" else ""
        )
        lines.append(f"### {result.case_id}: {label}")
        lines.append("")
        for assertion in result.assertions:
            if assertion.status == "pass":
                continue
            refs = ", ".join(code_span(e) for e in assertion.evidence[:4]) or "no evidence"
            lines.append(
                f"- {assertion.polarity} `{entry_label(assertion)}`: {assertion.summary} ({refs})"
            )
            lines += [f"  - {prose(line)}" for line in decided_by_lines(assertion)]
            for note in assertion.notes[:3]:
                lines.append(f"  - {prose(note)}")
        for note in result.notes:
            lines.append(f"- {prose(note)}")
        for finding in (findings or {}).get(result.case_id, CaseFindings()).lines:
            lines.append(f"- {prose(finding)}")
        lines.append("")
    lines += ["## Suggested Next Fixes", ""]
    if triggers is not None:
        lines += trigger_fixes(triggers, description_file(manifest), manifest.candidate_skill)
    else:
        source = Path(manifest.source_workspace) if manifest.source_workspace else None
        lines += render_fixes(results, source, MAX_FIXES, no_skill=manifest.is_no_skill())
    return "\n".join(lines).rstrip() + "\n"
