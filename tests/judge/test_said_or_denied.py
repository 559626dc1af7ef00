"""Said or denied (docs/criteria.md): prose claiming a statement ("The final answer says `X`",
"the agent states that `X`") is not met by an answer that holds `X` only where it denies,
doubts or asks about it ("I could not confirm `X`"): the entry is left to judgement (the model
judge, else `unclear-rule`). "Mentions `X`" keeps its meaning: the text's presence. Judged on
sessions the real agent CLIs recorded, through the scripted server, default layers."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from evaluator.contract.models import AgentSaidCheck, FinalAnswerContainsCheck
from evaluator.judge.criteria import compile_sentence
from evaluator.judge.denial import affirmed_somewhere, occurrences
from evaluator.pipeline.run import RunOutcome
from tests.support import (
    ScriptedCase,
    agent_params,
    scripted_outcome,
    write_file,
    write_scripted_suite,
)


def _affirmed(answer: str, text: str) -> bool:
    spans = occurrences(answer.casefold(), text.casefold())
    assert spans, (answer, text)
    return affirmed_somewhere(answer, spans)


@pytest.mark.parametrize(
    "answer",
    [
        "Done: `migration applied` was printed by the script.",
        "The script printed `migration applied`.",
        "No errors: `3 passed`.",
        "I did not change any code; the tests say `3 passed`.",
        "- tests: `3 passed`\n- lint: not run",
        "`3 passed` (the run printed `0 not run` as well).",
        "The output reads `migration applied` (see report.md).",
        "Output: migration applied. It was not slow.",
        "Python 3.11 printed `ok` (it is not the system one, but works).\nResult: `ok`",
    ],
)
def test_an_answer_saying_the_text_affirms_it(answer: str) -> None:
    text = "3 passed" if "3 passed" in answer else "migration applied"
    text = "ok" if "`ok`" in answer else text
    assert _affirmed(answer, text)


@pytest.mark.parametrize(
    "answer",
    [
        "I could not confirm `migration applied`.",
        "I cannot confirm `migration applied`: the script exited 1.",
        "`migration applied` was never printed.",
        "The script did not print `migration applied`.",
        "The script didn’t print `migration applied`.",
        "It failed to reach `migration applied`.",
        "Did it print `migration applied`?",
        "If the script prints `migration applied`, the migration worked.",
        "Neither `migration applied` nor an error appeared.",
        "I was unable to see `migration applied` in the output.",
        "It is no longer `migration applied`.",
    ],
)
def test_an_answer_denying_doubting_or_asking_does_not_affirm(answer: str) -> None:
    assert not _affirmed(answer, "migration applied")


@pytest.mark.parametrize(
    ("answer", "affirmed"),
    [
        # Said after a contrastive conjunction: one clause with the negation before round 21.
        ("I did not expect it, but `3 passed`.", True),
        ("Although I did not expect it, `3 passed`.", True),
        ("`3 passed`, although I did not expect it.", True),
        ("Nothing failed; however `3 passed` only after a retry.", True),
        ("It printed not `2 failed` but `3 passed`.", True),
        ("Lint was not run, whereas the tests printed `3 passed`.", True),
        # Denied after one, or before one: the conjunction gives no pass to its own clause.
        ("The tests ran, but I could not confirm `3 passed`.", False),
        ("It printed not `3 passed` but an error.", False),
        ("Although the script ran, it did not print `3 passed`.", False),
        ("`3 passed` was not printed, though the script exited 0.", False),
        ("But did it print `3 passed`?", False),
        # `yet` is no boundary: "not yet" keeps its negation.
        ("I have not yet seen `3 passed`.", False),
    ],
)
def test_a_contrastive_conjunction_ends_a_clause(answer: str, affirmed: bool) -> None:
    assert _affirmed(answer, "3 passed") is affirmed


def test_the_text_looked_for_may_hold_a_negation_of_its_own() -> None:
    assert _affirmed("The check printed `not found: 0`.", "not found: 0")


@pytest.mark.parametrize(
    ("sentence", "affirmed"),
    [
        ("The final answer says `migration applied`.", True),
        ("The response reports `3 passed`.", True),
        ("The agent states that `3 passed`.", True),
        ("The final answer mentions `migration applied`.", False),
        ("The answer includes `foo`.", False),
        ("The agent mentions `--dry-run`.", False),
    ],
)
def test_claim_verbs_compile_affirmed_and_mention_verbs_do_not(
    sentence: str, affirmed: bool
) -> None:
    compiled = compile_sentence(sentence)
    assert compiled is not None
    assert isinstance(compiled.check, FinalAnswerContainsCheck | AgentSaidCheck)
    assert compiled.check.affirmed is affirmed


SKILL = ".agents/skills/migrate"
DENIED = "I could not confirm `migration applied`: the script exited 1."
SAID = "Done: the script printed `migration applied`."
# case: (final answer, polarity, sentence)
CASES = {
    "says-denied": (DENIED, "required", "The final answer says `migration applied`."),
    "says-said": (SAID, "required", "The final answer says `migration applied`."),
    "mentions-denied": (DENIED, "required", "The final answer mentions `migration applied`."),
    "states-denied": (DENIED, "required", "The agent states that `migration applied`."),
    "forbidden-denied": (
        "I cannot say `all tests pass`: 2 failed.",
        "forbidden",
        "The final answer says `all tests pass`.",
    ),
    # Round 21: a contrastive conjunction ends the clause (blocked before), and "not X but Y"
    # still denies X.
    "says-but": (
        "I did not expect it, but the script printed `migration applied`.",
        "required",
        "The final answer says `migration applied`.",
    ),
    "says-not-but": (
        "It printed not `migration applied` but an error.",
        "required",
        "The final answer says `migration applied`.",
    ),
}


def _eval_repo(root: Path) -> tuple[Path, Path, Path]:
    source, repo, behaviors = root / "source", root / "agentic-evals", root / "behaviors"
    write_file(
        source / SKILL / "SKILL.md",
        "---\nname: migrate\ndescription: Applies database migrations.\n---\n"
        "Run the migration and report what it printed.\n",
    )
    cases: dict[str, ScriptedCase] = {
        case: (
            [{"cmd": "ls"}, {"final": final}],
            {polarity: [{"description": sentence, "pass_criteria": [sentence]}]},
        )
        for case, (final, polarity, sentence) in CASES.items()
    }
    target = ("migrate", "migrate", f"{SKILL}/SKILL.md", [SKILL])
    write_scripted_suite(repo, target, "use", cases, _prompt, behaviors)
    return repo, source, behaviors


def _prompt(case: str) -> str:
    return f"Apply the migration ({case})."


@pytest.fixture(scope="module", params=agent_params("codex", "claude", "gemini"))
def outcome(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RunOutcome]:
    yield from scripted_outcome(request.param, tmp_path_factory, "denied", _eval_repo)


def test_a_denied_statement_is_left_to_judgement_and_a_said_one_passes(
    outcome: RunOutcome,
) -> None:
    statuses = {r.case_id: r.status for r in outcome.results}
    assert statuses == {
        # Before: pass (the literal stood in the answer) and, forbidden, fail.
        "says-denied": "blocked",
        "says-said": "pass",
        "mentions-denied": "pass",
        "states-denied": "blocked",
        "forbidden-denied": "blocked",
        "says-but": "pass",
        "says-not-but": "blocked",
    }
    for case in ("says-denied", "states-denied", "forbidden-denied", "says-not-but"):
        saved = json.loads(outcome.run_dir.case_result_path(case).read_text())
        entry = saved["assertions"][0]
        assert entry["blocked_reason"] == "unclear-rule", entry
        assert "only where it denies, doubts or asks about it" in json.dumps(entry)
