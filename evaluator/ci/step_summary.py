"""The GitHub Actions step summary: Markdown appended to the file `GITHUB_STEP_SUMMARY` names.

Written only when that variable is set (GitHub sets it for every step). Failing and blocked cases
come first (for a comparison: regressions), then the pass rate with its coverage, then where the
run directory is: its path on the runner, and a link to the workflow run, whose artifacts hold
the uploaded `runs/<id>/`.
"""

from __future__ import annotations

import os
from pathlib import Path

from evaluator.artifacts.attribution import score_run
from evaluator.artifacts.markdown_text import prose
from evaluator.artifacts.models import CaseResult
from evaluator.ci.junit_run import entry_line
from evaluator.compare.markdown import SECTION_ORDER, flip_line, headline, side_text
from evaluator.compare.model import Comparison

ENV_VAR = "GITHUB_STEP_SUMMARY"


def _workflow_run_link() -> str | None:
    server, repo, run = (
        os.environ.get(name) for name in ("GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_RUN_ID")
    )
    if not (server and repo and run):
        return None
    return f"{server}/{repo}/actions/runs/{run}"


def _where(label: str, path: Path) -> list[str]:
    lines = [f"- {label}: `{path}`"]
    link = _workflow_run_link()
    if link:
        lines.append(f"- artifacts of this workflow run: [{link}]({link})")
    return lines


def append_step_summary(markdown: str) -> Path | None:
    """Appends to the step summary when GitHub asked for one; returns the file written."""
    target = os.environ.get(ENV_VAR)
    if not target:
        return None
    path = Path(target)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(markdown if markdown.endswith("\n") else markdown + "\n")
    return path


def _escape(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def run_summary(
    command: str, run_id: str, run_dir: Path, results: list[CaseResult], verdict: str | None = None
) -> str:
    score = score_run(results)
    lines = [f"## agentic-eval {command}: `{run_id}`", "", f"**{score.headline()}**", ""]
    if verdict:
        lines += [f"`{verdict}`", ""]
    not_passed = [r for r in results if r.status != "pass"]
    if not_passed:
        lines += ["| case | status | why |", "|---|---|---|"]
        for result in sorted(not_passed, key=lambda r: r.status != "fail"):
            failing = [a for a in result.assertions if a.status == "fail"]
            why = entry_line(failing[0]) if failing else (result.blocked_reason or "")
            # A check's detail may quote the agent's command: shown literally (`prose`).
            lines.append(f"| {result.case_id} | {result.status} | {_escape(prose(why))} |")
        lines.append("")
    passed = [r.case_id for r in results if r.status == "pass"]
    if passed:
        lines += [f"Passed ({len(passed)}): {', '.join(passed)}", ""]
    lines += [*_where("run dir", run_dir), f"- report: `{run_dir / 'report.md'}`", ""]
    return "\n".join(lines)


def comparison_summary(comparison: Comparison, markdown_path: Path) -> str:
    base, candidate = comparison.base, comparison.candidate
    rate = "n/a" if candidate.pass_rate is None else f"{candidate.pass_rate:.0%}"
    was = "n/a" if base.pass_rate is None else f"{base.pass_rate:.0%}"
    lines = [
        f"## agentic-eval compare: `{base.name}` → `{candidate.name}`",
        "",
        f"**{headline(comparison)}**; pass rate {was} → {rate}",
        "",
    ]
    changed = [c for name in SECTION_ORDER for c in comparison.cases if c.classification == name]
    if changed:
        lines += ["| case | class | base | candidate | flipped entries |", "|---|---|---|---|---|"]
        for case in changed:
            flips = "<br>".join(_escape(flip_line(f)) for f in case.assertion_flips)
            renamed = f" (renamed from {case.renamed_from})" if case.renamed_from else ""
            lines.append(
                f"| {case.case_id}{renamed} | {case.classification} | {side_text(case.base)}"
                f" | {side_text(case.candidate)} | {flips} |"
            )
        lines.append("")
    counts = ", ".join(f"{name} {n}" for name, n in comparison.counts.items() if n)
    lines += [f"Classes: {counts}.", "", comparison.method, ""]
    lines += [*_where("comparison", markdown_path), ""]
    return "\n".join(lines)
