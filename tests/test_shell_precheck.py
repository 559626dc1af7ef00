"""The lexical pre-check (a command of plain words skips the parse) gives what the parse gives."""

from __future__ import annotations

import random

import pytest

from evaluator.evidence.shell.results import ShellAnalysis
from evaluator.evidence.shell.walker import Walker, parse, simple_command, walk

CWD, HOME = "/w/ws", "/home/u"
PLAIN = [
    "cat notes/a.md",
    "ls -la",
    "ls",
    "pwd",
    "cd sub",
    "git status",
    "git -C ../other log",
    "sed -n 1,20p file.txt",
    "head -n 5 /etc/passwd",
    "grep -rn foo .",
    "echo done",
    "echo --x=/etc/y",
    "python3 scripts/run.py ../x",
    "python3.12 -m json.tool a.json out.json",
    "bash run.sh",
    "timeout 5 cat /etc/hosts",
    "env -C /tmp ls",
    "dd if=/etc/a of=b",
    "tar xzf a.tar -C /tmp",
    "ln -s ../../etc l",
    "./tool.sh a/b",
    "/bin/cat x",
    "frobnicate --x",
    "rm -rf build",
    "find . -name x.py -delete",
    "curl -o out https://example.com/x",
    "chmod 755 run.sh",
]
NOT_PLAIN = [
    "cat 'a b'",
    "ls *.py",
    "cat ~/x",
    "echo $HOME",
    "cat a | wc -l",
    "cat a > b",
    "x=1 cat a",
    "a=b",
    "if true",
    "time cat a",
    "export PATH",
    "unset x",
    "[ -f x ]",
    "echo {a,b}",
    "echo a # comment",
    "cat a\ncat b",
    "echo =x",
    "echo @x",
    "1+: x",
    "-x a",
    "",
]


def _parsed(code: str) -> ShellAnalysis:
    """The analysis through the full parse, as for a command the pre-check does not pass."""
    result = ShellAnalysis(final_cwd=CWD)
    walker = Walker(result, HOME, 0)
    walker.cwd = CWD
    tree = parse(code)
    if tree.root_node.has_error:
        result.opaque.append("the command does not parse as bash")
    walker.statements(tree.root_node)
    result.final_cwd = walker.cwd
    return result


@pytest.mark.parametrize("code", PLAIN)
def test_plain_commands_skip_the_parse_with_the_same_result(code: str) -> None:
    assert simple_command(code) is not None
    assert walk(code, CWD, HOME, 0) == _parsed(code)


@pytest.mark.parametrize("code", NOT_PLAIN)
def test_other_commands_are_parsed(code: str) -> None:
    assert simple_command(code) is None


def test_random_plain_words_agree_with_the_parse() -> None:
    """Words made of the characters the pre-check accepts, in every position: tree-sitter-bash
    reads some of them as syntax (`=x`, `4+:x`), which the pre-check must leave to the parse."""
    generator = random.Random(24)
    alphabet = "abcxyzABC0189_./:+,=-"
    firsts = ["cat", "git", "cd", "echo", "ls", "env", "timeout", "python3", ".", "fi", "-", "1"]
    checked = 0
    for _ in range(3000):
        words = [
            generator.choice(firsts)
            if generator.random() < 0.6
            else "".join(generator.choice(alphabet) for _ in range(generator.randint(1, 5)))
        ]
        words += [
            "".join(generator.choice(alphabet) for _ in range(generator.randint(1, 6)))
            for _ in range(generator.randint(0, 4))
        ]
        code = generator.choice([" ", "  ", "\t"]).join(words)
        if simple_command(code) is None:
            continue
        checked += 1
        assert walk(code, CWD, HOME, 0) == _parsed(code), code
    assert checked > 500
