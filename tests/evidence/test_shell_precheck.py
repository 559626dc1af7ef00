"""The lexical pre-check (a command of plain words skips the parse) gives what the parse gives."""

from __future__ import annotations

import random

import pytest

from benchmarks.evidence_digest import fixture_sessions, known_commands
from evaluator.evidence.shell.results import ShellAnalysis
from evaluator.evidence.shell.walker import (
    Walker,
    lexical_program,
    parse,
    simple_command,
    walk,
)

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


# The wider lexical path: quoted words, pipelines, `&&` chains.
LEXICAL = [
    "sed -n '1,200p' src/a.py",
    'rg -n "def handle|class Item" src tests',
    "nl -ba a.py | sed -n '4,83p'",
    "find . -name '*.py' -path '*pkg7*' | head -50",
    "rg --files src | grep -E 'module_13[0-9]*\\.py$' | sort",
    'cd src && python3 -c "import m; print(m.__doc__)"',
    "mkdir -p out && cp a.py out/ && cat out/a.py",
    "echo L2V0Yy9wYXNzd2Q= | base64 -d | sh",
    "cat /etc/passwd|wc -l",
    "sed 'w /tmp/x' a",
    "git status --short && git diff",
    "echo '$HOME' \"{a,b}\" '*'",
    "python -m pytest tests/t.py -q 2>&1 | tail -30",
    "grep -rn TODO src/ 2>/dev/null | head -20",
    "echo cat /etc/passwd 2>&1 | sh",
    "cat /etc/passwd 2>/dev/null | python3",
    "cd sub 2>/dev/null && cat a",
    "wc -l src/*.py && head -n 40 src/a.py",
    "ls -d /etc/*/ | sort",
    "cat a?c '*.md' \"?\"",
    "cat a; cat b",
    "cd sub; ls -la && cat a; cat a | wc -l",
    "mkdir -p o && cp a o/; python3 o/a; ls o | sort",
    "echo x | sh; cat b && cat c",
]
NOT_LEXICAL = [
    "'cat' a",
    "cat a'b'",
    'cat "a"b',
    'echo "$HOME"',
    'echo "a\\b"',
    'echo "a!b"',
    "cat a || cat b",
    "cat a;",
    "; cat a",
    "cat a;; cat b",
    "set -e; cat a",
    "cat a; exit 1",
    "cat a\n\ncat b",
    "cat a\ncat b",
    "sh -rn *\ngrep x",
    "cat a | wc && ls; cat b",
    "cat a | wc && ls",
    "cat a &",
    "cat a 2>&1 b",
    "cat a 2>&1 2>/dev/null",
    "cat a 2>&1x",
    "cat a2>&1",
    "2>&1 cat a",
    "cat a 2>/dev/nullx",
    "cat a >/dev/null",
    "cat a 1>&2",
    "cat a && exit 1",
    "exec cat a | wc",
    "cat a |",
    "| cat a",
    "cat 'a",
    "echo 'caf\u00e9'",
    "time cat a | wc",
    "echo '\ta'",
    "ls [ab].py",
    "*.py x",
]


@pytest.mark.parametrize("code", LEXICAL)
def test_lexical_programs_skip_the_parse_with_the_same_result(code: str) -> None:
    assert simple_command(code) is None and lexical_program(code) is not None
    assert walk(code, CWD, HOME, 0) == _parsed(code)
    assert walk(code, CWD, HOME, 0, lexical=False) == _parsed(code)


@pytest.mark.parametrize("code", NOT_LEXICAL)
def test_other_programs_are_parsed(code: str) -> None:
    assert lexical_program(code) is None


def test_every_known_command_walks_alike_either_way() -> None:
    """The isolation corpus, the fixture sessions and the tests' command strings."""
    commands = known_commands(fixture_sessions())
    lexical = 0
    for code in commands:
        lexical += lexical_program(code) is not None
        for home in (HOME, None):
            assert walk(code, CWD, home, 0) == walk(code, CWD, home, 0, lexical=False), code
    assert len(commands) > 500 and lexical > 50


