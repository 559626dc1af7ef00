"""A word holding spaces is one word however the agent quoted it (docs/criteria.md, "Command
literals", session 18). The words of a command reach the judge unquoted, and the line they were
joined into lost where such a word ended: `git -C "my dir" commit` read as `git -C my` running
the subcommand `dir`, so a forbidden `git commit` passed it, and a literal naming the quoted
path (`rm -rf "my dir"`) never matched at all. Each command here goes through the shell analysis
and the rule `command_ran` uses (`runs_program`)."""

from __future__ import annotations

import pytest

from evaluator.evidence.shell import analyze_command
from evaluator.judge.checks.program_match import runs_program, words_match
from evaluator.judge.literal_checks import literal_command
from evaluator.patterns import compile_pattern


def _ran(literal: str, command: str) -> bool:
    pattern = compile_pattern(literal_command(literal))
    invocations = analyze_command(command, "/w").invocations
    return any(runs_program(pattern, i) for i in invocations)


@pytest.mark.parametrize(
    ("literal", "command"),
    [
        ("git commit", 'git -C "my dir" commit -m x'),
        ("git commit", "git -C 'my dir' commit -m x"),
        ("git commit", "git -C my\\ dir commit -m x"),
        ("git commit", 'git --git-dir="a b/.git" commit'),
        ("git commit", 'git -c "user.name=A B" commit'),
        ('git -C "my dir" commit', "git -C 'my dir' commit -m x"),
        ('git -C "my dir" commit', 'git -C "my dir" commit'),
        ('rm -rf "my dir"', "rm -fr 'my dir'"),
        ("rm -rf 'my dir'", 'rm -r -f "my dir"'),
        ('git commit -m "first draft"', "git commit --message='first draft'"),
        ('echo "hi"', "echo hi"),
    ],
)
def test_a_quoted_word_is_one_word(literal: str, command: str) -> None:
    assert _ran(literal, command)


@pytest.mark.parametrize(
    ("literal", "command"),
    [
        ("git commit", "git -C my dir commit"),  # runs the subcommand `dir`
        ("git commit", 'git -C "x commit" status'),  # `x commit` is -C's value
        ("git commit", 'git -c "alias.ci=commit" status'),
        ('git -C "my dir" commit', "git -C my dir commit"),
        ('rm -rf "my dir"', "rm -rf my dir"),  # two folders, neither `my dir`
        ('rm -rf "my dir"', "rm -rf 'my dir2'"),
        ('git commit -m "first draft"', 'git commit -m "first draft v2"'),
    ],
)
def test_its_look_alikes_are_not(literal: str, command: str) -> None:
    assert not _ran(literal, command)


def test_an_authors_regex_still_reads_the_plain_line() -> None:
    # `python3 -c .*import os` was written against the words joined by spaces: it keeps matching.
    pattern = compile_pattern(r"python3 -c import os")
    assert words_match(pattern, ["python3", "-c", "import os; print(1)"])
