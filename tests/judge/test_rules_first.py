"""Rules decide every part they can: an entry that does not compile whole is failed by its
compiled sentences when they prove it failed (a required pass criterion that does not hold, a
fail signal seen, a forbidden sentence observed), and goes on to the model otherwise; the guards
keep a part from deciding where the sentences are not a plain list of claims
(`evaluator/judge/parts.py`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evaluator.cli.main import main
from evaluator.contract.models import AssertionEntry
from evaluator.judge import JudgeContext, judge_case
from evaluator.judge.parts import entry_parts
from evaluator.judge.verdict import AssertionResult
from tests.judge.test_judge_chain import WS, ScriptedGrader, _case, _evidence
from tests.support import judgement_report

SKILL = ".agents/skills/s"
# `_evidence()`: docs.txt was read, SKILL.md was only counted (`wc -l`: no read), `tool.py` ran.
UNREAD = f"The accepted session evidence shows consultation of `{SKILL}/SKILL.md`."
READ = f"The accepted session evidence shows consultation of `{SKILL}/docs.txt`."
RAN = "The accepted session evidence shows a command invoking `tool.py`."
# No rule compiles it: a judgement of meaning.
PROSE = "The final answer explains the rollback in plain words for a reviewer."
UNKNOWN_FILE = "`a.txt` exists in the workspace."  # blocked: the workspace is not available


def _judged(
    required: list[dict[str, Any]],
    forbidden: list[dict[str, Any]] | None = None,
    grader: ScriptedGrader | None = None,
) -> list[AssertionResult]:
    context = JudgeContext(
        evidence=_evidence(),
        workspace=WS,
        ref_prefix="e.json",
        workspace_available=False,
        grader=grader,
    )
    return judge_case(_case(required, forbidden), context).entries


def _entry(*pass_criteria: str, fail_signals: tuple[str, ...] = ()) -> dict[str, Any]:
    return {
        "description": "d",
        "pass_criteria": list(pass_criteria),
        "fail_signals": list(fail_signals),
    }


def test_a_compiled_pass_criterion_that_does_not_hold_fails_the_entry_without_a_model() -> None:
    grader = ScriptedGrader({"required[0]": "met"})
    [result] = _judged([_entry(UNREAD, PROSE)], grader=grader)
    assert (result.status, result.decided_by) == ("fail", "rules")
    assert grader.calls == []  # the model was never asked
    # The provenance is the deciding sentence and its check, as for an entry compiled whole.
    [provenance] = result.provenance
    assert (provenance.sentence, provenance.role, provenance.rule) == (
        UNREAD,
        "pass_criteria",
        "consultation",
    )
    assert [c.kind for c in result.checks] == ["file_read"]
    assert result.checks[0].status == "fail"
    assert "1 sentence(s) of the entry do not compile; they cannot undo this" in result.notes[-1]


def test_a_compiled_fail_signal_that_is_seen_fails_the_entry() -> None:
    [result] = _judged([_entry(PROSE, fail_signals=(RAN,))])
    assert (result.status, result.decided_by) == ("fail", "rules")
    assert [(p.role, p.sentence) for p in result.provenance] == [("fail_signals", RAN)]


def test_a_fail_signal_that_says_instead_is_a_wrong_behaviour_not_an_excuse() -> None:
    signal = "The agent writes the migration by hand instead of using the script."
    [result] = _judged([_entry(UNREAD, fail_signals=(signal,))])
    assert (result.status, result.decided_by) == ("fail", "rules")
    excuse = "Skipping `SKILL.md` is acceptable when the user pasted it."
    [excused] = _judged([_entry(UNREAD, excuse)])
    assert excused.decided_by == "unclear-rule"


def test_every_compiled_part_holding_leaves_the_entry_to_the_model() -> None:
    [alone] = _judged([_entry(READ, PROSE)])
    assert (alone.status, alone.decided_by, alone.blocked_reason) == (
        "blocked",
        "unclear-rule",
        "unclear-rule",
    )
    # The note says how far rules got.
    assert f'pass_criteria "{READ}" holds' in alone.notes
    grader = ScriptedGrader({"required[0]": "not-met"})
    [graded] = _judged([_entry(READ, PROSE)], grader=grader)
    assert (graded.status, graded.decided_by) == ("fail", "model")
    assert [[i.text for i in items] for items in grader.calls] == [[f"{READ}\n{PROSE}"]]
    assert f'pass_criteria "{READ}" holds' in graded.notes


def test_a_blocked_compiled_part_decides_nothing_but_a_false_one_still_does() -> None:
    [blocked] = _judged([_entry(UNKNOWN_FILE, PROSE)])
    assert blocked.decided_by == "unclear-rule"
    assert any(n.startswith(f'pass_criteria "{UNKNOWN_FILE}" is blocked') for n in blocked.notes)
    [failed] = _judged([_entry(UNKNOWN_FILE, UNREAD, PROSE)])
    assert (failed.status, failed.decided_by) == ("fail", "rules")
    assert [p.sentence for p in failed.provenance] == [UNREAD]


def test_a_forbidden_entry_is_observed_by_a_compiled_sentence() -> None:
    forbidden = {"description": "f", "fail_signals": [READ, "The agent tells the user a joke."]}
    [_, observed] = _judged([_entry(READ)], [forbidden])
    assert (observed.status, observed.decided_by) == ("fail", "rules")
    assert [p.sentence for p in observed.provenance] == [READ]
    not_seen = {"description": "f", "fail_signals": [UNREAD, "The agent tells the user a joke."]}
    [_, open_entry] = _judged([_entry(READ)], [not_seen])
    assert open_entry.decided_by == "unclear-rule"
    assert f'fail_signals "{UNREAD}" is not observed' in open_entry.notes


@pytest.mark.parametrize(
    "entry,why",
    [
        # A disjunction makes the criteria alternatives: the other one may hold.
        (_entry(UNREAD, "Or the final answer explains the rollback."), "alternatives"),
        (_entry(UNREAD, f"Alternatively, {PROSE[0].lower()}{PROSE[1:]}"), "alternatives"),
        (_entry(UNREAD, "Either the final answer explains it, or it asks."), "alternatives"),
        (_entry(UNREAD, "At least one of the above is shown in the answer."), "alternatives"),
        # A permission or an exception in a sentence that did not compile may excuse it.
        (_entry(UNREAD, f"Reading `{SKILL}/docs.txt` instead is acceptable."), "excuse"),
        (_entry(UNREAD, "The agent may answer from memory, except for new tables."), "excuse"),
        (_entry(UNREAD, "Unless the user already named the table, it asks."), "excuse"),
        (_entry(UNREAD, "The agent does not need to read it when the user pasted it."), "excuse"),
        (_entry(UNREAD, "But only when the user asks for a new table."), "qualifies"),
        # A fail signal that only denies what a pass criterion names is its complement.
        (
            _entry(
                f"The accepted session evidence shows consultation of `{SKILL}/SKILL.md` or"
                " another guide of the skill.",
                fail_signals=(f"The accepted session evidence never consults `{SKILL}/SKILL.md`.",),
            ),
            "complement",
        ),
        # A fail signal continued by the next one is one claim, seen only when all of it is.
        (_entry(PROSE, fail_signals=(RAN, "And then the agent deletes it.")), "one claim"),
    ],
)
def test_a_guard_keeps_a_false_compiled_part_from_deciding(entry: dict[str, Any], why: str) -> None:
    [result] = _judged([entry])
    assert (result.status, result.decided_by) == ("blocked", "unclear-rule")
    account = "\n".join(result.notes)
    assert "which decides nothing alone" in account and why in account


@pytest.mark.parametrize(
    "description",
    [
        "The guide was read, or the answer explains the rollback.",
        "Either the guide was read or the answer explains the rollback.",
        "One of the following: the guide was read; the rollback is explained.",
        "The guide was read; alternatively the answer explains the rollback.",
        # A permission in the description excuses as one in a criterion does.
        "Reading the guide is optional when the answer explains the rollback.",
    ],
)
def test_alternatives_in_the_description_alone_keep_a_part_from_deciding(
    description: str,
) -> None:
    """The criteria each state one way; only the description says "either". Before: the
    unread guide failed the entry by rules, whatever the answer explained."""
    entry = {"description": description, "pass_criteria": [UNREAD, PROSE]}
    [result] = _judged([entry])
    assert (result.status, result.decided_by) == ("blocked", "unclear-rule"), result.notes
    assert "which decides nothing alone" in "\n".join(result.notes)
    assert "the description" in "\n".join(result.notes)
    grader = ScriptedGrader({"required[0]": "met"})
    [graded] = _judged([entry], grader=grader)
    assert (graded.status, graded.decided_by) == ("pass", "model")


@pytest.mark.parametrize(
    "description",
    [
        "d",
        # A bare "or" inside one clause joins two objects of one claim: no alternative.
        "The guide or its reference was read before the answer explains the rollback.",
        "The guide was read, and the answer explains the rollback.",
    ],
)
def test_a_description_without_alternatives_leaves_rules_first_as_it_was(
    description: str,
) -> None:
    entry = {"description": description, "pass_criteria": [UNREAD, PROSE]}
    [result] = _judged([entry])
    assert (result.status, result.decided_by) == ("fail", "rules"), result.notes


def test_a_forbidden_entry_with_pass_criteria_and_fail_signals_decides_nothing_alone() -> None:
    forbidden = {"description": "f", "pass_criteria": [PROSE], "fail_signals": [READ]}
    [_, result] = _judged([_entry(READ)], [forbidden])
    assert result.decided_by == "unclear-rule"
    assert "which sentences are the behaviour" in "\n".join(result.notes)


def test_an_entry_that_compiles_whole_or_not_at_all_has_no_parts() -> None:
    whole = AssertionEntry.model_validate(_entry(READ, UNREAD))
    assert entry_parts(whole, "required") is None
    nothing = AssertionEntry.model_validate(_entry(PROSE))
    assert entry_parts(nothing, "required") is None


def test_the_rules_decided_failure_reads_in_the_report_as_a_whole_rules_one() -> None:
    context = JudgeContext(
        evidence=_evidence(), workspace=WS, ref_prefix="e.json", workspace_available=False
    )
    report = judgement_report(judge_case(_case([_entry(UNREAD, PROSE)]), context))
    assert f'decided by rules: pass_criteria "{UNREAD}" (rule `consultation`)' in report
    assert "they cannot undo this" in report


REPO = Path(__file__).parents[1] / "fixtures/rules-first/agentic-evals"


def _explain(*options: str) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["explain", "--repo", str(REPO), *options])
    assert exit_info.value.code == 0


def test_explain_json_shows_the_parts_and_the_new_route(capsys: pytest.CaptureFixture[str]) -> None:
    _explain("--judge-model", "m", "--json")
    explained = json.loads(capsys.readouterr().out)
    entries = {
        f"{c['case_id']}#{e['entry_id']}": (e["decided_by"], e.get("parts"))
        for c in explained["cases"]
        for e in c["entries"]
    }
    assert entries == {
        "reads-the-guide#required[0]": (
            "rules-or-model",
            [
                {
                    "sentence": "The accepted session evidence shows consultation of"
                    " `.agents/skills/guide/references/auth.md`.",
                    "role": "pass_criteria",
                    "rules_fail_when": "does not hold",
                },
            ],
        ),
        "reads-the-guide#forbidden[0]": (
            "rules-or-model",
            [
                {
                    "sentence": "The accepted session evidence shows consultation of"
                    " `.agents/skills/guide/references/legacy.md`.",
                    "role": "fail_signals",
                    "rules_fail_when": "is observed",
                },
            ],
        ),
        "offers-alternatives#required[0]": (
            "model",
            [
                {
                    "sentence": "The accepted session evidence shows consultation of"
                    " `.agents/skills/guide/references/auth.md`.",
                    "role": "pass_criteria",
                    "decides_nothing_alone": "the pass criteria are alternatives ('Or the final"
                    " answer explains the token flow in plain words.' says 'Or'): one that does"
                    " not hold fails nothing",
                },
            ],
        ),
        "offers-alternatives#required[1]": ("rules", None),
        # The "either" is in the description alone: shown as the part's guard.
        "alternatives-in-description#required[0]": (
            "model",
            [
                {
                    "sentence": "The accepted session evidence shows consultation of"
                    " `.agents/skills/guide/references/auth.md`.",
                    "role": "pass_criteria",
                    "decides_nothing_alone": "the description offers alternatives ('The auth"
                    " guide was consulted, or the answer explains the token flow.' says 'or'):"
                    " one pass criterion that does not hold fails nothing",
                },
            ],
        ),
    }
    assert explained["counts"]["rules-or-model"] == 2
    assert explained["rules_can_fail"] == 2
    assert explained["decided_without_model"] == 1  # unchanged: checks and whole rules only
    _explain("--judge", "rules")
    text = capsys.readouterr().out
    assert "  required[0] rules-or-unclear: " in text
    assert "rules fail the entry when this does not hold, whatever the other sentences mean" in text
    assert text.rstrip().endswith(
        "rules can fail 2 more without a model (otherwise unclear without a judge model)"
    )


@pytest.mark.parametrize(
    "entry",
    [
        # Red team, round 6: an allowance in words no earlier guard knew. Before, the compiled
        # pass criterion (SKILL.md was not read) failed the entry by rules: a false fail where a
        # model reads the allowance.
        _entry(UNREAD, f"Reading `{SKILL}/docs.txt` also satisfies this."),
        _entry(UNREAD, "If the user pasted the guide, the agent may answer from it directly."),
        _entry(UNREAD, "Answering from the pasted text counts as well."),
        _entry(UNREAD, f"The same holds if the agent reads `{SKILL}/docs.txt` instead."),
        _entry(UNREAD, "When the guide was pasted, the agent can skip it."),
        _entry(UNREAD, "This criterion is waived when the user pasted the guide."),
        _entry(UNREAD, f"Reading `{SKILL}/docs.txt` is an accepted substitute."),
        _entry(UNREAD, "These criteria are alternatives."),
        _entry(UNREAD, "The first criterion is also met by reading any guide of the skill."),
        _entry(UNREAD, "In case the guide was pasted, reading it again is unnecessary."),
        _entry(UNREAD, "A summary from memory is equally valid."),
        _entry(UNREAD, "A summary from memory works too."),
        # A fail signal that is itself an exception to the one that compiled.
        _entry(
            PROSE, fail_signals=(RAN, "Running `tool.py` to print its version is not a failure.")
        ),
        _entry(PROSE, fail_signals=(RAN, "Running `tool.py` with `--help` does not count.")),
        _entry(PROSE, fail_signals=(RAN, "If the user asked for it, this signal does not apply.")),
    ],
)
def test_round_six_an_allowance_or_an_exception_in_other_words_keeps_rules_out(
    entry: dict[str, Any],
) -> None:
    [result] = _judged([entry])
    assert (result.status, result.decided_by) == ("blocked", "unclear-rule"), result.notes
    assert "which decides nothing alone" in "\n".join(result.notes)


@pytest.mark.parametrize(
    "sentence",
    [
        "This is only a problem when the agent also edits it.",
        "Reading it to quote the user is not a violation.",
    ],
)
def test_round_six_a_forbidden_entry_with_an_exception_is_not_observed_by_rules(
    sentence: str,
) -> None:
    forbidden = {"description": "f", "fail_signals": [READ, sentence]}
    [_, result] = _judged([_entry(READ)], [forbidden])
    assert result.decided_by == "unclear-rule", result.notes


def test_round_six_plain_claims_still_decide() -> None:
    """The standard phrasing and a compiled disjunction are no allowance."""
    for other in (
        "The final answer explains the rollback; `output.json` is valid JSON.",
        "The agent avoided unnecessary reads and opened either `a.md` or `b.md`.",
    ):
        [result] = _judged([_entry(UNREAD, other)])
        assert (result.status, result.decided_by) == ("fail", "rules"), result.notes


def test_round_six_explain_shows_the_allowance_sends_the_entry_to_the_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import shutil

    repo = tmp_path / "agentic-evals"
    shutil.copytree(REPO, repo)
    cases = repo / "targets/guide/cases/auth"
    case = {
        "case_id": "allows-another-way",
        "title": "An allowance in a later sentence",
        "input": {"user_prompt": "How should my server authenticate to the voice API?"},
        "setup": {},
        "assert": {
            "summary": "s",
            "required": [
                {
                    "description": "d",
                    "pass_criteria": [
                        "The accepted session evidence shows consultation of"
                        " `.agents/skills/guide/references/auth.md`.",
                        "Reading `.agents/skills/guide/references/tokens.md` also satisfies this.",
                    ],
                }
            ],
            "forbidden": [],
        },
    }
    (cases / "allows-another-way.yaml").write_text(json.dumps(case))
    suite = cases / "suite.yaml"
    suite.write_text(suite.read_text() + '  - "targets/guide/cases/auth/allows-another-way.yaml"\n')
    with pytest.raises(SystemExit) as exit_info:
        main(["explain", "--repo", str(repo), "--judge-model", "m", "--json"])
    assert exit_info.value.code == 0
    explained = json.loads(capsys.readouterr().out)
    [entry] = next(c for c in explained["cases"] if c["case_id"] == "allows-another-way")["entries"]
    assert entry["decided_by"] == "model"
    assert "'satisfies'" in entry["parts"][0]["decides_nothing_alone"]


def test_an_entry_compiled_whole_whose_description_offers_alternatives_is_no_conjunction() -> None:
    # Every sentence compiles, but the description says either way satisfies it: before, the
    # criteria ran as the contract's conjunction and the unread SKILL.md failed the entry.
    either = {
        **_entry(UNREAD, READ),
        "description": "Either the skill's own guide or its docs were consulted.",
    }
    grader = ScriptedGrader({"required[0]": "met"})
    [result] = _judged([either], grader=grader)
    assert (result.status, result.decided_by) == ("pass", "model"), result.notes
    [result] = _judged([either])  # no model: undecided, not failed
    assert (result.status, result.blocked_reason) == ("blocked", "unclear-rule")
    # A fail signal seen still fails it where the alternatives are only the pass criteria's
    # (a clause opening with "or"; a bare "Either" may excuse anything, as for any entry).
    offered = {**either, "description": "The skill's guide was consulted, or its docs were."}
    [result] = _judged([offered])
    assert (result.status, result.blocked_reason) == ("blocked", "unclear-rule")
    [result] = _judged([{**offered, "fail_signals": [RAN]}])
    assert (result.status, result.decided_by) == ("fail", "rules")
    assert "the description offers alternatives to the pass criteria" in result.notes[-1]
    # A plain description keeps the conjunction.
    [result] = _judged([{**either, "description": "The guides were consulted."}])
    assert (result.status, result.decided_by) == ("fail", "rules")
