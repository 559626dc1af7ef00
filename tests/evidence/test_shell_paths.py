"""Paths a shell command touches, from the tree-sitter-bash parse."""

from __future__ import annotations

import pytest

from evaluator.evidence.shell import analyze_command

WS = "/w/ws"


@pytest.mark.parametrize(
    "command,expected",
    [
        ("cat a.txt", [("read", "/w/ws/a.txt")]),
        ("sed -n '1,2p' f.md", [("read", "/w/ws/f.md")]),
        ("nl -ba f.md | head -n 3", [("read", "/w/ws/f.md")]),
        ("head -n 5 x/y.sql", [("read", "/w/ws/x/y.sql")]),
        ("rg -n hello docs", [("read", "/w/ws/docs")]),
        ("grep -e pat -r src", [("read", "/w/ws/src")]),
        ("find refs -name '*.md'", [("list", "/w/ws/refs")]),
        ("ls", [("list", "/w/ws")]),
        ("cd .. && cat out/s.txt", [("cwd", "/w"), ("read", "/w/out/s.txt")]),
        ("cd sub; cd ..; cat k", [("cwd", "/w/ws/sub"), ("cwd", "/w/ws"), ("read", "/w/ws/k")]),
        (
            "(cd /etc && cat hosts); cat k",
            [("cwd", "/etc"), ("read", "/etc/hosts"), ("read", "/w/ws/k")],
        ),
        (
            "echo x > o.txt 2>> e.log < in.txt",
            # stdout goes to a file: what the command read never reached the agent
            [("write", "/w/ws/o.txt"), ("write", "/w/ws/e.log"), ("metadata", "/w/ws/in.txt")],
        ),
        ("echo x | tee -a ../t.log", [("write", "/w/t.log")]),
        ("cp a b/c", [("read", "/w/ws/a"), ("write", "/w/ws/b/c")]),
        ("mv a /tmp/b", [("write", "/w/ws/a"), ("write", "/tmp/b")]),
        (
            "rm -rf build && mkdir -p out && touch out/x",
            [("write", "/w/ws/build"), ("write", "/w/ws/out"), ("write", "/w/ws/out/x")],
        ),
        ("ln -s /etc link", [("write", "/w/ws/link"), ("metadata", "/etc")]),
        ("git -C / status", [("path", "/")]),
        ("git status", [("path", "/w/ws")]),
        ("tar -C /opt -xf a.tar", [("cwd", "/opt"), ("read", "/w/ws/a.tar"), ("write", "/opt")]),
        ("cat ~/.ssh/id_rsa", [("read", "~/.ssh/id_rsa")]),
        ("cat $HOME/x", [("read", "~/x")]),
        # a glob lists its directory (whatever the command), then the command reads the names
        ("cat refs/*.md", [("list", "/w/ws/refs/*.md"), ("read", "/w/ws/refs/*.md")]),
        ("echo /o/*", [("list", "/o/*")]),
        ("printf '%s' ../[a-z]*", [("list", "/w/[a-z]*")]),
        ("for f in /o/*; do :; done", [("list", "/o/*")]),
        ("d=/o; true $d/?", [("list", "/o/?")]),
        ("echo '/o/*' \"/o/?\" /o/\\*", []),
        # the kernel's doors resolved to what they name
        ("cat /proc/self/root/etc/passwd", [("read", "/etc/passwd")]),
        ("cat /proc/self/root/../../etc/passwd", [("read", "/etc/passwd")]),
        ("cd /proc/self/root/tmp && cat x", [("cwd", "/tmp"), ("read", "/tmp/x")]),
        ("cat /proc/self/cwd/../x", [("read", "/w/x")]),
        ("ls /proc/thread-self/root/", [("list", "/")]),
        ("echo x > /proc/self/root/tmp/x", [("write", "/tmp/x")]),
        ("cat /dev/fd/3/x", [("read", "/proc/self/fd/3/x")]),
        # a program named through a door or `..` is what the name resolves to
        (
            "/proc/self/root/bin/sh -c 'cat /etc/passwd'",
            [("exec", "/bin/sh"), ("read", "/etc/passwd")],
        ),
        ("/tmp/../bin/sh -c 'cat k'", [("exec", "/bin/sh"), ("read", "/w/ws/k")]),
        ("echo a/b | column -t -s /", []),
        # running a script is not reading it: its text never reached the agent
        ("python3 scripts/new.py slug", [("exec", "/w/ws/scripts/new.py")]),
        ("bash scripts/fetch.sh", [("exec", "/w/ws/scripts/fetch.sh")]),
        ("node tools/x.js", [("exec", "/w/ws/tools/x.js")]),
        (". ./env.sh", [("exec", "/w/ws/env.sh")]),
        ("uv run scripts/x.py", [("exec", "/w/ws/scripts/x.py")]),
        ("uv run --with rich -p 3.11 scripts/x.py", [("exec", "/w/ws/scripts/x.py")]),
        ("uv run --env-file ../.env python3 a.py", [("read", "/w/.env"), ("exec", "/w/ws/a.py")]),
        (
            "uv run --directory sub ./t.sh; cat y",
            [("cwd", "/w/ws/sub"), ("exec", "/w/ws/sub/t.sh"), ("read", "/w/ws/y")],
        ),
        ("bash -c 'cat /etc/passwd'", [("read", "/etc/passwd")]),
        ("sed -i 's/a/b/' f.txt", [("write", "/w/ws/f.txt")]),
        ("env FOO=1 cat z", [("read", "/w/ws/z")]),
        ('x=$(cat q); echo "$x"', [("read", "/w/ws/q")]),
        ('read -r p; echo "$p" $HOME', []),  # quoted, and the environment is ours
        ("echo ${arr[0]} ${#arr[@]} ${X#*/} $# $?", []),  # subscripts and patterns add no glob
        ("./run.sh --out ../o", [("exec", "/w/ws/run.sh"), ("path", "/w/o")]),
        ("echo hi 2>&1 >/dev/null", [("write", "/dev/null")]),
    ],
)
def test_paths(command: str, expected: list[tuple[str, str]]) -> None:
    result = analyze_command(command, WS)
    assert [(a.kind, a.path) for a in result.accesses] == expected
    assert result.opaque == []


