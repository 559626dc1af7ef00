"""The criteria grammar: every English sentence parsed, every word accounted for, or refused at the
word that could change its meaning."""

from __future__ import annotations

import json

import pytest

from evaluator.cli.main import main
from evaluator.judge.criteria import check_text, compile_sentence, refuse_sentence
from evaluator.judge.literal_checks import GIT_OPTIONS, literal_command
from evaluator.judge.verdict import SentenceRole
from evaluator.vocabulary import Polarity
from tests.conftest import ROOT

# check_text shows a pattern's backslashes doubled.
GIT = GIT_OPTIONS.replace("\\", "\\\\").replace("'", "\\'")


@pytest.mark.parametrize(
    ("sentence", "checks"),
    [
        (
            "The accepted session evidence shows consultation of a product reference file under"
            " `references/`.",
            "file_read(path='references/*')",
        ),
        (
            "The session shows that the agent read at least one local file under `docs/a` or"
            " `docs/b`.",
            "any_of[file_read(path='docs/a/*'), file_read(path='docs/b/*')]",
        ),
        (
            "The agent consulted either `a.md` or `b.md`.",
            "any_of[file_read(path='a.md'), file_read(path='b.md')]",
        ),
        (
            "The agent read at least one of `x.md` and `y.md`.",
            "any_of[file_read(path='x.md'), file_read(path='y.md')]",
        ),
        (
            "The evidence shows reads of `x.md` and `y.md`.",
            "all_of[file_read(path='x.md'), file_read(path='y.md')]",
        ),
        (
            "The evidence shows a read of the relevant reference `x.md`.",
            "file_read(path='x.md')",
        ),
        ("`SKILL.md` was never opened by the agent.", "not file_read(path='SKILL.md')"),
    ],
)
def test_words_that_do_not_change_the_meaning_are_accounted_for(sentence: str, checks: str) -> None:
    compiled = compile_sentence(sentence)
    assert compiled is not None
    assert check_text(compiled.check) == checks
    if compiled.rule.endswith("grammar-consultation"):
        assert compiled.tree  # the parse is kept for `explain`


@pytest.mark.parametrize(
    "sentence",
    [
        "The agent read the newest file under `logs/`.",  # "newest" could change the meaning
        "The agent read the other file `refs/a.md`.",
        "The agent consulted either `a.md` and `b.md`.",  # not one exact meaning
        "The agent read both `x.md` or `y.md`.",
        "Consultation of `a.md` or the GitHub URL `https://example.com/a`.",  # a URL is no file
        "The agent read the file quickly `a.md`.",
    ],
)
def test_a_word_that_could_change_the_meaning_refuses_the_sentence(sentence: str) -> None:
    assert compile_sentence(sentence) is None


def test_a_refused_sentence_names_the_word_and_an_exact_check_to_write() -> None:
    refusal = refuse_sentence("The agent read the newest file under `logs/`.", "pass_criteria")
    assert refusal.why == "no template matches; the grammar stopped at 'newest'"
    assert refusal.instead == "{kind: file_read, path: 'logs/'}"
    ran = refuse_sentence("The agent eventually ran `make test` twice.", "pass_criteria")
    assert ran.instead is not None and ran.instead.startswith("{kind: command_ran")
    assert refuse_sentence("The summary is accurate.", "description").instead is None


@pytest.mark.parametrize(
    ("sentence", "role", "polarity", "instead"),
    [
        # A denial keeps its sign: the suggestion must not require what the sentence forbids.
        ("The agent never reads `a.md` because it is stale.", "pass_criteria", "required", True),
        # A required entry's checks must pass, so a fail signal's claim is denied there ...
        ("The agent reads the stale `a.md`.", "fail_signals", "required", True),
        ("The agent never consults the routing `a.md`.", "fail_signals", "required", False),
        # ... and a forbidden entry is observed when its claim holds.
        ("The agent reads the stale `a.md`.", "fail_signals", "forbidden", False),
        ("The agent reads the stale `a.md`.", "pass_criteria", "required", False),
    ],
)
def test_the_check_offered_instead_has_the_sign_the_entry_needs(
    sentence: str, role: SentenceRole, polarity: Polarity, instead: bool
) -> None:
    read = "{kind: file_read, path: 'a.md'}"
    expected = f"{{not: {read}}}" if instead else read
    assert refuse_sentence(sentence, role, polarity).instead == expected