_NAMES = [
    "cat",
    "sed",
    "rg",
    "grep",
    "head",
    "tail",
    "sort",
    "wc",
    "find",
    "ls",
    "git",
    "cd",
    "python3",
    "bash",
    "sh",
    "echo",
    "printf",
    "base64",
    "cp",
    "mv",
    "rm",
    "mkdir",
    "touch",
    "tee",
    "xargs",
    "env",
    "timeout",
    "nl",
    "awk",
    "exec",
    "exit",
    "time",
    "eval",
    "source",
    ".",
    "alias",
    "hash",
    "frob",
    "/bin/cat",
    "./run.sh",
    "pushd",
    "popd",
    "export",
    "read",
    "test",
]
_PLAIN_ARGS = [
    "-n",
    "-c",
    "-d",
    "--decode",
    "-la",
    "-rn",
    "/etc/passwd",
    "../x",
    "a/b.txt",
    "1,20p",
    "-e",
    "--",
    "-o",
    "out.txt",
    "-exec",
    "x=1",
    "10",
    "-i",
    "-p",
    "-w",
    "sub",
    "/tmp/o",
    "-s",
    ".",
    "..",
    "-f",
    "s/a/b/",
    "-C",
    "--output=/tmp/x",
    "*.py",
    "src/*.md",
    "a?c",
    "*",
    "-*",
    "--include=*.py",
    "**/x",
    "x*y?z",
    "/etc/*",
    "?",
    "*=x",
    "1,2*",
    "/*/passwd",
]
_QUOTED_ARGS = [
    "'1,200p'",
    "'w /tmp/out'",
    '"s/a/b/"',
    "'*.py'",
    '"a b"',
    "'$HOME'",
    "\"import os; print(open('/etc/passwd').read())\"",
    "'cat /etc/shadow'",
    '"cat /etc/passwd"',
    "''",
    '""',
    "'{a,b}'",
    '"x{a,b}"',
    "'a\"b'",
    '"a\'b"',
    '"L2V0Yy9wYXNzd2Q="',
    "'#x'",
    '"~/x"',
    "'-'",
    '"--"',
    "'a|b'",
    '"a && b"',
    "'s/x/y/w /tmp/w'",
    '"/etc/hosts"',
]


_REDIRECTS = ["2>&1", "2>/dev/null", "2>&1", "2>/dev/null", ">/dev/null", "2>/tmp/e", "1>&2"]


def test_generated_programs_walk_alike_either_way() -> None:
    """Thousands of programs of plain and quoted words, pipes and `&&` (and look-alikes the
    lexical path must leave to the parse): the same analysis from both walks."""
    generator = random.Random(11)
    operators = [" | ", "|", " && ", "&&", " || ", "; ", " |  ", ";", "\n", " ; "]
    lexical = 0
    for _ in range(6000):
        commands = []
        for _ in range(generator.choice((1, 1, 2, 2, 3, 4))):
            words = [generator.choice(_NAMES)]
            for _ in range(generator.randint(0, 4)):
                pool = _QUOTED_ARGS if generator.random() < 0.4 else _PLAIN_ARGS
                words.append(generator.choice(pool))
            if generator.random() < 0.3:
                words.insert(generator.randint(1, len(words)), generator.choice(_REDIRECTS))
            commands.append(generator.choice((" ", "  ", "\t")).join(words))
        if generator.random() < 0.5:  # one operator throughout, or one per join
            code = generator.choice(operators).join(commands)
        else:
            code = commands[0]
            for command in commands[1:]:
                code += generator.choice(operators) + command
        if generator.random() < 0.1:
            code = f" {code}\t"
        lexical += lexical_program(code) is not None
        for home in (HOME, None):
            assert walk(code, CWD, home, 0) == walk(code, CWD, home, 0, lexical=False), code
    assert lexical > 2000
