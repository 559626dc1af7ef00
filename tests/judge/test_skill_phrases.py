"""A skill's own words for its commands (issue 23): "rather than" the complement of a documented
flag, and verb phrases a skill defines by a flag ("Omit `--folder` to search all folders"). The
sentences themselves are measured in `tests/fixtures/criteria-heldout.json` (set `skill`); here,
what the checks they compile to decide on constructed sessions, and the vocabulary they need."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluator.contract.models import Case
from evaluator.evidence import SessionEvidence
from evaluator.judge import JudgeContext, judge_case
from evaluator.judge.criteria import compile_sentence, refuse_sentence
from evaluator.judge.skill_vocabulary import SkillVocabulary, read_vocabulary, skill_vocabulary
from tests.conftest import ROOT
from tests.judge.test_judge_chain import ScriptedGrader

MAILBOX = ROOT / "tests/fixtures/skills/mailbox"
TWICE = ROOT / "tests/fixtures/skills/mailbox-twice"
SCRIPT = ".agents/skills/mailbox/scripts/mail.py"
WINDOWED = "The skill used a date-windowed threads query (--since) rather than all-time counts."
ALL_FOLDERS = "The skill searched across all folders, not just one."


@pytest.fixture(scope="module")
def mailbox() -> SkillVocabulary:
    vocabulary = skill_vocabulary(MAILBOX)
    assert vocabulary is not None
    return vocabulary


def _evidence(*commands: str) -> SessionEvidence:
    """A complete session running the skill's script with each command line."""
    ev = SessionEvidence(session_path="s.jsonl", complete=True, final_answer="done")
    for n, command in enumerate(commands, start=1):
        ev.add("command_observed", n, command=command, exit_code=0, call_id=f"c{n}")
        ev.add("file_read_observed", n, path=f"/ws/{SCRIPT}", access="exec", call_id=f"c{n}")
    ev.add("final_answer", len(commands) + 1, text="done")
    return ev


def _judged(
    sentence: str,
    evidence: SessionEvidence,
    vocabulary: SkillVocabulary,
    grader: ScriptedGrader | None = None,
) -> tuple[str | None, str]:
    case = Case.model_validate(
        {
            "case_id": "c",
            "title": "t",
            "input": {"user_prompt": "p"},
            "assert": {"required": [{"description": sentence}]},
        }
    )
    context = JudgeContext(
        evidence=evidence,
        workspace=Path("/ws"),
        ref_prefix="e.json",
        workspace_available=False,
        skill_vocabulary=vocabulary,
        grader=grader,
    )
    (entry,) = judge_case(case, context).entries
    if entry.decided_by != "rules" and compile_sentence(sentence, vocabulary) is not None:
        # a compiled entry rules left undecided says why, whoever decided it then
        assert any(n.startswith("rules leave it to judgement: ") for n in entry.notes)
    return entry.decided_by, entry.status


def test_the_skill_defines_phrases_by_its_flags_in_its_own_sentences() -> None:
    vocabulary = read_vocabulary((MAILBOX / "SKILL.md").read_text())
    found = {
        " ".join(words): [(d.subcommand, d.flag, d.present) for d in defined]
        for words, defined in vocabulary.phrases.items()
    }
    assert found == {
        "search all folders": [("search", "--folder", False)],  # "Omit `--folder` to ..."
        "include attached files": [("export", "--attachments", True)],  # "Pass ..."
    }
    twice = read_vocabulary((TWICE / "SKILL.md").read_text())
    assert len(twice.phrases[("search", "all", "folders")]) == 2


def test_a_phrase_in_prose_needs_the_one_subcommand_its_flag_is_shown_with() -> None:
    skill = """
```sh
python3 <skill>/scripts/t.py pull --remote <r>
python3 <skill>/scripts/t.py list
```

Omit `--remote` to pull every remote. Use `--loud` to print more words.
"""
    vocabulary = read_vocabulary(skill)
    assert list(vocabulary.phrases) == [("pull", "every", "remote")]  # `--loud` names no command
    (defined,) = vocabulary.phrases[("pull", "every", "remote")]
    assert (defined.subcommand, defined.present) == ("pull", False)