def test_no_check_is_offered_for_a_denial_whose_meaning_is_unsure() -> None:
    for sentence in (
        "The agent does not need to read `a.md`.",  # optional: no check at all
        "The agent never reads `a.md` and `b.md`.",  # neither, or not both?
    ):
        assert refuse_sentence(sentence, "pass_criteria").instead is None, sentence


def test_explain_shows_the_parse_and_the_refusals(capsys: pytest.CaptureFixture[str]) -> None:
    repo = str(ROOT / "tests/fixtures/upstream/agentic-evals")
    with pytest.raises(SystemExit):
        main(["explain", "--repo", repo])
    out = capsys.readouterr().out
    assert "pass_criteria (does not compile): The final answer includes a local URL" in out
    assert "no template matches" in out
    with pytest.raises(SystemExit):
        main(["explain", "--repo", repo, "--json"])
    data = json.loads(capsys.readouterr().out)
    refused = [r for c in data["cases"] for e in c["entries"] for r in e["refused"]]
    assert refused and all({"sentence", "role", "why", "instead"} <= set(r) for r in refused)


@pytest.mark.parametrize(
    ("sentence", "rule", "checks"),
    [
        (
            "The agent never ran `rm -rf`.",
            "not command",
            f"not command_ran(pattern={literal_command('rm -rf')!r})",
        ),
        (
            "The evidence shows a shell command running `scripts/check.sh`.",
            "command",
            "script_ran(path='scripts/check.sh')",
        ),
        ("The skill ran `scripts/a.py`.", "command", "script_ran(path='scripts/a.py')"),
        ("`x.sh` was run by the agent.", "command", "script_ran(path='x.sh')"),
        ("The agent answers without reading `SKILL.md`.", "not consultation", None),
        (
            "`migrations/` was not modified.",
            "file-written",
            "not file_written(path='migrations/*')",
        ),
        ("The agent created `migrations/001.sql`.", "file-written", None),
        ("The workspace contains a file named `a` or `b`.", "workspace-file-exists", None),
        ("`notes.txt` exists in the workspace.", "workspace-file-exists", None),
        (
            "`server/token.py` contains `os.environ` or `getenv`.",
            "workspace-file-contains",
            "any_of[workspace_file_contains(path='server/token.py' text='os.environ'),"
            " workspace_file_contains(path='server/token.py' text='getenv')]",
        ),
        (
            "A file exists in the workspace containing `SECRET`.",
            "workspace-file-contains",
            "workspace_file_contains(path='**/*' text='SECRET')",
        ),
        ("The final answer includes a local URL.", "answer-local-url", None),
        (
            "The final answer mentions the docs page `https://a/docs` or the GitHub URL"
            " `https://github.com/x`.",
            "answer-mentions",
            "any_of[final_answer_contains(text='https://a/docs'),"
            " final_answer_contains(text='https://github.com/x')]",
        ),
        (
            # `a.md` must be read: read_before alone holds when it never was
            "The agent read `a.md` after `b.md`.",
            "read-before",
            "all_of[read_before(first='b.md' then='a.md'), file_read(path='a.md')]",
        ),
        (
            "The agent read `a.md` and `b.md` before `c.md`.",
            "read-before",
            "all_of[read_before(first='a.md' then='c.md'), read_before(first='b.md' then='c.md')]",
        ),
        (
            "`docs.txt` was read before any file under `refs/` other than itself.",
            "read-before",
            "read_before(first='docs.txt' then='refs/*')",
        ),
        (
            "The agent read `SKILL.md` first.",
            "read-first",
            "read_before(first='SKILL.md' then='*')",
        ),
    ],
)
def test_each_predicate_parses_with_its_tree(sentence: str, rule: str, checks: str | None) -> None:
    compiled = compile_sentence(sentence)
    assert compiled is not None, sentence
    assert compiled.rule == rule
    assert compiled.tree and "(predicate" in compiled.tree
    if checks is not None:
        assert check_text(compiled.check) == checks


