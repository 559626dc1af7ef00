"""The criteria grammar: consultation sentences the templates miss, every word accounted for."""

from __future__ import annotations

import json

import pytest

from evaluator.cli.main import main
from evaluator.judge.criteria import check_text, compile_sentence, refuse_sentence
from tests.conftest import ROOT


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
