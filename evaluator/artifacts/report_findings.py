"""What `report.md` says about each failing case beyond its verdicts, read from the run directory:
isolation offenders (paths and records), setup mismatches, what the agent did instead of what an
assertion wanted, which attempts of a flaky case failed, and whether a fix belongs to the skill
or to the eval."""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evaluator.artifacts.attribution import case_blame, final_attempts
from evaluator.artifacts.markdown_text import code_span
from evaluator.artifacts.models import CaseResult
from evaluator.artifacts.record_text import failed_tool_calls
from evaluator.artifacts.rundir import RunDir
from evaluator.judge.verdict import CheckVerdict
from evaluator.vocabulary import NO_NETWORK_SIGNS

MAX_OFFENDERS = 5
MAX_ACTIVITY = 6
MAX_TEXT = 80
MAX_ANSWER = 240
MAX_REASON = 200


@dataclass
class CaseFindings:
    lines: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Fix:
    path: str
    why: str
    count: int


def _short(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= MAX_TEXT else flat[: MAX_TEXT - 1] + "…"


def read_json_object(path: Path) -> dict[str, Any] | None:
    """A JSON file holding an object, or None when it is missing, unreadable or not an object."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _relative(path: str, workspace: str) -> str:
    root = workspace.rstrip("/")
    if root and path.startswith(root + "/"):
        return path[len(root) + 1 :]
    return path


def isolation_offenders(run_dir: RunDir, result: CaseResult) -> list[str]:
    lines = []
    for attempt in result.attempts:
        if attempt.isolation != "violation":
            continue
        directory = run_dir.attempt_artifacts(result.case_id, attempt.attempt)
        data = read_json_object(directory / "attempt.json") or {}
        report = data.get("isolation_report") or {}
        violations = report.get("violations") or []
        prefix = run_dir.attempt_ref_prefix(result.case_id, attempt.attempt)
        shown = [
            f"{v.get('kind')} `{v.get('path')}` (`{prefix}#{v.get('ref')}`)"
            for v in violations[:MAX_OFFENDERS]
            if isinstance(v, dict)
        ]
        more = len(violations) - len(shown)
        lines.append(
            f"Isolation: attempt {attempt.attempt:02d} reached outside its workspace: "
            + ("; ".join(shown) or "see transcript.md")
            + (f"; and {more} more" if more > 0 else "")
        )
    return lines


def setup_mismatches(result: CaseResult) -> list[str]:
    return [f"Setup mismatch: {m}" for m in result.environment_mismatches]


def agent_activity(run_dir: RunDir, result: CaseResult) -> list[str]:
    """What the judged attempt did: the files whose content reached it (the route it took
    through the skill) and the commands it ran. The files are those the judge saw reach the
    agent when it computed them; else those the commands' table says were read."""
    session = read_json_object(run_dir.case_artifacts(result.case_id) / "accepted-session.json")
    if session is None:
        return []
    workspace = result.workspace_root or ""
    reads: list[str] = []
    writes: list[str] = []
    commands: list[str] = []
    for record in session.get("records") or []:
        if not isinstance(record, dict):
            continue
        if record.get("kind") == "file_read_observed" and record.get("access") == "read":
            path = _relative(str(record.get("path")), workspace)
            if path not in reads:
                reads.append(path)
        elif record.get("kind") == "file_write_observed" and record.get("outcome") != "failed":
            # what it produced: a skill-creator suite judges mostly the files an agent writes
            path = _relative(str(record.get("path")), workspace)
            if path not in writes:
                writes.append(path)
        elif record.get("kind") == "command_observed" and record.get("command"):
            commands.append(_short(str(record["command"])))
    judged = [a for a in result.attempts if a.workspace_root == workspace and a.shown is not None]
    if judged:
        shown = judged[-1].shown or []
        reads = [f.path if f.share >= 1.0 else f"{f.path} ({f.share:.0%})" for f in shown]
    parts = []
    if reads:
        parts.append(
            "read "
            + ", ".join(f"`{p}`" for p in reads[:MAX_ACTIVITY])
            + (f" and {len(reads) - MAX_ACTIVITY} more" if len(reads) > MAX_ACTIVITY else "")
        )
    else:
        parts.append("read no file")
    if writes:
        parts.append(
            "wrote "
            + ", ".join(f"`{p}`" for p in writes[:MAX_ACTIVITY])
            + (f" and {len(writes) - MAX_ACTIVITY} more" if len(writes) > MAX_ACTIVITY else "")
        )
    if commands:
        parts.append(
            "ran "
            + ", ".join(f"`{c}`" for c in commands[:MAX_ACTIVITY])
            + (f" and {len(commands) - MAX_ACTIVITY} more" if len(commands) > MAX_ACTIVITY else "")
        )
    return ["What the agent did instead: it " + "; it ".join(parts)]


def final_answer(run_dir: RunDir, result: CaseResult) -> list[str]:
    """The accepted attempt's final answer, when an entry about the answer failed: its verdict
    says only what the answer lacks (or holds), not what the agent said instead."""
    about_answer = any(
        entry.status == "fail" and any(_about_answer(c) for c in entry.checks)
        for entry in result.assertions
    )
    if not about_answer:
        return []
    path = run_dir.case_artifacts(result.case_id) / "final-answer.txt"
    try:
        flat = " ".join(path.read_text(encoding="utf-8", errors="replace").split())
    except OSError:
        return []
    if not flat:
        return ["Its final answer was empty"]
    shown = flat if len(flat) <= MAX_ANSWER else flat[: MAX_ANSWER - 1] + "…"
    return [f"Its final answer: {code_span(shown)}"]


def _about_answer(check: CheckVerdict) -> bool:
    """Whether the check, or an operand of it (`not`, `any_of`, `all_of`), reads the answer."""
    return check.kind.startswith("final_answer") or any(_about_answer(c) for c in check.checks)


def failed_calls(run_dir: RunDir, result: CaseResult) -> list[str]:
    """The judged attempt's tool calls that did not take effect (a scripted golden's failed step
    shows here: the behaviour, not the assertions, went wrong)."""
    session = read_json_object(run_dir.case_artifacts(result.case_id) / "accepted-session.json")
    records = session.get("records") if session else None
    if not isinstance(records, list):
        return []
    failed = failed_tool_calls(
        [r for r in records if isinstance(r, dict)], result.workspace_root or ""
    )
    if not failed:
        return []
    shown = failed[:MAX_ACTIVITY]
    more = f"; and {len(failed) - len(shown)} more" if len(failed) > len(shown) else ""
    return ["Tool calls that did not take effect: " + "; ".join(shown) + more]


def network_failures(run_dir: RunDir, result: CaseResult) -> list[str]:
    """The judged attempt's tool outputs that say a name lookup or a connection failed for want
    of a network: a case that needs one fails on a machine (or in an agent's sandbox) without
    it, whatever the skill says, and the skill fixes below would not help. The agent's own text
    proves nothing, so this is only a line for the reader, never a verdict."""
    session = read_json_object(run_dir.case_artifacts(result.case_id) / "accepted-session.json")
    records = session.get("records") if session else None
    if not isinstance(records, list):
        return []
    for record in records:
        if not isinstance(record, dict) or record.get("kind") != "tool_result":
            continue
        text = str(record.get("text") or "")
        for line in text.splitlines():
            sign = next((s for s in NO_NETWORK_SIGNS if s in line), None)
            if sign is None:
                continue
            # the words before the sign name what could not be reached
            end = line.index(sign) + len(sign)
            start = max(end - MAX_TEXT, 0)
            shown = line[start:end]
            if start > 0 and " " in shown:
                shown = shown.split(" ", 1)[1]  # from a whole word
            shown = " ".join(shown.split())
            return [
                f"No network: `{record.get('id')}` printed {code_span(shown)}: the agent's"
                " commands could not reach a network here; if the case needs one, the failure"
                " is the machine's (or the agent's sandbox's), not the skill's"
            ]
    return []


def flaky_attempts(result: CaseResult) -> list[str]:
    if result.stats is None or not result.stats.flaky:
        return []
    counted = [a for a in result.attempts if not a.interrupted]
    failing = [f"{a.attempt:02d}" for a in counted if a.status == "fail"]
    passing = [f"{a.attempt:02d}" for a in counted if a.status == "pass"]
    return [
        f"Flaky: attempt(s) {', '.join(failing) or '-'} failed, {', '.join(passing) or '-'} passed"
    ]


def case_findings(run_dir: RunDir, results: list[CaseResult]) -> dict[str, CaseFindings]:
    """Lines to add under each failing case in `Failures`."""
    findings = {}
    for result in results:
        if result.status == "pass":
            continue
        lines = [*isolation_offenders(run_dir, result), *setup_mismatches(result)]
        if any(a.status == "fail" for a in result.assertions):
            lines += agent_activity(run_dir, result)
            lines += final_answer(run_dir, result)
        lines += failed_calls(run_dir, result)
        if result.status == "fail":
            lines += network_failures(run_dir, result)
        lines += flaky_attempts(result)
        findings[result.case_id] = CaseFindings(lines)
    return findings


def _not_the_skills(result: CaseResult) -> bool:
    """A blocked case the score leaves out (the eval's or the machine's: an unclear rule, an
    environment, evidence no attempt could verify whatever the agent did) or an outage: the
    report's case table says so beside its status, so it names no skill file to fix."""
    if result.status != "blocked":
        return False
    blame = case_blame(result)
    return blame is None or blame.side != "agent"


def skill_fixes(results: list[CaseResult], source_workspace: Path | None) -> list[Fix]:
    """Skill files named by failing cases (`notes.likely_fix_files`): the skill's to fix. A case
    blocked by its own eval, the machine or an outage names none (`_not_the_skills`)."""
    counts: Counter[str] = Counter()
    for result in results:
        if result.status == "pass" or _not_the_skills(result):
            continue
        for path in result.suggested_fix_files:
            if source_workspace is None or (source_workspace / path).is_file():
                counts[path] += 1
    return [
        Fix(path, f"named by {count} failing or blocked case(s)", count)
        for path, count in counts.most_common()
    ]


def eval_fixes(results: list[CaseResult], source_workspace: Path | None) -> list[Fix]:
    """Case files whose assertions no judge could decide (`unclear-rule`) or whose setup could
    not be reproduced: the eval's to fix, not the skill's."""
    fixes = []
    # One file holding many cases (an evals.json): each fix names its case.
    shared = Counter(r.case_file for r in results if r.case_file)
    for result in results:
        if not result.case_file:
            continue
        if source_workspace is not None and not (source_workspace / result.case_file).is_file():
            continue
        unclear = [a.summary for a in result.assertions if a.blocked_reason == "unclear-rule"]
        reasons = []
        if unclear:
            # A skill-creator evals.json holds no `checks:`: its own typed assertions, or a
            # judge model, are what decides prose there.
            advice = (
                "give a judge model or write typed assertions"
                if result.case_file.endswith(".json")
                else "add `checks:`"
            )
            reasons.append(
                f"{len(unclear)} assertion(s) no judge can decide ({advice}):"
                f' "{_short(unclear[0])}"'
            )
        if not result.assertions and result.blocked_reason == "unclear-rule":
            reasons.append("no assertions: nothing can pass or fail the case (add expectations)")
        if result.environment_mismatches:
            first = result.environment_mismatches[0]
            reasons.append(f"setup not reproducible: {_short(first)}{_what_to_set(first)}")
        left_out = _left_out(result)
        if left_out and not reasons:
            reasons.append(f"blocked and left out of the score, whatever the skill: {left_out}")
        timed_out = _timed_out(result)
        if timed_out and not reasons:
            reasons.append(timed_out)
        if reasons:
            which = f"{result.case_id}: " if shared[result.case_file] > 1 else ""
            fixes.append(Fix(result.case_file, which + "; ".join(reasons), len(unclear) + 1))
    return sorted(fixes, key=lambda f: -f.count)


# The mismatch the workspace builder records for a required variable this environment lacks.
MISSING_VARIABLE = re.compile(r"^env_vars_required: (\S+) is not set in the environment$")


def _what_to_set(mismatch: str) -> str:
    """For a required variable this environment lacks, where it comes from: the environment
    agentic-eval runs in, which the attempt passes to the agent (a user read "not set in the
    environment" and did not know which environment, nor whether its value would be kept)."""
    found = MISSING_VARIABLE.match(mismatch)
    if found is None:
        return ""
    name = found.group(1)
    return (
        f" (set {name} where agentic-eval runs: each attempt passes it to the agent; its value"
        " is redacted from the run when its name says secret or it is listed in the case's"
        " `setup.secret_env_vars`, docs/security.md)"
    )


def _left_out(result: CaseResult) -> str | None:
    """Why a blocked case the score leaves out as the eval's was blocked (an agent that
    answered without a tool call left no evidence of where it worked; a program the machine
    lacks), when nothing above explains it: the author's next step, not the skill's."""
    if result.status != "blocked":
        return None
    blame = case_blame(result)
    if blame is None or blame.side != "eval":
        return None
    blocked = [a.reason for a in final_attempts(result) if a.status == "blocked" and a.reason]
    # An entry's notes say why it was blocked; its summary only what it asserts.
    blocked += [(a.notes or [a.summary])[0] for a in result.assertions if a.status == "blocked"]
    if not blocked:
        return "see Failures"
    flat = " ".join(blocked[0].split())
    return flat if len(flat) <= MAX_REASON else flat[: MAX_REASON - 1] + "…"


def _timed_out(result: CaseResult) -> str | None:
    """A blocked case whose every try timed out: counted as not passed, and the limit may be
    the eval's (a task that needs longer) as well as the agent's, so the author is told both."""
    tries = final_attempts(result)
    if result.status != "blocked" or not tries or not all(t.timed_out for t in tries):
        return None
    longest = max((t.duration_s or 0.0) for t in tries)
    return (
        f"every attempt timed out (the agent was stopped after {longest:.1f} s), counted as not"
        " passed: if the task needs longer, raise the case's `timeout_s` (or `--timeout`);"
        " otherwise `transcript.md` shows the agent's last call before it was stopped"
    )


def pick_fixes(skill: list[Fix], eval_: list[Fix], limit: int) -> tuple[list[Fix], list[Fix]]:
    """At most `limit` fixes in all, each side keeping a place when it has any."""
    chosen_skill = skill[: max(limit - min(1, len(eval_)), 0)]
    chosen_eval = eval_[: limit - len(chosen_skill)]
    chosen_skill = skill[: limit - len(chosen_eval)]
    return chosen_skill, chosen_eval


def render_fixes(
    results: list[CaseResult], source_workspace: Path | None, limit: int, no_skill: bool = False
) -> list[str]:
    """`no_skill`: the run gave the agent no skill (an evaluation's baseline), so its failures
    are what the skill is measured against, not the skill's to fix."""
    named = [] if no_skill else skill_fixes(results, source_workspace)
    skill, eval_ = pick_fixes(named, eval_fixes(results, source_workspace), limit)
    baseline = no_skill and bool(skill_fixes(results, source_workspace))
    if not skill and not eval_ and not baseline:
        return ["None."]
    lines = []
    if baseline:
        lines += [
            "### Fix the skill",
            "",
            "None from this run: it gave the agent no skill (an evaluation's no-skill"
            " baseline), so its failures are what the skill is measured against.",
            "",
        ]
    if skill:
        lines += ["### Fix the skill", ""]
        lines += [f"1. `{f.path}`: {f.why}." for f in skill]
        lines.append("")
    if eval_:
        lines += ["### Fix the eval", ""]
        lines += [f"1. `{f.path}`: {f.why}." for f in eval_]
        lines.append("")
    return lines