@pytest.mark.parametrize(
    ("commands", "status"),
    [
        ([f"python3 {SCRIPT} threads --since 2026-01-01"], "pass"),
        ([f"python3 {SCRIPT} threads --label work --since=2026-01-01"], "pass"),
        ([], "fail"),  # nothing ran
        ([f"python3 {SCRIPT} threads"], "fail"),  # only all-time counts
        ([f"python3 {SCRIPT} search -q x --since 2026-01-01"], "fail"),  # another subcommand
    ],
)
def test_rather_than_passes_only_runs_with_the_flag(
    mailbox: SkillVocabulary, commands: list[str], status: str
) -> None:
    assert _judged(WINDOWED, _evidence(*commands), mailbox) == ("rules", status)


@pytest.mark.parametrize(
    "unwindowed",
    [
        f"python3 {SCRIPT} threads",
        f"python3 {SCRIPT} threads --label work",
        # an abbreviation `argparse` would take for `--since`: left to judgement, never a pass
        f"python3 {SCRIPT} threads --sin 2026-01-01",
    ],
)
def test_rather_than_leaves_a_session_that_did_both_to_the_model(
    mailbox: SkillVocabulary, unwindowed: str
) -> None:
    both = _evidence(f"python3 {SCRIPT} threads --since 2026-01-01", unwindowed)
    grader = ScriptedGrader({"required[0]": "not-met"})
    assert _judged(WINDOWED, both, mailbox, grader) == ("model", "fail")
    assert len(grader.calls) == 1  # asked once, about this entry
    assert _judged(WINDOWED, both, mailbox) == ("unclear-rule", "blocked")


@pytest.mark.parametrize(
    ("commands", "status"),
    [
        ([f"python3 {SCRIPT} search -q invoice"], "pass"),
        ([f"python3 {SCRIPT} search -q invoice --from ana"], "pass"),
        ([f"python3 {SCRIPT} search -q x --folder work", f"python3 {SCRIPT} search -q x"], "pass"),
        ([f"python3 {SCRIPT} search -q invoice --folder inbox"], "fail"),
        ([f"python3 {SCRIPT} search -q invoice --folder=inbox"], "fail"),
        # `argparse` takes any prefix of `--folder` for it
        ([f"python3 {SCRIPT} search -q invoice --fold inbox"], "fail"),
        ([f"python3 {SCRIPT} threads"], "fail"),  # another subcommand
        ([], "fail"),
    ],
)
def test_a_phrase_omitting_a_flag_is_a_run_without_it(
    mailbox: SkillVocabulary, commands: list[str], status: str
) -> None:
    assert _judged(ALL_FOLDERS, _evidence(*commands), mailbox) == ("rules", status)


def test_a_phrase_giving_a_flag_is_a_run_with_it(mailbox: SkillVocabulary) -> None:
    sentence = "The skill included attached files."
    with_it = _evidence(f"python3 {SCRIPT} export 7 --attachments")
    without = _evidence(f"python3 {SCRIPT} export 7")
    assert _judged(sentence, with_it, mailbox) == ("rules", "pass")
    assert _judged(sentence, without, mailbox) == ("rules", "fail")


def test_explain_shows_the_skill_sentence_that_defined_it(mailbox: SkillVocabulary) -> None:
    compiled = compile_sentence(ALL_FOLDERS, mailbox)
    assert compiled is not None and compiled.tree is not None
    assert 'skill sentence "Omit `--folder` to search all folders."' in compiled.tree
    windowed = compile_sentence(WINDOWED, mailbox)
    assert windowed is not None and windowed.tree is not None
    assert "`--since/--until` count only within a window." in windowed.tree
    assert "goes to the model judge" in windowed.tree