@pytest.mark.parametrize(
    "command,reason",
    [
        ("python3 -c 'open(x)'", "computed path"),
        ("node -e 'x'", "inline code"),
        ('eval "$CMD"', "eval"),
        ('sh -c "$VAR"', "computed"),
        ("cat $FILE", "computed path"),
        ("ls | xargs cat", "xargs"),
        ("find . -exec $CMD {} \\;", "computed command"),
        ("cd $DIR", "cd to a computed directory"),
        ("uv pip install x", "uv other than `uv run`"),
        ("echo > $OUT", "computed path"),
        # an unquoted expansion of something computed may carry a glob into the word
        ("x=$(cat q); echo $x", "glob over a computed path"),
        ("read p; printf '%s' $p", "glob over a computed path"),
        ("echo $(cat q)", "glob over a computed path"),
        ("echo ${X:-/etc/*}", "glob over a computed path"),
        ("echo $UNKNOWN/*", "glob over a computed path"),
        ("echo ${X/a/*}", "glob over a computed path"),
        ("echo $1 $@", "glob over a computed path"),  # a script's arguments
    ],
)
def test_opaque_constructs(command: str, reason: str) -> None:
    result = analyze_command(command, WS)
    assert any(reason in r for r in result.opaque), result.opaque


def test_home_expands_when_known() -> None:
    result = analyze_command("cat ~/notes", WS, home="/var/h")
    assert [(a.kind, a.path) for a in result.accesses] == [("read", "/var/h/notes")]


