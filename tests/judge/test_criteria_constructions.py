"""Sentence constructions of the criteria compiler beyond one claim: conditions ("If X, Y"), chains
of reads ("`A` → `B` → `C`", "`A`, then `B`, then `C`"), the evidence verb under a modal ("the
session should show"), examples in parentheses, and file names resolved against the target
skill's own files. Each with sentences that compile and near misses that must refuse; the
checks they compile to are judged on hand-built evidence, so what they mean is tested too."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluator.judge.criteria import check_text, compile_sentence, refuse_sentence
from evaluator.judge.literal_checks import literal_command
from evaluator.judge.skill_vocabulary import SkillVocabulary, Term, skill_vocabulary
from tests.judge.test_judge import SKILL, _case, _evidence, _judge, entry

REFS = f"{SKILL}/references"


def _verdict(sentence: str, vocabulary: SkillVocabulary | None = None) -> str:
    """How the sentence's checks judge the evidence of `tests/judge/test_judge.py` (SKILL.md read at
    step 3, `references/a.md` at 5, `references/docs.txt` at 7; `out/x.txt` written at 9)."""
    compiled = compile_sentence(sentence, vocabulary)
    assert compiled is not None, refuse_sentence(sentence, "pass_criteria").why
    check = compiled.check.model_dump(mode="json", by_alias=True, exclude_none=True)
    _, entries = _judge(_case([entry(check)]), _evidence())
    return entries[0]


# --------------------------------------------------------------------------- conditions


@pytest.mark.parametrize(
    ("sentence", "checks"),
    [
        (
            "If `guide.md` was read, it should happen after `index.md`.",
            "any_of[not file_read(path='guide.md'), all_of[read_before(first='index.md'"
            " then='guide.md'), file_read(path='guide.md')]]",
        ),
        (
            "If the agent opened `faq.md`, it must come after reading `intro.md`.",
            "any_of[not file_read(path='faq.md'), all_of[read_before(first='intro.md'"
            " then='faq.md'), file_read(path='faq.md')]]",
        ),
        (
            "If the agent ran `deploy.sh`, then the agent ran `lint.sh`.",
            "any_of[not script_ran(path='deploy.sh'), script_ran(path='lint.sh')]",
        ),
        (
            "If `report.csv` was written, the final answer mentions `report.csv`.",
            "any_of[not file_written(path='report.csv'), final_answer_contains(text='report.csv')]",
        ),
        (  # "it" is the condition's one literal
            "If `gen.py` was created, the agent ran it.",
            "any_of[not file_written(path='gen.py'), script_ran(path='gen.py')]",
        ),
        (  # a denied condition: the act itself is the way out
            "If the agent never read `setup.md`, the final answer mentions `unverified`.",
            "any_of[file_read(path='setup.md'), final_answer_contains(text='unverified')]",
        ),
    ],
)
def test_a_condition_holds_when_it_did_not_happen_or_its_consequence_holds(
    sentence: str, checks: str
) -> None:
    compiled = compile_sentence(sentence)
    assert compiled is not None, refuse_sentence(sentence, "pass_criteria").why
    assert check_text(compiled.check) == checks
    assert compiled.tree is not None and compiled.tree.startswith("(if ")
    assert ") (then " in compiled.tree


@pytest.mark.parametrize(
    ("sentence", "why"),
    [
        # the condition names no act a rule sees
        ("If the build broke, the agent read `debug.md`.", "in the condition 'the build broke'"),
        ("If needed, the agent reads `extra.md`.", "stopped at 'if'"),
        ("If and only if `a.md` was read, `b.md` was read.", "stopped at 'if'"),
        # "it" of two files: which one came after?
        ("If `a.md` or `c.md` was read, it should happen after `b.md`.", "in the consequence"),
        # "before" a file that may never be read: ordered, or only not after?
        ("If `a.md` was read, it should happen before `b.md`.", "in the consequence"),
        # only reads are ordered
        ("If the agent ran `make deploy`, it should happen after `make test`.", "consequence"),
        ("If `a.md` was read, `b.md` was read too.", "in the consequence"),  # "too": besides?
        ("If `a.md` was read.", "a condition without a consequence"),
        # one file and a claim about `b.md`, or a list of two files?
        ("If the agent read `a.md`, `b.md` was read.", "inside a list of literals"),
        ("If the agent read `a.md`, `b.md` or `c.md`, then `d.md` was read.", "inside a list"),
        ("If `a.md` was read, `b.md` was read, unless the user asked.", "in the consequence"),
        ("If `a.md` was read, if `b.md` was read, `c.md` was read.", "inside a condition"),
        ("If `a.md` was read, that should happen after `b.md` was opened.", "consequence"),
    ],
)
def test_a_condition_refuses_unless_both_parts_compile_alone(sentence: str, why: str) -> None:
    assert compile_sentence(sentence) is None
    assert why in refuse_sentence(sentence, "pass_criteria").why


@pytest.mark.parametrize(
    ("sentence", "verdict"),
    [
        (f"If `{REFS}/a.md` was read, it should happen after `{SKILL}/SKILL.md`.", "pass"),
        (f"If `{REFS}/a.md` was read, it should happen after `{REFS}/docs.txt`.", "fail"),
        # never read: the condition did not happen, whatever the order would have been
        (f"If `{REFS}/b.md` was read, it should happen after `{REFS}/docs.txt`.", "pass"),
        ("If `out/x.txt` was written, the final answer mentions `migrations`.", "pass"),
        ("If `out/x.txt` was written, the final answer mentions `rollback`.", "fail"),
        ("If `out/y.txt` was written, the final answer mentions `rollback`.", "pass"),
    ],
)
def test_a_condition_judges_what_it_says(sentence: str, verdict: str) -> None:
    assert _verdict(sentence) == verdict


# --------------------------------------------------------------------------- chains of reads


@pytest.mark.parametrize(
    "sentence",
    [
        "The agent reads `a.md` → `b.md` → `c.md`.",
        "The agent reads `a.md` -> `b.md` -> `c.md`.",
        "The agent reads `a.md`, then `b.md`, then `c.md`.",
        "The agent reads `a.md`, then reads `b.md`, and then `c.md`.",
        "The session should show `a.md` → `b.md` → `c.md`.",
        "The accepted trace shows `a.md`→`b.md`→`c.md`.",
    ],
)
def test_a_chain_of_reads_orders_each_pair_and_needs_each_later_file(sentence: str) -> None:
    compiled = compile_sentence(sentence)
    assert compiled is not None, refuse_sentence(sentence, "pass_criteria").why
    assert check_text(compiled.check) == (
        "all_of[read_before(first='a.md' then='b.md'), file_read(path='b.md'),"
        " read_before(first='b.md' then='c.md'), file_read(path='c.md')]"
    )
    assert "(order a.md then b.md then c.md)" in (compiled.tree or "")


@pytest.mark.parametrize(
    "sentence",
    [
        "The agent reads `a.md` → `b.md` or `c.md`.",  # which one second?
        "The agent reads `a.md` → `b.md` and `c.md`.",  # both second, in which order?
        "The session shows `a.md` → `make test`.",  # a command is no file shown
        "The agent ran `make` → `make test`.",  # only reads are ordered
        "The agent never reads `a.md` → `b.md`.",  # neither, not in that order, or not both?
        "The agent never reads `a.md`, then `b.md`, then `c.md`.",
        "The session shows `a.md` → the guide.",  # a name that is no literal
    ],
)
def test_what_a_chain_cannot_say_exactly_refuses(sentence: str) -> None:
    assert compile_sentence(sentence) is None


@pytest.mark.parametrize(
    ("sentence", "verdict"),
    [
        (f"The agent reads `{SKILL}/SKILL.md` → `{REFS}/a.md` → `{REFS}/docs.txt`.", "pass"),
        (f"The agent reads `{SKILL}/SKILL.md` → `{REFS}/docs.txt` → `{REFS}/a.md`.", "fail"),
        (f"The agent reads `{SKILL}/SKILL.md`, then `{REFS}/a.md`, then `{REFS}/b.md`.", "fail"),
    ],
)
def test_a_chain_judges_what_it_says(sentence: str, verdict: str) -> None:
    assert _verdict(sentence) == verdict


# --------------------------------------------------------------------------- evidence preambles


@pytest.mark.parametrize(
    ("sentence", "checks"),
    [
        (
            "The accepted trace should show that the agent read `plan.md`.",
            "file_read(path='plan.md')",
        ),
        ("The session must show `plan.md` was read.", "file_read(path='plan.md')"),
        ("The session is expected to show that `plan.md` was read.", "file_read(path='plan.md')"),
        ("Evidence shows the agent read `plan.md`.", "file_read(path='plan.md')"),
    ],
)
def test_the_evidence_verb_may_follow_a_modal(sentence: str, checks: str) -> None:
    compiled = compile_sentence(sentence)
    assert compiled is not None
    assert check_text(compiled.check) == checks


@pytest.mark.parametrize(
    "sentence",
    [
        "The session should not show `plan.md` was read.",  # left to the lead-in's negations
        "The session should show no read of `plan.md`.",
        "The session could show that `plan.md` was read.",  # a possibility, not a claim
        "The session should be `plan.md`.",
    ],
)
def test_a_modal_that_is_not_before_an_evidence_verb_refuses(sentence: str) -> None:
    assert compile_sentence(sentence) is None


# --------------------------------------------------------------------------- examples


def test_an_example_in_parentheses_illustrates_and_is_dropped() -> None:
    compiled = compile_sentence(
        "The final answer includes a local URL (e.g. http://127.0.0.1:8080)."
    )
    assert compiled is not None
    assert check_text(compiled.check) == "final_answer_url(local_only=True)"
    assert "(example dropped: e.g. http://127.0.0.1:8080)" in (compiled.tree or "")
    ran = compile_sentence("The agent ran `pytest` (for example `pytest -q`).")
    assert ran is not None and check_text(ran.check).startswith("command_ran(")


@pytest.mark.parametrize(
    "sentence",
    [
        # without the example the claim names nothing exact: the example is no list of it
        "The agent ran a test command (e.g. `pytest`).",
        "The agent ran a build command (such as `make`, `ninja`).",
        # what follows the example still has to compile
        "The final answer includes a local URL (e.g. http://127.0.0.1:8080) where it runs.",
        "The agent read `a.md` (e.g. `b.md`) (e.g. `c.md`).",
    ],
)
def test_an_example_never_stands_for_the_claim(sentence: str) -> None:
    assert compile_sentence(sentence) is None


def test_an_example_inside_a_literal_is_part_of_it() -> None:
    compiled = compile_sentence("The agent ran `lint (e.g. strict)`.")
    assert compiled is not None
    assert "example dropped" not in (compiled.tree or "")
    assert "strict" in check_text(compiled.check)


# --------------------------------------------------------------------------- the skill's files


@pytest.fixture
def skill(tmp_path: Path) -> SkillVocabulary:
    for name in (
        "SKILL.md",
        "references/voice/README.md",
        "references/voice/setup.md",
        "references/video/README.md",
        "references/video/limits.md",
        "references/voice/limits.md",
        "scripts/sync-docs.sh",
    ):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x\n")
    vocabulary = skill_vocabulary(tmp_path)
    assert vocabulary is not None
    return vocabulary


@pytest.mark.parametrize(
    ("sentence", "checks", "shown"),
    [
        (
            "The agent reads setup.md.",
            "file_read(path='references/voice/setup.md')",
            "(file setup.md = references/voice/setup.md in the skill)",
        ),
        (
            "The agent reads video/limits.md.",
            "file_read(path='references/video/limits.md')",
            "(file video/limits.md = references/video/limits.md in the skill)",
        ),
        (
            "The agent ran sync-docs.sh.",
            "script_ran(path='scripts/sync-docs.sh')",
            "(file sync-docs.sh = scripts/sync-docs.sh in the skill)",
        ),
        (
            "The agent reads SKILL.md → setup.md.",
            "all_of[read_before(first='SKILL.md' then='references/voice/setup.md'),"
            " file_read(path='references/voice/setup.md')]",
            "(file setup.md = references/voice/setup.md in the skill)",
        ),
    ],
)
def test_a_file_named_without_backticks_is_the_one_skill_file_it_names(
    skill: SkillVocabulary, sentence: str, checks: str, shown: str
) -> None:
    compiled = compile_sentence(sentence, skill)
    assert compiled is not None
    assert check_text(compiled.check) == checks
    assert shown in (compiled.tree or "")


def test_a_path_of_the_skill_is_that_file_whatever_else_ends_in_it(tmp_path: Path) -> None:
    for name in ("SKILL.md", "templates/SKILL.md", "guide.md", "old/guide.md"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x\n")
    vocabulary = skill_vocabulary(tmp_path)
    for sentence, checks in (
        ("The agent reads SKILL.md.", "file_read(path='SKILL.md')"),
        ("The agent reads guide.md.", "file_read(path='guide.md')"),
    ):
        compiled = compile_sentence(sentence, vocabulary)
        assert compiled is not None
        assert check_text(compiled.check) == checks


def test_the_readme_resolves_only_when_the_skill_has_one(tmp_path: Path) -> None:
    (tmp_path / "SKILL.md").write_text("# S\n")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs/README.md").write_text("x\n")
    one = skill_vocabulary(tmp_path)
    compiled = compile_sentence("The agent consulted the README.", one)
    assert compiled is not None
    assert check_text(compiled.check) == "file_read(path='docs/README.md')"
    assert compile_sentence("The agent consulted the README.") is None  # no skill known


@pytest.mark.parametrize(
    ("sentence", "why"),
    [
        ("The agent reads limits.md.", "limits.md names 2 files of the skill"),
        ("The agent reads the README.", "README names 2 files of the skill"),
        ("The agent reads SKILL.md → limits.md.", "limits.md names 2 files of the skill"),
    ],
)
def test_a_name_of_several_skill_files_refuses(
    skill: SkillVocabulary, sentence: str, why: str
) -> None:
    assert compile_sentence(sentence, skill) is None
    assert why in refuse_sentence(sentence, "pass_criteria", vocabulary=skill).why


def test_a_backticked_or_written_name_is_taken_as_written(skill: SkillVocabulary) -> None:
    # Backticks are the author's exact pattern; a write is the agent's file, not the skill's;
    # a name the skill has no file of is a workspace file.
    for sentence, checks in (
        ("The agent reads `limits.md`.", "file_read(path='limits.md')"),
        ("The agent wrote setup.md.", "file_written(path='setup.md')"),
        ("The agent reads app.py.", "file_read(path='app.py')"),
    ):
        compiled = compile_sentence(sentence, skill)
        assert compiled is not None
        assert check_text(compiled.check) == checks
        assert "in the skill" not in (compiled.tree or "")


# --------------------------------------------------------------------------- either, also


@pytest.mark.parametrize(
    ("sentence", "checks"),
    [
        (
            "Either the agent read `notes.md`, or the final answer mentions `no notes`.",
            "any_of[file_read(path='notes.md'), final_answer_contains(text='no notes')]",
        ),
        (
            "Either `build/` was never written, or the agent ran `make clean`.",
            "any_of[not file_written(path='build/*'), command_ran(pattern="
            + repr(literal_command("make clean"))
            + ")]",
        ),
        # a list of literals stays the grammar's
        (
            "Either `a.md`, or `b.md` was read.",
            "any_of[file_read(path='a.md'), file_read(path='b.md')]",
        ),
        ("The session also shows that the agent read `b.md`.", "file_read(path='b.md')"),
        ("The agent also never read `b.md`.", "not file_read(path='b.md')"),
        ("Final answer mentions `done`.", "final_answer_contains(text='done')"),
    ],
)
def test_either_clause_also_and_a_bare_final_answer(sentence: str, checks: str) -> None:
    compiled = compile_sentence(sentence)
    assert compiled is not None, refuse_sentence(sentence, "pass_criteria").why
    assert check_text(compiled.check) == checks


@pytest.mark.parametrize(
    ("sentence", "why"),
    [
        ("Either the build broke, or the agent read `a.md`.", "in 'the build broke'"),
        ("Either the agent read `a.md`, or it ran `x`.", "stopped at 'it'"),  # "it"?
        ("Either the agent read `a.md`, or `b.md`, or `c.md`.", "stopped at 'the'"),
        ("Either the agent read `a.md`, `b.md`, or `c.md` was read.", "stopped at 'the'"),
        ("The agent never also read `b.md`.", "stopped at 'also'"),  # not besides something
        ("The agent does not also read `b.md`.", "stopped at 'also'"),
    ],
)
def test_either_and_also_refuse_where_they_could_mean_more(sentence: str, why: str) -> None:
    assert compile_sentence(sentence) is None
    assert why in refuse_sentence(sentence, "pass_criteria").why


# --------------------------------------------------------------------------- said to the user


@pytest.mark.parametrize(
    ("sentence", "checks"),
    [
        ("Mentions --keep-going.", "agent_said(text='--keep-going')"),
        (
            "The assistant says `nothing to migrate`.",
            "agent_said(text='nothing to migrate' affirmed=True)",
        ),
        (
            "The agent states that `v3 is deprecated`.",
            "agent_said(text='v3 is deprecated' affirmed=True)",
        ),
        (
            "Explains that `the lock is stale`.",
            "agent_said(text='the lock is stale' affirmed=True)",
        ),
        (
            "Mentions both `alembic` and `flyway`.",
            "all_of[agent_said(text='alembic'), agent_said(text='flyway')]",
        ),
        (
            "The agent mentions `ruff` or `flake8`.",
            "any_of[agent_said(text='ruff'), agent_said(text='flake8')]",
        ),
        ("Never mentions `sudo`.", "not agent_said(text='sudo')"),
        # Naming the answer keeps the claim on the answer alone.
        ("Mentions `rollback` in the final answer.", "final_answer_contains(text='rollback')"),
        ("The reply mentions `rollback`.", "final_answer_contains(text='rollback')"),
    ],
)
def test_what_the_agent_says_is_any_of_its_messages(sentence: str, checks: str) -> None:
    compiled = compile_sentence(sentence)
    assert compiled is not None, refuse_sentence(sentence, "pass_criteria").why
    assert check_text(compiled.check) == checks


@pytest.mark.parametrize(
    ("sentence", "word"),
    [
        ("Explains `idempotency`.", "explains"),  # an explanation of it: a judgement
        ("Mentions `--force` as a last resort.", "as"),  # how it is presented
        ("Mentions `pytest` to reassure the user.", "to"),  # a purpose of saying
        ("Mentions `X` before answering.", "before"),  # before the answer, or in it?
        ("Says that `cache` is cold.", "is"),  # a claim about the literal, not the literal
        ("Mentions the `staging` environment.", "environment"),
        ("Mentions `pgTAP` and runs `make`.", "and"),
    ],
)
def test_what_a_said_claim_cannot_say_exactly_refuses(sentence: str, word: str) -> None:
    assert compile_sentence(sentence) is None
    assert f"'{word}'" in refuse_sentence(sentence, "pass_criteria").why


# --------------------------------------------------------------------------- bare commands


@pytest.mark.parametrize(
    ("sentence", "literal"),
    [
        ("Runs cargo build --release", "cargo build --release"),
        ("The agent ran uv sync.", "uv sync"),
        ("Executes docker compose up -d.", "docker compose up -d"),
        ("Runs go vet ./...", "go vet ./..."),
        ("Invokes python3 -m pip list.", "python3 -m pip list"),
    ],
)
def test_a_bare_command_of_a_known_program_ending_the_sentence_is_a_literal(
    sentence: str, literal: str
) -> None:
    compiled = compile_sentence(sentence)
    backticked = compile_sentence(f"Runs `{literal}`.")
    assert compiled is not None, refuse_sentence(sentence, "pass_criteria").why
    assert backticked is not None
    assert check_text(compiled.check) == check_text(backticked.check)


def test_a_denied_bare_command_is_denied() -> None:
    compiled = compile_sentence("Never runs git reset --hard.")
    assert compiled is not None
    assert check_text(compiled.check).startswith("not command_ran(")


@pytest.mark.parametrize(
    "sentence",
    [
        "Runs cargo build on the workspace.",  # where does the command end?
        "Runs cargo build successfully.",
        "Runs cargo test to check the parser.",
        "Runs git fetch then rebases.",
        "Runs yarn install and yarn build.",  # two commands, or one with an `and`?
        "Runs make sure everything passes.",
        "Runs twyne tx open.",  # not a program the list knows
        "Runs Cargo build.",  # written as a name, not as typed
        "Runs the linter.",
        "Runs npm ci, npm test.",
    ],
)
def test_a_bare_command_whose_boundary_is_unclear_refuses(sentence: str) -> None:
    assert compile_sentence(sentence) is None


# --------------------------------------------------------------------------- names called


@pytest.mark.parametrize(
    "sentence",
    [
        "Calls `find_customer`.",  # a tool of a model context server, or a function
        "The agent invokes `search`.",
        "Never calls `delete_account`.",
        "The session shows an invocation of `lookup_user`.",
        "Calls `mcp__crm__lookup`.",
        "Calls `get-weather` or `git`.",  # one of them may be a tool
    ],
)
def test_a_bare_name_called_or_invoked_refuses(sentence: str) -> None:
    assert compile_sentence(sentence) is None
    why = refuse_sentence(sentence, "pass_criteria").why
    assert any(f"'{verb}'" in why for verb in ("calls", "invokes", "invocation"))


@pytest.mark.parametrize(
    ("sentence", "checks"),
    [
        # Said to be a command: "runs", "executes", "a command invoking".
        ("Runs `find_customer`.", "command_ran"),
        ("Executes `find_customer`.", "command_ran"),
        ("The session shows a command invoking `find_customer`.", "command_ran"),
        # A known program, a path, a command line, a file name.
        ("Calls `git`.", "command_ran"),
        ("Invokes `curl`.", "command_ran"),
        ("Calls `pytest`.", "command_ran"),
        ("Calls `git status`.", "command_ran"),
        ("Invokes `scripts/sync.sh`.", "script_ran"),
        ("Calls `./deploy`.", "script_ran"),
        ("Calls `tool.py`.", "script_ran"),
    ],
)
def test_a_called_command_still_compiles(sentence: str, checks: str) -> None:
    compiled = compile_sentence(sentence)
    assert compiled is not None, refuse_sentence(sentence, "pass_criteria").why
    assert check_text(compiled.check).startswith(checks)


def test_a_name_the_skill_documents_as_its_command_may_be_called() -> None:
    term = Term(word="totals", role="subcommand", script="scripts/ledger.py")
    vocabulary = SkillVocabulary(terms={"totals": term})
    compiled = compile_sentence("Calls `totals`.", vocabulary)
    assert compiled is not None
    # The skill's script run with that subcommand.
    assert check_text(compiled.check).startswith("script_ran(path='scripts/ledger.py'")
    assert compile_sentence("Calls `totals`.") is None  # without the skill: a name


# --------------------------------------------------------------------------- verbs joined by "or"


@pytest.mark.parametrize(
    ("sentence", "checks"),
    [
        # Two verbs of one act: the act, once (held-out: "A CLAUDE.md is created or updated").
        ("`CLAUDE.md` is created or updated.", "file_written(path='CLAUDE.md')"),
        ("The agent creates or updates `CLAUDE.md`.", "file_written(path='CLAUDE.md')"),
        ("`notes.md` is written or modified by the agent.", "file_written(path='notes.md')"),
        ("The agent reads or opens `guide.md`.", "file_read(path='guide.md')"),
        ("The agent opens or reads `guide.md`.", "file_read(path='guide.md')"),
        ("`guide.md` is read or consulted.", "file_read(path='guide.md')"),
        ("The agent runs or executes `make test`.", "command_ran(pattern="),
        # with what follows a verb: a denial, an order, a list of objects
        ("The agent never creates or modifies `.env`.", "not file_written(path='.env')"),
        ("`.env` is not created or updated.", "not file_written(path='.env')"),
        (
            "The agent reads or consults `a.md` before `b.md`.",
            "read_before(first='a.md' then='b.md')",
        ),
        (
            "The agent creates or updates `a.md` or `b.md`.",
            "any_of[file_written(path='a.md'), file_written(path='b.md')]",
        ),
        (  # in a second claim too
            "The agent reads `a.md` but never creates or modifies `b.md`.",
            "all_of[file_read(path='a.md'), not file_written(path='b.md')]",
        ),
    ],
)
def test_two_verbs_of_one_act_joined_by_or_are_that_act(sentence: str, checks: str) -> None:
    compiled = compile_sentence(sentence)
    assert compiled is not None, refuse_sentence(sentence, "pass_criteria").why
    assert check_text(compiled.check).startswith(checks)


@pytest.mark.parametrize(
    ("sentence", "stop"),
    [
        ("The agent reads or writes `a.md`.", "or"),  # two acts: which?
        ("The agent creates or reads `a.md`.", "or"),
        ("The agent reads `a.md` and creates or reads `b.md`.", "or"),
        ("`a.md` is read or written.", "or"),
        ("`a.md` is created and updated.", None),  # two acts, both: not one write
        ("The agent creates and updates `a.md`.", None),
        ("The agent runs or calls `find_customer`.", "calls"),  # a name called may be a tool
        ("The session shows reads or runs of `a.md`.", "or"),  # nouns of two acts
        ("`CLAUDE.md` is created or updated at the repo root.", "at"),  # a scope no path says
    ],
)
def test_verbs_of_two_acts_or_both_acts_still_refuse(sentence: str, stop: str | None) -> None:
    assert compile_sentence(sentence) is None
    if stop is not None:
        assert f"stopped at '{stop}'" in refuse_sentence(sentence, "pass_criteria").why


def test_a_write_said_by_two_verbs_is_judged_as_one_write() -> None:
    # `out/x.txt` is written in the hand-built evidence; `SKILL.md` is read, not written
    assert _verdict("`out/x.txt` is created or updated.") == "pass"
    assert _verdict("The agent never creates or modifies `out/x.txt`.") == "fail"
    assert _verdict("The agent reads or opens `SKILL.md`.") == "pass"
    assert _verdict("The agent creates or updates `SKILL.md`.") == "fail"


# --------------------------------------------------------------------------- a file in a folder


@pytest.mark.parametrize(
    ("sentence", "checks"),
    [
        # One file name placed in one named directory: that name there, at any depth.
        (
            "`STATE.md` is scaffolded under `loops/<loop-name>/`.",
            "any_of[file_written(path='loops/*/STATE.md'),"
            " file_written(path='loops/*/*/STATE.md')]",
        ),
        (  # bare, with the author's placeholder
            "STATE.md is created under loops/<loop-name>/",
            "any_of[file_written(path='loops/*/STATE.md'),"
            " file_written(path='loops/*/*/STATE.md')]",
        ),
        (
            "The agent places `x.md` in the `docs` directory.",
            "any_of[file_written(path='docs/x.md'), file_written(path='docs/*/x.md')]",
        ),
        (
            "The agent reads `guide.md` in `references/`.",
            "any_of[file_read(path='references/guide.md'),"
            " file_read(path='references/*/guide.md')]",
        ),
        (
            "The agent never writes `a.md` under `docs/`.",
            "not any_of[file_written(path='docs/a.md'), file_written(path='docs/*/a.md')]",
        ),
        (  # what only restates the case may follow
            "`a.md` is read under `docs/` before answering.",
            "any_of[file_read(path='docs/a.md'), file_read(path='docs/*/a.md')]",
        ),
        ("The agent writes docs/<topic>.md", "file_written(path='docs/*.md')"),
    ],
)
def test_a_file_named_in_a_named_directory_is_that_file_there(sentence: str, checks: str) -> None:
    compiled = compile_sentence(sentence)
    assert compiled is not None, refuse_sentence(sentence, "pass_criteria").why
    assert check_text(compiled.check) == checks


@pytest.mark.parametrize(
    ("sentence", "stop"),
    [
        ("`notes.md` is written in `docs`.", "in"),  # not said to be a directory
        ("The agent reads `a.md` in `b.md`.", "in"),
        ("The agent writes `a.md` in the repo root.", "in"),  # no path says "the root"
        ("`CLAUDE.md` is created at the workspace root.", "at"),
        ("The agent reads `x/a.md` under `docs/`.", "under"),  # a path already: which?
        ("`a.md` or `b.md` is read in `references/`.", "in"),  # one place for each?
        ("The agent runs `make` in `src/`.", "in"),  # a command's directory is no file's
        ("The agent writes `a.md` from `docs/`.", "from"),
        ("The agent writes `notes.md` in `~/`.", "in"),  # outside the workspace
        ("The agent writes `notes.md` under `/tmp/`.", "under"),
        ("The agent reads `guide.md` in `references/` before `b.md`.", "before"),  # an order
        ("`a.md` is read under `docs/` first.", "first"),
        ("The answer mentions <b>", "<b>"),  # angle brackets that are no path part
    ],
)
def test_a_place_no_path_can_say_still_refuses(sentence: str, stop: str) -> None:
    assert compile_sentence(sentence) is None
    assert f"stopped at '{stop}'" in refuse_sentence(sentence, "pass_criteria").why


def test_a_file_in_a_folder_is_judged_by_its_place() -> None:
    # `out/x.txt` is written in the hand-built evidence
    assert _verdict("`x.txt` is created under `out/`.") == "pass"
    assert _verdict("The agent never writes `x.txt` in the `out` folder.") == "fail"
    assert _verdict("`x.txt` is created under `docs/`.") == "fail"
    assert _verdict("`out/x.txt` is written.") == "pass"


# ------------------------------------------- "or any file in `dir/`", "at least once", "present"


@pytest.mark.parametrize(
    ("sentence", "checks"),
    [
        # A list of files whose last item is any file of a folder or glob (the upstream fork's
        # "`sample-repos.md`, `providers.md`, ..., or any `convoai-restapi/*` file").
        (
            "The session shows consultation of `a.md`, `b.md`, or any `refs/*` file.",
            "any_of[file_read(path='a.md'), file_read(path='b.md'), file_read(path='refs/*')]",
        ),
        (
            "The agent reads `a.md` or any file in the `refs` folder.",
            "any_of[file_read(path='a.md'), file_read(path='refs/*')]",
        ),
        (
            "The agent never writes `a.md` or any file under `vendor/`.",
            "not any_of[file_written(path='a.md'), file_written(path='vendor/*')]",
        ),
        # "at least once" after one act: what the claim says already
        ("The agent reads `a.md` at least once.", "file_read(path='a.md')"),
        ("`a.md` is read at least once before answering.", "file_read(path='a.md')"),
        ("The agent runs `pytest` at least once.", "command_ran(pattern="),
        # "is present": a file exists, as "exists" says
        ("`out.json` is present in the workspace.", "workspace_file_exists(path='out.json')"),
        ("`out.json` is not present.", "not workspace_file_exists(path='out.json')"),
        (
            "`a.md` and `b.md` are present.",
            "all_of[workspace_file_exists(path='a.md'), workspace_file_exists(path='b.md')]",
        ),
    ],
)
def test_any_file_of_a_folder_at_least_once_and_present(sentence: str, checks: str) -> None:
    compiled = compile_sentence(sentence)
    assert compiled is not None, refuse_sentence(sentence, "pass_criteria").why
    assert check_text(compiled.check).startswith(checks)


@pytest.mark.parametrize(
    ("sentence", "stop"),
    [
        ("The agent reads `a.md` or any `b.md`.", "any"),  # any of what?
        ("The agent reads `a.md` or any `refs` file.", "any"),  # not said to be a folder
        ("The agent reads `a.md` and any `refs/*` file.", "and"),  # one, or all of them?
        ("The agent reads `a.md` or any `refs/*` file, or `c.md`.", ","),  # only last
        ("The answer mentions `a` or any `refs/*` file.", "or"),  # a text has no folder
        ("The agent runs `make` or any `scripts/*` script.", "or"),  # nor a command
        ("The agent never reads `a.md` at least once.", "at"),  # more than once?
        ("The agent reads `a.md` before `b.md` at least once.", "at"),
        ("The final answer mentions `x` at least once.", "at"),
        ("`TODO` is present.", "present"),  # a text is present somewhere: where?
        ("`API_KEY` is not present.", "present"),
        ("`out.json` is never present.", "present"),
        ("`TODO` is present in `app.py`.", "present"),
    ],
)
def test_any_at_least_once_and_present_look_alikes_refuse(sentence: str, stop: str) -> None:
    assert compile_sentence(sentence) is None
    assert f"stopped at '{stop}'" in refuse_sentence(sentence, "pass_criteria").why


def test_any_file_of_a_folder_is_judged_as_one_more_alternative() -> None:
    # `SKILL.md` and `references/a.md` are read in the hand-built evidence, nothing of `docs/`
    assert _verdict("The agent reads `nope.md` or any file in `references/`.") == "pass"
    assert _verdict("The agent reads `nope.md` or any `docs/*` file.") == "fail"


# --------------------------------------------------------------- "then" and "followed by"

_LINT = repr(literal_command("make lint"))[1:-1]
_TEST = repr(literal_command("make test"))[1:-1]


@pytest.mark.parametrize(
    "sentence",
    [
        "The agent runs `make lint` and then `make test`.",
        "The agent runs `make lint`, then runs `make test`.",
        "The agent runs `make lint` followed by `make test`.",
        "The agent ran `make lint` and then ran `make test`.",
    ],
)
def test_two_commands_then_are_both_run_in_that_order(sentence: str) -> None:
    compiled = compile_sentence(sentence)
    assert compiled is not None, refuse_sentence(sentence, "pass_criteria").why
    assert check_text(compiled.check) == (
        f"all_of[ran_before(first='{_LINT}' then='{_TEST}'), command_ran(pattern='{_TEST}')]"
    )


@pytest.mark.parametrize(
    ("sentence", "stop"),
    [
        ("The agent never runs `make lint` then `make test`.", "then"),  # not both, or not so?
        ("The agent runs `make lint`, then `make test`, then `make build`.", ","),  # a chain
        ("The agent calls `lint` then `test`.", "then"),  # tools called by name
        ("The agent runs `lint.sh` then `make test`.", "then"),  # a script: no one pattern
        ("The agent runs `make lint` or `ruff` then `make test`.", "then"),
        ("The agent runs `npm install` (or equivalent) then `npm test`.", "then"),
        ("The agent runs `make lint` then `make test` successfully.", "successfully"),
        # an act of another kind after "then": no order across acts
        ("The agent runs `make` and then reads `out.log`.", "reads"),
        ("The agent reads `a.md` and then runs `make`.", "runs"),
        ("The agent runs `make` followed by a read of `x.md`.", "read"),
    ],
)
def test_then_between_commands_look_alikes_refuse(sentence: str, stop: str) -> None:
    assert compile_sentence(sentence) is None
    assert f"stopped at '{stop}'" in refuse_sentence(sentence, "pass_criteria").why


def test_a_read_followed_by_another_is_that_order() -> None:
    compiled = compile_sentence("The session shows consultation of `A.md` followed by `B.md`.")
    assert compiled is not None
    assert check_text(compiled.check) == (
        "all_of[read_before(first='A.md' then='B.md'), file_read(path='B.md')]"
    )
    # `SKILL.md` is read at step 3, `references/a.md` at step 5 in the hand-built evidence
    assert _verdict("The agent reads `SKILL.md`, followed by `references/a.md`.") == "pass"
    assert _verdict("The agent reads `references/a.md`, followed by `SKILL.md`.") == "fail"


def test_as_well_as_joins_two_literals_as_and() -> None:
    compiled = compile_sentence("The agent reads `A.md` as well as `B.md`.")
    assert compiled is not None
    assert check_text(compiled.check) == "all_of[file_read(path='A.md'), file_read(path='B.md')]"
    # denied, "as well as" is "and": neither, or not both? It refuses, as "and" does.
    assert compile_sentence("The agent never reads `A.md` as well as `B.md`.") is None
    assert compile_sentence("The agent reads `A.md` as well.") is None
    assert compile_sentence("The agent reads `A.md` as a guide.") is None