def test_a_phrase_defined_twice_differently_refuses_and_says_where() -> None:
    twice = skill_vocabulary(TWICE)
    assert compile_sentence(ALL_FOLDERS, twice) is None
    why = refuse_sentence(ALL_FOLDERS, "pass_criteria", vocabulary=twice).why
    assert "Omit `--folder` to search all folders." in why
    assert "Use `--everywhere` to search all folders." in why


@pytest.mark.parametrize(
    "sentence",
    [
        # a contrast that is not the command without the flag
        "The skill used a date-windowed threads query (--since) rather than a search.",
        "The skill used a date-windowed threads query (--since) rather than guessing.",
        "The skill used a date-windowed threads query (--since) rather than all-time counts"
        " or a search.",
        # the modifier does not restate what the skill says the flag does
        "The skill used a date-windowed threads query (--label) rather than all-time counts.",
        "The skill used an unfiltered threads query (--since) rather than all-time counts.",
        # a denial
        "The skill never used a date-windowed threads query (--since) rather than all-time counts.",
        # phrases: another scope, more words, a denial, another subject
        "The skill searched one folder.",
        "The skill searched all folders for the keyword.",
        "The skill searched across all labels.",
        "The skill never searched all folders.",
        "The final answer included attached files.",
        "The skill searched all folders, not just two.",
    ],
)
def test_near_misses_refuse(mailbox: SkillVocabulary, sentence: str) -> None:
    assert compile_sentence(sentence, mailbox) is None


def test_without_the_skill_the_phrases_are_words() -> None:
    assert compile_sentence(ALL_FOLDERS, None) is None
    assert compile_sentence(WINDOWED, None) is None


def test_only_a_flag_shown_with_a_value_may_take_it_after_an_equals_sign() -> None:
    skill = """
```sh
python3 <skill>/scripts/t.py pull --remote <name> --all
```
"""
    vocabulary = read_vocabulary(skill)
    assert vocabulary.valued == frozenset({"--remote"})
    script = ".agents/skills/t/scripts/t.py"

    def status(sentence: str, command: str) -> str:
        ev = SessionEvidence(session_path="s.jsonl", complete=True, final_answer="done")
        ev.add("command_observed", 1, command=command, exit_code=0, call_id="c1")
        ev.add("file_read_observed", 1, path=f"/ws/{script}", access="exec", call_id="c1")
        ev.add("final_answer", 2, text="done")
        return _judged(sentence, ev, vocabulary)[1]

    assert status("The skill used --remote", f"python3 {script} pull --remote=origin") == "pass"
    # `--all=false` is another argument than `--all`
    assert status("The skill used --all", f"python3 {script} pull --all=false") == "fail"
    assert status("The skill used --all", f"python3 {script} pull --all") == "pass"


def test_phrases_of_one_verb_are_each_tried_and_two_meanings_of_the_words_refuse() -> None:
    skill = """
```sh
python3 <skill>/scripts/t.py pull --remote <name>
python3 <skill>/scripts/t.py sync --everything
```

| Subcommand | Purpose |
| --- | --- |
| `pull` | Fetch. Omit `--remote` to pull all remotes. Pass `--tags` to pull all tags. |
| `sync` | Sync. Use `--everything` to pull every remote. |
"""
    vocabulary = read_vocabulary(skill)
    tags = compile_sentence("The skill pulled all tags.", vocabulary)
    assert tags is not None and "--tags" in (tags.tree or "")  # the second phrase of "pull"
    # "every remote" is both "pull all remotes" (no `--remote`) and "pull every remote" (`sync`)
    assert compile_sentence("The skill pulled every remote.", vocabulary) is None
    why = refuse_sentence("The skill pulled every remote.", "pass_criteria", vocabulary=vocabulary)
    assert "Omit `--remote` to pull all remotes." in why.why
    assert "Use `--everything` to pull every remote." in why.why
    assert compile_sentence("The skill pulled all branches.", vocabulary) is None