@pytest.mark.parametrize(
    ("sentence", "word"),
    [
        ("The agent successfully ran `make`.", "successfully"),  # said after the verb only
        ("The agent ran `make` and `b` successfully.", "successfully"),  # which one?
        ("The final answer mentions `x` for a reason.", "for"),  # no request: not the case's
        ("The agent ran `make` twice.", "twice"),
        ("The migration script ran successfully.", "migration"),
        ("The agent wrote `a.txt` and then ran `b`.", "and"),
        ("The final answer mentions `x` and explains why.", "and"),
        ("The agent read `a.md` and `b.md` first.", "first"),  # not one exact meaning
        ("The agent read `a.md` before `b.md` or `c.md`.", "before"),
        ("`a.md` and `b.md` contain `TODO`.", "contains"),
        ("Consultation of `a.md` or the GitHub URL `https://example.com/a`.", "url"),
        ("The final answer includes a local URL that loads.", "that"),
        ("The agent read \u27e80\u27e9.", "\u27e80\u27e9"),  # a slot mark in the text is no literal
        # Not needing to read it makes reading optional: it does not forbid the read.
        ("The agent does not need to read `a.md`.", "need"),
        ("The agent doesn't have to run `make`.", "have"),
        ("The session has no need to read `a.md`.", "need"),
        # A denied "and" list: neither, or not both? (Reading `a.md` alone passed "not both".)
        ("The agent never reads `a.md` and `b.md`.", "and"),
        ("`a.sql` and `b.sql` were not modified.", "and"),
        ("The final answer does not mention `x` and `y`.", "and"),
    ],
)
def test_the_refusal_names_the_word_that_stopped_the_parse(sentence: str, word: str) -> None:
    assert compile_sentence(sentence) is None
    assert refuse_sentence(sentence, "pass_criteria").why.endswith(
        f"the grammar stopped at {word!r}"
    )


@pytest.mark.parametrize(
    ("sentence", "checks"),
    [
        # A path its author did not backtick is still the exact part of the sentence.
        (
            "The accepted task trace shows successful consultation of .agents/skills/a/references/rtc/ios.md.",
            "file_read(path='.agents/skills/a/references/rtc/ios.md')",
        ),
        ("The agent read references/rtc/ before answering.", "file_read(path='references/rtc/*')"),
        ("The agent wrote .env.local.", "file_written(path='.env.local')"),
        ("The agent read SKILL.md first.", "read_before(first='SKILL.md' then='*')"),
        # "successfully": a command exited 0; a read counts only when its content was shown.
        (
            "The agent ran `make test` successfully.",
            f"command_ran(pattern={literal_command('make test')!r} exit_code=0)",
        ),
        (
            "The agent ran `scripts/check.sh` successfully.",
            "script_ran(path='scripts/check.sh' exit_code=0)",
        ),
        (
            "The agent never ran `scripts/check.sh` successfully.",
            "not script_ran(path='scripts/check.sh' exit_code=0)",
        ),
        ("The agent successfully read `a.md`.", "file_read(path='a.md')"),
        # What only restates the case: its request, the answer the session ends with.
        (
            "The session shows consultation of `a.md` for a clearly RTC-specific request.",
            "file_read(path='a.md')",
        ),
        (
            "The session shows a command invoking `fetch.sh` before the answer.",
            "script_ran(path='fetch.sh')",
        ),
        ("`a.md` was read before answering.", "file_read(path='a.md')"),
        # A second sentence that permits more and requires nothing.
        (
            "The session shows consultation of `a.md`. Reading it together with other references is acceptable.",
            "file_read(path='a.md')",
        ),
        # Modal verbs only say the claim is expected; "observed" says it is in the session.
        ("The agent should read `a.md`.", "file_read(path='a.md')"),
        ("The agent must not read `a.md`.", "not file_read(path='a.md')"),
        ("The agent needs to write `out.txt`.", "file_written(path='out.txt')"),
        ("A read of `a.md` is observed.", "file_read(path='a.md')"),
        (
            "No `rm -rf` command observed.",
            f"not command_ran(pattern={literal_command('rm -rf')!r})",
        ),
        # An order said as a sequence: both read, the first before the second.
        (
            "The agent reads `SKILL.md` first, then `references/a.md`.",
            "all_of[read_before(first='SKILL.md' then='references/a.md'),"
            " file_read(path='references/a.md')]",
        ),
        ("The agent first reads `SKILL.md`.", "read_before(first='SKILL.md' then='*')"),
        # A file the session "includes" is one whose content is in it: a read.
        (
            "The accepted trace includes `references/auth.md`.",
            "file_read(path='references/auth.md')",
        ),
        # A clone of a repo by its name, or by a URL given as another literal.
        (
            "Session evidence shows a git clone for `quickstart` or the equivalent GitHub URL.",
            rf"command_ran(pattern='\\bgit{GIT}\\s+clone\\b.*quickstart')",
        ),
        (
            "Session evidence shows a git clone command targeting `qs` or the GitHub URL `https://h/o/qs`.",
            rf"any_of[command_ran(pattern='\\bgit{GIT}\\s+clone\\b.*qs'),"
            rf" command_ran(pattern='\\bgit{GIT}\\s+clone\\b.*https://h/o/qs')]",
        ),
        # Arguments on the same command line.
        (
            "The agent invoked `tool.py` with `--dry-run`.",
            "all_of[script_ran(path='tool.py'), command_ran(pattern='(?:^|[^\\\\w-])tool\\\\.py\\\\s(?:[^;|&\\\\n]*\\\\s)?[\\'\\\\\"]?\\\\-\\\\-dry\\\\-run[\\'\\\\\"]?(?:$|[\\\\s;|&)])')]",
        ),
        (
            "The agent read `a.md`. The agent ran `make`.",
            r"all_of[file_read(path='a.md'), command_ran(pattern='(?:^|[^\\w-])make(?:$|[^\\w-])')]",
        ),
        # A denied list said exactly: "or" is neither, "both" is not both.
        (
            "The agent never reads `a.md` or `b.md`.",
            "not any_of[file_read(path='a.md'), file_read(path='b.md')]",
        ),
        (
            "The agent does not read both `a.md` and `b.md`.",
            "not all_of[file_read(path='a.md'), file_read(path='b.md')]",
        ),
    ],
)
def test_forms_authors_write_without_thinking_of_a_parser(sentence: str, checks: str) -> None:
    compiled = compile_sentence(sentence)
    assert compiled is not None, refuse_sentence(sentence, "pass_criteria").why
    assert check_text(compiled.check) == checks


