"""`agentic-eval explain`: how each assertion entry will be decided, without running anything."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import click

from evaluator.cli.options import (
    emit_json,
    evals_options,
    evals_repo,
    json_option,
    judge_option,
    lenient_option,
    repo_options,
)
from evaluator.errors import EXIT_OK
from evaluator.vocabulary import JudgeMode, Route

if TYPE_CHECKING:
    from evaluator.judge.chain import EntryPlan
    from evaluator.judge.parts import EntryParts
    from evaluator.repo import LoadedCase

ROUTES: tuple[Route, ...] = (
    "checks",
    "rules",
    "rules-or-model",
    "rules-or-unclear",
    "model",
    "unclear-rule",
)
# When a compiled sentence fails its entry alone, by the entry's polarity and the sentence's role.
FAILS_WHEN = {
    ("required", "pass_criteria"): "does not hold",
    ("required", "fail_signals"): "is seen",
    ("forbidden", "pass_criteria"): "is observed",
    ("forbidden", "fail_signals"): "is observed",
}


def _plan_json(plan: EntryPlan) -> dict[str, object]:
    from evaluator.judge.criteria import check_text

    entry = plan.pending.entry
    return {
        "entry_id": plan.pending.entry_id,
        "polarity": plan.pending.polarity,
        "description": entry.description,
        "decided_by": plan.decided_by,
        "checks": [check_text(c) for c in entry.checks],
        "provenance": [p.model_dump(mode="json", exclude_none=True) for p in plan.provenance],
        "model_prompt": plan.grade_text,
        "refused": [
            {"sentence": r.sentence, "role": r.role, "why": r.why, "instead": r.instead}
            for r in plan.refused
        ],
        **({"parts": _parts_json(plan)} if plan.parts is not None else {}),
    }


def _parts_json(plan: EntryPlan) -> list[dict[str, object]]:
    """Each compiled sentence of an entry that does not compile whole: when it fails the entry
    alone (`rules_fail_when`), or why it cannot (`decides_nothing_alone`)."""
    assert plan.parts is not None
    polarity = plan.pending.polarity
    return [
        {
            "sentence": part.provenance.sentence,
            "role": part.provenance.role,
            **(
                {"rules_fail_when": FAILS_WHEN[(polarity, part.provenance.role)]}
                if part.decides
                else {"decides_nothing_alone": part.blocker}
            ),
        }
        for part in plan.parts.parts
    ]


@click.command("explain")
@repo_options
@evals_options
@click.option("--target", "target_id", default=None, help="Target id (default: the repo default).")
@click.option("--case", "cases", multiple=True, help="Case id; repeat for several.")
@click.option(
    "--include-deferred",
    is_flag=True,
    help="Also explain the deferred cases (otherwise they are only listed).",
)
@judge_option
@click.option(
    "--judge-model",
    default=None,
    help="Explain as a run with this judge model would decide (nothing is called).",
)
@lenient_option
@json_option
def command(
    repo: Path,
    source_workspace: Path | None,
    evals: Path | None,
    skill: Path | None,
    target_id: str | None,
    cases: tuple[str, ...],
    include_deferred: bool,
    judge_mode: JudgeMode,
    judge_model: str | None,
    lenient: bool,
    as_json: bool,
) -> int:
    """Show how every assertion entry will be decided (checks, compiled rules, model judge)."""
    # the stages are imported when the command runs, not for its --help
    from evaluator.adapters import agent_names
    from evaluator.judge.chain import plan_entries
    from evaluator.judge.skill_vocabulary import skill_vocabulary
    from evaluator.plan import open_repo, select_cases

    if judge_mode == "model" and judge_model is None:
        raise click.UsageError("--judge model needs --judge-model: which model would judge?")
    with_model = judge_model is not None and judge_mode != "rules"
    repo, source_workspace = evals_repo(repo, source_workspace, evals, skill)
    loaded = open_repo(
        repo, source_workspace, target=target_id, lenient=lenient, default_target_only=True
    )
    selection = select_cases(loaded, target_id, (), cases, include_deferred=include_deferred)
    vocabulary = skill_vocabulary(
        selection.target.entry_skill_path(loaded.source_workspace), agent_names()
    )
    planned = [(case, plan_entries(case.case, with_model, vocabulary)) for case in selection.cases]
    chosen = {case.case_id for case in selection.cases}
    deferred = [c.case_id for c in selection.target.deferred_cases() if c.case_id not in chosen]
    counts = {route: 0 for route in ROUTES}
    for _case, plans in planned:
        for plan in plans:
            counts[plan.decided_by] += 1
    total = sum(counts.values())
    coverage = counts["rules"] / total if total else None
    companions = selection.target.target.companion_folders()
    if as_json:
        emit_json(
            {
                "target": selection.target.target_id,
                "companion_skills": companions,
                "cases": [
                    {
                        "case_id": case.case_id,
                        "needs": case.needs.stated(),
                        "env_vars_missing": _missing_variables(case),
                        # What the text shows beside the entries, each a line of its own there.
                        "setup_free_form": dict(
                            sorted((case.case.setup.model_extra or {}).items())
                        ),
                        "intent": case.case.expected_output,
                        "verification": list(case.case.verification),
                        "entries": [_plan_json(p) for p in plans],
                    }
                    for case, plans in planned
                ],
                "deferred_not_explained": deferred,
                "counts": counts,
                "total": total,
                "rules_coverage": coverage,
                "decided_without_model": counts["checks"] + counts["rules"],
                "rules_can_fail": counts["rules-or-model"] + counts["rules-or-unclear"],
            },
            EXIT_OK,
        )
        return EXIT_OK
    if companions:
        click.echo(
            f"companion skills: {', '.join(companions)} (copied into every attempt's workspace"
            " and installed beside the skill where the agent finds skills; their files are"
            " the attempt's, never scored)"
        )
    for case, plans in planned:
        click.echo(f"{case.case_id}")
        if case.needs.stated():
            click.echo(
                f"  needs: {', '.join(case.needs.stated())} (looked up in the agent's jail"
                " before it starts: a missing one is blocked (environment), no agent run)"
            )
        missing = _missing_variables(case)
        if missing:
            click.echo(
                f"  environment: {', '.join(missing)} not set here (setup.env_vars_required):"
                " a run from here does not start the agent, and the case is blocked"
                " (environment); set it where agentic-eval runs"
            )
        for key in sorted(case.case.setup.model_extra or {}):
            click.echo(
                f"  environment: setup.{key} is a free-form fact this evaluator cannot reproduce:"
                " a run does not start the agent, and the case is blocked (environment)"
            )
        if case.case.expected_output:
            click.echo(f"  intent (model judge only): {case.case.expected_output}")
        for line in case.case.verification:
            click.echo(f"  verification (model judge only): {line}")
        for plan in plans:
            _echo_plan(plan)
        if not plans:
            # The intent above reads as something a model judge would grade: it never is.
            click.echo(
                "  no assertion entries: nothing to judge, so the case is blocked (unclear-rule)"
                " whatever the agent does, with a judge model too (the intent is only shown to"
                " it beside an entry); add expectations or assertions"
            )
        click.echo("")
    if deferred:
        click.echo(f"deferred, not explained (--include-deferred): {', '.join(deferred)}")
    exact = counts["checks"] + counts["rules"]
    can_fail = counts["rules-or-model"] + counts["rules-or-unclear"]
    otherwise = "the model judge" if with_model else "unclear without a judge model"
    click.echo(
        f"{total} entries decided by: structured checks {counts['checks']},"
        f" compiled rules {counts['rules']}, model judge {counts['model']},"
        f" unclear (no rule, no judge model) {counts['unclear-rule']};"
        f" {exact} of {total} without a model"
        + (
            f"; rules can fail {can_fail} more without a model (otherwise {otherwise})"
            if can_fail
            else ""
        )
    )
    return EXIT_OK


def _missing_variables(case: LoadedCase) -> list[str]:
    """The case's required variables this environment lacks: each attempt passes them from here,
    so a run from here would record a setup mismatch (`workspace/builder.py`) and not start the
    agent (`pipeline/attempt.py`)."""
    required = case.case.setup.env_vars_required or []
    return [name for name in required if not os.environ.get(name)]


def _echo_plan(plan: EntryPlan) -> None:
    from evaluator.judge.criteria import check_yaml

    pending = plan.pending
    click.echo(f"  {pending.entry_id} {plan.decided_by}: {pending.entry.description}")
    if plan.decided_by == "checks":
        for check in pending.entry.checks:
            click.echo(f"      check {check_yaml(check)}")
    parts = plan.parts.parts if plan.parts is not None else []
    for index, provenance in enumerate(plan.provenance):
        compiled = "; ".join(check_yaml(c) for c in provenance.checks) or (
            "no check of its own: it holds only when that criterion fails"
        )
        click.echo(f"      {provenance.role}: {provenance.sentence}")
        click.echo(f"        rule {provenance.rule} -> {compiled}")
        for literal in _command_literals(provenance.checks):
            click.echo(
                f"        command `{literal}`: also with its program's options before the"
                " subcommand, its short flags in any cluster or order, its options under their"
                " other names and a quoted word in any quoting"
            )
        if provenance.tree:
            click.echo(f"        parse: {provenance.tree}")
        if index < len(parts):
            click.echo(f"        {_part_line(plan, index)}")
    description = pending.entry.description
    for refusal in plan.refused:
        # The entry's own sentence is on the line above: say which it is, not the text again.
        sentence = "the entry itself" if refusal.sentence == description else refusal.sentence
        click.echo(f"      {refusal.role} (does not compile): {sentence}")
        click.echo(f"        {refusal.why}")
        if refusal.instead:
            click.echo(f"        exact instead: checks: [{refusal.instead}]")
    if plan.grade_text is not None:
        why = {
            "model": "model judge",
            "rules-or-model": "otherwise the model judge",
            "rules-or-unclear": "otherwise it needs a judge model",
        }.get(plan.decided_by, "needs a judge model")
        if plan.grade_text.strip() == (description or "").strip():
            click.echo(f"      {why}: the entry itself")
        else:
            for line in plan.grade_text.splitlines():
                click.echo(f"      {why}: {line}")


def _part_line(plan: EntryPlan, index: int) -> str:
    parts: EntryParts | None = plan.parts
    assert parts is not None
    part = parts.parts[index]
    if not part.decides:
        return f"decides nothing alone: {part.blocker}"
    when = FAILS_WHEN[(plan.pending.polarity, part.provenance.role)]
    return f"rules fail the entry when this {when}, whatever the other sentences mean"


def _command_literals(checks: object) -> list[str]:
    """The command literals behind the `command_ran` patterns among `checks` (their patterns
    are long: this says what they stand for, docs/criteria.md "Command literals")."""
    from evaluator.contract.models import CommandRanCheck
    from evaluator.judge.command_pattern import command_literal

    found: list[str] = []
    pending = list(checks) if isinstance(checks, list) else [checks]
    while pending:
        check = pending.pop(0)
        if isinstance(check, CommandRanCheck):
            literal = command_literal(check.pattern)
            if literal is not None and literal not in found and _literal_widened(literal):
                found.append(literal)
        for attribute in ("operand", "operands"):
            inner = getattr(check, attribute, None)
            if inner is not None:
                pending.extend(inner if isinstance(inner, list) else [inner])
    return found


def _literal_widened(literal: str) -> bool:
    """Whether a literal's pattern matches more than its own text (options, flag orders)."""
    import re

    from evaluator.judge.command_pattern import command_pattern

    return command_pattern(literal) != rf"(?:^|[^\w-]){re.escape(literal)}(?:$|[^\w-])"
