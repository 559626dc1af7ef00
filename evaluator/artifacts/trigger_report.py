"""The trigger section of `report.md`: the confusion table and the prompts that missed or misfired, read
from a trigger run's `triggers.json` (so `agentic-eval report` rewrites it the same way)."""

from __future__ import annotations

from typing import Any

TRIGGERS_FILE = "triggers.json"


def _ratio(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def _interval(score: dict[str, Any], name: str) -> str:
    low, high = (score.get("intervals") or {}).get(name) or (None, None)
    if low is None or high is None:
        return ""
    return f" [{low:.2f}, {high:.2f}]"


def _cell(text: str) -> str:
    flat = " ".join(text.split())
    flat = flat if len(flat) <= 80 else flat[:77] + "..."
    return flat.replace("|", "\\|")


def prompt_verdict(prompt: dict[str, Any]) -> str:
    """What happened to one prompt of `triggers.json`: `missed` (it should fire and did not),
    `misfired` (it should not fire and did), `undecided` (no valid attempt) or `ok`. The one
    flag `misfires` covers both wrong outcomes; a reader needs to know which."""
    if prompt.get("misfires"):
        return "missed" if prompt.get("expect") else "misfired"
    return "undecided" if prompt.get("triggered") is None else "ok"


def trigger_headline(data: dict[str, Any]) -> str:
    """A trigger run's summary line: how many prompts fired as expected and the scores over
    prompts. A case run's "verified pass rate" (the mean per-prompt share of attempts that
    fired as expected) is no trigger metric: `score --metric trigger-f1` hides it too."""
    prompts = data.get("prompts") or []
    right = sum(1 for p in prompts if p.get("triggered") == p.get("expect") and p.get("attempts"))
    over = data.get("over_prompts") or {}
    suspect = data.get("suspect")
    flag = f"; SUSPECT ({suspect['kind']})" if suspect else ""
    return (
        f"{right} of {len(prompts)} prompts fired as expected (precision"
        f" {_ratio(over.get('precision'))}, recall {_ratio(over.get('recall'))}, F1"
        f" {_ratio(over.get('f1'))} over prompts){flag}"
    )


def render_trigger_section(data: dict[str, Any]) -> str:
    skill = data.get("skill", "?")
    lines = [f"## Triggers: {skill}", ""]
    lines.append(
        f"{len(data.get('prompts', []))} prompts, K = {data.get('attempts')} attempts each"
        f" ({'trigger-only: an attempt still running when the skill fires is stopped there' if data.get('trigger_only') else 'full attempts'});"
        f" distractor skills: {', '.join(data.get('distractors') or []) or 'none'}."
    )
    lines.append("")
    suspect = data.get("suspect")
    if suspect:
        lines.append(f"**Suspect run ({suspect['kind']})**: the likely causes checked:")
        lines += [f"- {cause}" for cause in suspect["causes"]]
        lines.append("")
    prompts = data.get("over_prompts", {})
    counts = prompts.get("counts", {})
    lines += [
        "Confusion over prompts (a prompt fires when the majority of its valid attempts did):",
        "",
        "| | fired | did not fire |",
        "|---|---|---|",
        f"| should fire | {counts.get('tp', 0)} | {counts.get('fn', 0)} |",
        f"| should not fire | {counts.get('fp', 0)} | {counts.get('tn', 0)} |",
        "",
        "| counted over | precision | recall | F1 |",
        "|---|---|---|---|",
    ]
    for label, key in (("prompts", "over_prompts"), ("attempts", "over_attempts")):
        score = data.get(key, {})
        lines.append(
            f"| {label} | {_ratio(score.get('precision'))}{_interval(score, 'precision')}"
            f" | {_ratio(score.get('recall'))}{_interval(score, 'recall')}"
            f" | {_ratio(score.get('f1'))}{_interval(score, 'f1')} |"
        )
    lines.append("")
    lines.append(
        "Intervals: 95% Wilson score on the counts (F1 through tp / (tp + fp + fn)); over"
        " attempts also no narrower than a bootstrap over prompts."
    )
    if data.get("invalid_attempts"):
        lines.append(f"Invalid attempts (not counted): {data['invalid_attempts']}.")
    time = data.get("agent_time")
    if time and time.get("attempts"):
        lines.append(
            f"Agent time: {time['total_s']:.1f} s over {time['attempts']} attempts,"
            f" {time['stopped_at_decision']} stopped at the decision."
        )
    lines.append("")
    misfires = [p for p in data.get("prompts", []) if p.get("misfires")]
    undecided = [p for p in data.get("prompts", []) if p.get("triggered") is None]
    lines.append("### Prompts that missed or misfired")
    lines.append("")
    if not misfires:
        lines.append("None: every decided prompt fired as expected.")
    else:
        lines += [
            "| prompt | expected | fired | verdict | other skills that fired | text |",
            "|---|---|---|---|---|---|",
        ]
        for p in misfires:
            others = ", ".join(f"{k} ({v})" for k, v in (p.get("others") or {}).items()) or "-"
            lines.append(
                f"| {p['id']} | {'fire' if p['expect'] else 'no fire'} |"
                f" {p['fired']} of {p['attempts']} | {prompt_verdict(p)} | {others}"
                f" | {_cell(p.get('prompt', ''))} |"
            )
    if undecided:
        lines.append("")
        lines.append("Undecided (no valid attempt): " + ", ".join(p["id"] for p in undecided) + ".")
    stolen = [p for p in data.get("prompts", []) if p.get("others")]
    if stolen:
        lines += ["", "### Other skills that fired", ""]
        lines += [
            f"- {p['id']}: "
            + ", ".join(f"{k} in {v} of {p['attempts']}" for k, v in p["others"].items())
            for p in stolen
        ]
    return "\n".join(lines) + "\n"


def _ids(prompts: list[dict[str, Any]]) -> str:
    return ", ".join(f"`{p['id']}`" for p in prompts)


def trigger_fixes(data: dict[str, Any], skill_path: str, candidate: str | None = None) -> list[str]:
    """A trigger run's "Suggested Next Fixes": what its prompts say about the skill's
    `description` (the only text an agent reads before it decides to load the skill), and
    which prompts the run could not decide. A case run's fixes read failed assertions, which a
    trigger run has none of, so they would say "None." over a run whose prompts missed.
    `candidate`: the run-dir file holding the `--skill` text the run measured in place of the
    skill's own, which is then the description to edit, not `skill_path`."""
    prompts = data.get("prompts") or []
    missed = [p for p in prompts if p.get("misfires") and p.get("expect")]
    misfired = [p for p in prompts if p.get("misfires") and not p.get("expect")]
    taken = [p for p in missed if p.get("others")]
    undecided = [p for p in prompts if p.get("triggered") is None]
    skill: list[str] = []
    where = f"`{skill_path}`, the `description` in its front matter"
    if candidate:
        where = (
            f"the candidate SKILL.md given with `--skill` (this run's `{candidate}`),"
            " the `description` in its front matter"
        )
    if missed:
        skill.append(
            f"1. {where}: the agent did not load the skill on {len(missed)} prompt(s) it should"
            f" ({_ids(missed)}); say in the description what these prompts ask for."
        )
    if taken:
        others = sorted({name for p in taken for name in p["others"]})
        skill.append(
            f"1. {where}: another skill ({', '.join(f'`{o}`' for o in others)}) was loaded"
            f" instead on {_ids(taken)}; make the descriptions say apart when each applies."
        )
    if misfired:
        skill.append(
            f"1. {where}: the agent loaded the skill on {len(misfired)} prompt(s) it should"
            f" not ({_ids(misfired)}); narrow the description, or say when not to use it."
        )
    lines: list[str] = []
    if skill:
        lines += ["### Fix the skill", "", *skill, ""]
    if undecided:
        lines += [
            "### Fix the run",
            "",
            f"1. {len(undecided)} prompt(s) had no valid attempt ({_ids(undecided)}), so they"
            " count nowhere: see Failures for why, then run them again.",
            "",
        ]
    return lines or ["None: every prompt fired as expected."]