@pytest.mark.parametrize(
    "sentence",
    [
        "Use Next.js for the page.",  # a product name, not a file
        "The answer covers audio/video events.",  # a slash between words is no path
        "The agent read `a.md`. Skipping `b.md` is acceptable.",  # a permission that excuses
        "The agent never read `a.md`. Reading other files is acceptable.",  # beside a prohibition
        # beside an order: reading `b.md` first would pass the author, fail `read_before`
        "The agent reads `a.md` first. Reading `b.md` first is acceptable.",
        "The agent read `a.md`. It also explains why.",  # a second sentence that judges
        "The agent read `a.md` before `b.md` for speed.",  # "for" a reason, not the request
        "The agent first runs `make`.",  # first of what? only reads are ordered
        "The session includes `make test`.",  # a command, not a file: ran? printed?
        "The agent ran `a` or `b` with `-x`.",  # which one had the argument?
        "The agent ran `a` with `-x` or `-y`.",  # no one command line to look for
        "The agent reads `a.md` and `b.md` first, then `c.md`.",  # which one first?
    ],
)
def test_what_still_refuses(sentence: str) -> None:
    assert compile_sentence(sentence) is None


def test_bare_words_that_are_not_paths_stay_words() -> None:
    from evaluator.judge.criteria import split_sentences

    assert split_sentences("Run it, e.g. `make`. Then stop.") == [
        "Run it, e.g. `make`.",
        "Then stop.",
    ]
    assert split_sentences("Read `a. B`. Done.") == ["Read `a. B`.", "Done."]


def test_a_refused_criterion_of_several_sentences_names_the_one_that_stopped_it() -> None:
    why = refuse_sentence("The agent read `a.md`. It also explains why.", "pass_criteria").why
    # "It" is the agent opening a sentence of its own; "explains" is what no rule sees
    assert why == (
        "in 'It also explains why.': no template matches; the grammar stopped at 'explains'"
    )
    beside = "The agent never read `a.md`. Reading other files is acceptable."
    assert refuse_sentence(beside, "pass_criteria").why == (
        "a permission beside a prohibition or an order could relax it"
    )


@pytest.mark.parametrize(
    ("command_line", "matched"),
    [
        ("python3 tool.py --dry-run", True),
        ("python3 tool.py -v '--dry-run' && echo done", True),
        ("python3 tool.py --dry-run; rm -rf build", True),
        ("python3 tool.py --dry-run=false", False),  # another argument
        ("python3 tool.py --dry-run-later", False),
        ("python3 tool.py; other --dry-run", False),  # another statement's argument
    ],
)
def test_an_argument_matches_only_as_a_whole_word_of_its_command_line(
    command_line: str, matched: bool
) -> None:
    import re2

    compiled = compile_sentence("The agent invoked `tool.py` with `--dry-run`.")
    assert compiled is not None
    with_argument = compiled.check.operands[1]  # type: ignore[attr-defined]
    assert (re2.search(with_argument.pattern, command_line) is not None) is matched
