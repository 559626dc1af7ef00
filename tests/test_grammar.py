"""The criteria grammar: consultation sentences the templates miss, every word accounted for."""

from __future__ import annotations

import pytest

from evaluator.judge.criteria import check_text, compile_sentence


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