@pytest.mark.parametrize(
    "code",
    [
        # red team, round 2: Python that reached a file the analysis did not see
        'import sys; sys.path.insert(0, "lib"); import helper',
        'import sys as s; s.path.append("lib"); import helper',
        'from sys import path; path.append("lib")',
        'import site; site.addsitedir("lib")',
        'f = open; print(f(chr(47) + "etc/hostname").read())',
        'import os; s = os.system; s("true")',
        'from os import system as run_it; run_it("true")',
        'from subprocess import run as r; r(["cat", chr(47) + "etc/hostname"])',
        'from pathlib import Path as P; print(P(chr(47) + "etc").exists())',
        'print(list(map(open, ["x"])))',
        'import linecache; print(linecache.getline(chr(47) + "etc/hostname", 1))',
        'import urllib.request; urllib.request.urlopen("file://" + chr(47) + "etc/hostname")',
        'import fileinput; p = "".join(["/e", "tc/hostname"]); print(list(fileinput.input(p)))',
        'import tarfile; tarfile.open("o.tar", "w").add(chr(47) + "etc")',
        'import filecmp; filecmp.cmp(bytes([47]).decode() + "etc/hostname", "x")',
        'p = open("p.txt").read().strip(); import zipfile; zipfile.ZipFile(p)',
        "print([c for c in ().__class__.__base__.__subclasses__()])",
        'import pickle; pickle.loads(open("x.pkl", "rb").read())',
    ],
)
def test_python_that_hides_what_it_reaches_is_opaque(code: str) -> None:
    analysis = analyze_command(f"python3 - <<'EOF'\n{code}\nEOF", "/w/ws")
    assert analysis.opaque, code


@pytest.mark.parametrize(
    "code",
    [
        'import json; d = json.load(open("data.json")); print(json.dumps(d, indent=2))',
        'name = "users_" + "email"; print(f"migrations/{name}.sql")',
        'import sys; print(sys.path); sys.stdout.write("a" + "\\n")',
        'import re; print(re.sub(r"\\s+", " ", open("SKILL.md").read())[:200])',
        'import uuid; print("id-" + str(uuid.uuid4()))',
        'import sqlite3; c = sqlite3.connect("app.db"); c.execute("CREATE TABLE " + "t (x)")',
    ],
)
def test_plain_python_stays_understood(code: str) -> None:
    analysis = analyze_command(f"python3 - <<'EOF'\n{code}\nEOF", "/w/ws")
    assert analysis.opaque == [], code


@pytest.mark.parametrize(
    "command,access",
    [
        ("curl -s -b /o/cookies http://127.0.0.1:9/", ("read", "/o/cookies")),
        ("pytest --basetemp=/o/t tests", ("path", "/o/t")),
        ("python3 -m pytest -o cache_dir=/o/c", ("path", "/o/c")),
    ],
)
def test_files_named_by_option_values(command: str, access: tuple[str, str]) -> None:
    """Red team, round 2: a cookie file, a pytest base or cache directory went unseen."""
    analysis = analyze_command(command, "/w/ws")
    assert access in [(a.kind, a.path) for a in analysis.accesses]


def test_awk_that_changes_its_arguments_is_opaque() -> None:
    analysis = analyze_command("awk 'BEGIN { ARGV[1] = \"/o/x\"; ARGC = 2 } { print }'", "/w")
    assert analysis.opaque
    assert analyze_command("awk -F/ '{ print $2 }' notes.txt", "/w").opaque == []


@pytest.mark.parametrize(
    "command,expected",
    [
        # A double-quoted program with quotes escaped inside (real skills, round 11: an agent's
        # `python3 -c "...duckdb.sql(\"DESCRIBE ...\")"`): on `main` the backslashes stayed, the
        # program did not parse and the command was opaque.
        ('python3 -c "print(\\"hi\\")"', []),
        (
            'python3 -c "open(\\"/etc/passwd\\")"',
            [("read", "/etc/passwd"), ("path", "/etc/passwd")],
        ),
        ('echo x > "a\\"b.txt"', [("write", '/w/ws/a"b.txt')]),
        (
            'cat "a\\$b" "a\\\\b" "a\\`b"',
            [("read", "/w/ws/a$b"), ("read", "/w/ws/a\\b"), ("read", "/w/ws/a`b")],
        ),
        ('cat "a\\\nb"', [("read", "/w/ws/ab")]),  # a line continuation: both go
        # before any other character the backslash is itself, as bash keeps it
        ('cat "/etc/pa\\sswd" "n\\n"', [("read", "/etc/pa\\sswd"), ("read", "/w/ws/n\\n")]),
        ("cat 'a\\\"b'", [("read", '/w/ws/a\\"b')]),  # single quotes: nothing escapes
    ],
)
def test_a_double_quoted_words_escapes_are_removed_as_bash_removes_them(
    command: str, expected: list[tuple[str, str]]
) -> None:
    analysis = analyze_command(command, WS)
    assert not analysis.opaque, analysis.opaque
    assert [(a.kind, a.path) for a in analysis.accesses] == expected
