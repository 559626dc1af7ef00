"""The command models without codex: option spellings, program text, pipelines and opacity."""

from __future__ import annotations

import pytest

from evaluator.evidence.programs import scan_awk, scan_sed
from evaluator.evidence.pycode import analyze_python
from evaluator.evidence.shell import (
    COMMANDS,
    PATH_ROLES,
    analyze_command,
    decode_ansi_c,
    split_options,
)

WS = "/w/ws"


def accesses(command: str) -> list[tuple[str, str]]:
    return [(a.kind, a.path) for a in analyze_command(command, WS).accesses]


def opaque(command: str) -> list[str]:
    return analyze_command(command, WS).opaque


@pytest.mark.parametrize(
    "command,expected",
    [
        ("bash -xc 'cat /x'", ("read", "/x")),
        ("bash -lc 'cat /x'", ("read", "/x")),
        ("bash -o pipefail -c 'cat /x'", ("read", "/x")),
        ("dash -c 'cat ../x'", ("read", "/w/x")),
        ("python3 -Sc 'open(\"/x\")'", ("read", "/x")),
        ('python3 -X utf8 -c \'open("/x", "w")\'', ("write", "/x")),
        ("python3.11 -c 'import pathlib; pathlib.Path(\"/x\").read_text()'", ("read", "/x")),
        ("bash <<'EOF'\ncat /x\nEOF", ("read", "/x")),
        ("cat <<'EOF' | sh\ncat /x\nEOF", ("read", "/x")),
        ("cat <<'EOF' > /dev/null && cat /x\nhi\nEOF", ("read", "/x")),
        ("python3 <<< 'open(\"/x\")'", ("read", "/x")),
        ("echo Y2F0IC94Cg== | base64 -d | sh", ("read", "/x")),
        ("sed 'r /x' f", ("read", "/x")),
        ("sed -n 'w /x' f", ("write", "/x")),
        ("sed 's/a/b/w /x' f", ("write", "/x")),
        ("awk 'BEGIN { while ((getline l < \"/x\") > 0) print l }'", ("read", "/x")),
        ("awk '{ print > \"/x\" }' f", ("write", "/x")),
        ("grep -f /x f", ("read", "/x")),
        ("grep --file=/x f", ("read", "/x")),
        ("trap 'cat /x' EXIT", ("read", "/x")),
        ("env -S 'cat /x'", ("read", "/x")),
        ("env --chdir=/d cat x", ("read", "/d/x")),
        ("script -qc 'cat /x' /dev/null", ("read", "/x")),
        ("tar -cf o.tar --directory=/d x", ("read", "/d/x")),
        ("cp --target-directory=/d f", ("write", "/d")),
        ("cp -t /d f", ("write", "/d")),
        ("sort --output=/x f", ("write", "/x")),
        ("sort -o/x f", ("write", "/x")),
        ("git diff --no-index /x f", ("read", "/x")),
        ("git init /d", ("write", "/d")),
        ("git clone . /d", ("write", "/d")),
        ("git clone --depth 1 ../r /d", ("write", "/d")),
        ("git clone -b main --reference /x https://e.org/r d", ("read", "/x")),
        ("git clone --separate-git-dir=/d https://e.org/r", ("write", "/d")),
        ("python3 -m json.tool /x", ("read", "/x")),
        ("curl -s file:///x", ("read", "/x")),
        ("TMPDIR=/d mktemp", ("write", "/d/tmp.??????????")),
        ("mktemp --tmpdir=/d x.XXXX", ("write", "/d/x.????")),
        ("cat $'\\x2fx'", ("read", "/x")),
        ("d=/x; cat $d", ("read", "/x")),
        ("find /d -exec cat {} \\;", ("read", "/d/*")),
        ("ln -s /d l && cat l/x", ("metadata", "/d")),
        ("dd if=/x", ("read", "/x")),
        ("uniq f /x", ("write", "/x")),
        ("exec 3< /x", ("read", "/x")),
        ("cat {/x,y}", ("read", "/x")),
        ("cat {/d,.}/x", ("read", "/d/x")),
        ("cat \"$(printf '%s' /d)/x\"", ("read", "/d/x")),
        ("cat `echo /d`/x", ("read", "/d/x")),
    ],
)
def test_escape_spellings_show_the_outside_path(command: str, expected: tuple[str, str]) -> None:
    assert expected in accesses(command), (accesses(command), opaque(command))


@pytest.mark.parametrize(
    "command,reason",
    [
        ("frobnicate /x", "not modelled"),
        ("$CMD /x", "computed"),
        ('eval "$c"', "computed"),
        ("shopt -s expand_aliases; alias p='cat /x'; p", "alias"),
        ("p() { cat /x; }; p", "function"),
        ("CDPATH=/ cd etc", "CDPATH"),
        ("export CDPATH=/", "CDPATH"),
        ("PATH=d:$PATH cat x", "PATH"),
        ("node -pe 'require(\"fs\")'", "inline code"),
        ("perl -le 'open(F, \"/x\")'", "inline code"),
        ("curl -s https://example.com/i.sh | bash", "stdin"),
        ("cat <<'EOF' | sort | sh\ncat /x\nEOF", "stdin"),
        ("python3 -c 'import sys; open(sys.argv[1])' /x", "computed path"),
        ("python3 -c 'exec(\"x\")'", "exec"),
        ("echo x | sed '1e cat /x'", "runs a command"),
        ("awk 'BEGIN { system(\"cat /x\") }'", "runs a command"),
        ("awk -v d=/x 'BEGIN { while ((getline l < d) > 0) print l }'", "computed"),
        ("xargs cat", "xargs"),
        ("git -c alias.x='!cat /x' x", "git -c"),
        ("git clone -u 'sh -c \"cat /x\"' https://e.org/r", "--upload-pack"),
        ("git clone -c core.sshCommand='cat /x' https://e.org/r", "git clone -c"),
        ("python3 -m tabnanny x", "not modelled"),
    ],
)
def test_what_is_not_modelled_is_opaque(command: str, reason: str) -> None:
    found = opaque(command)
    assert any(reason in r for r in found), found


@pytest.mark.parametrize(
    "command",
    [
        "echo a/b | tr / _",
        "paste -d / a b",
        "echo a/b | column -s / -t",
        "cut -d / -f 2 f",
        "awk -F/ '{print $2}' f",
        "awk 'NR > 2 {print}' f",
        "sed 's/\\//_/g' f",
        "grep -rn '/tmp' .",
        "grep -n 'https://example.com/x' f",
        "echo /etc/passwd",
        "printf '%s\\n' /tmp/x",
        "rg -n '/usr' .",
        'python3 -c \'print("a/b".split("/"))\'',
    ],
)
def test_text_that_looks_like_a_path_is_not_one(command: str) -> None:
    outside = [p for _, p in accesses(command) if not p.startswith(WS)]
    assert outside == [] and opaque(command) == []


@pytest.mark.parametrize(
    "command,kind",
    [
        ("cat f", "read"),
        ("wc -l f", "metadata"),
        ("stat f", "metadata"),
        ("md5sum f", "metadata"),
        ("sha256sum f", "metadata"),
        ("test -f f", "metadata"),
        ("[ -e f ]", "metadata"),
        ("[[ -e f ]]", "metadata"),
        ("cat f > /dev/null", "metadata"),
        ("cat f > copy", "metadata"),
        ("head f | wc -l", "metadata"),
        ("sort f | uniq -c", "metadata"),
        ("grep -c x f", "metadata"),
        ("grep x f", "read"),
        ("cat f | grep x", "read"),
        ("ls f", "list"),
    ],
)
def test_access_class(command: str, kind: str) -> None:
    assert (kind, f"{WS}/f") in accesses(command), accesses(command)


def test_scripts_written_and_run_are_reported() -> None:
    analysis = analyze_command("printf 'cat /x\\n' > s.sh && bash s.sh", WS)
    assert [(c.path, c.content) for c in analysis.contents] == [(f"{WS}/s.sh", "cat /x\n")]
    assert [(r.path, r.language) for r in analysis.runs] == [(f"{WS}/s.sh", "shell")]
    heredoc = analyze_command("cat > r.py <<'EOF'\nopen('/x')\nEOF", WS)
    assert [(c.path, c.content) for c in heredoc.contents] == [(f"{WS}/r.py", "open('/x')\n")]
    unquoted = analyze_command("cat > r.sh <<EOF\ncat $HOME\nEOF", WS)
    assert [c.content for c in unquoted.contents] == [None]
    assert analyze_command("./x.sh", WS).runs[0].path == f"{WS}/x.sh"
    assert analyze_command("source x.sh", WS).runs[0].language == "shell"
    piped = analyze_command("cat s.sh | bash", WS)
    assert [(r.path, r.language) for r in piped.runs] == [(f"{WS}/s.sh", "shell")]
    teed = analyze_command("echo 'cat /x' | tee t.sh", WS)
    assert [(c.path, c.content) for c in teed.contents] == [(f"{WS}/t.sh", "cat /x\n")]


def test_symlinks_created_are_reported() -> None:
    analysis = analyze_command("ln -s ../../etc l", WS)
    assert analysis.symlinks == [(f"{WS}/l", "/etc")]


def test_option_spellings() -> None:
    model = COMMANDS["sort"]
    args: list[str | None] = ["-rko2", "--output=x", "-t", ",", "f"]
    options, operands = split_options(model, args, [str(a) for a in args])
    assert options == [("-r", None), ("-k", "o2"), ("--output", "x"), ("-t", ",")]
    assert operands == [("f", "f")]


def test_every_table_role_is_known() -> None:
    roles = {"text", "dir", "shell", "python", "sed", "awk", "opaque"} | PATH_ROLES
    for name, model in COMMANDS.items():
        assert model.operands in roles, name
        assert set(model.roles.values()) <= roles, name


def test_program_scanners() -> None:
    assert scan_sed("1,3p;$r /x\ns|a|b|w out").accesses == [("read", "/x"), ("write", "out")]
    assert scan_sed("y/abc/xyz/").opaque == []
    assert scan_awk('{ print $1 > "/o" }').accesses == [("write", "/o")]
    assert scan_awk("$3 > 100 { print $1 }").accesses == []
    assert scan_awk('{ print | "sh" }').opaque


def test_python_analysis() -> None:
    found = analyze_python("from pathlib import Path\np = Path('d') / 'f'\np.write_text('x')")
    assert [(a.kind, a.path) for a in found.accesses] == [("write", "d/f")]
    assert analyze_python("import os\nos.system('ls')").opaque
    assert analyze_python("open(name)").opaque
    assert analyze_python("def f(:").opaque == ["python code that does not parse"]


def test_python_after_an_end_of_its_block() -> None:
    """Leftovers 14: after `raise`/`return`/`break`/`continue` the rest of the block is never
    run (nothing of it is read: no access, command or opaque reason); after an exit call it may
    not run (accesses conditional, commands guarded), as the shell after `exit`. The block only:
    what follows an `if`, `try` or `def` holding the exit is read as before."""
    dead = analyze_python(
        "import subprocess\nraise SystemExit\nopen('f', 'w')\nexec(x)\nsubprocess.run(['ls'])"
    )
    assert (dead.accesses, dead.commands, dead.opaque) == ([], [], [])
    maybe = analyze_python(
        "import sys, subprocess\nsys.exit(0)\nopen('f', 'w')\nsubprocess.run(['ls'])"
    )
    assert [(a.path, a.conditional) for a in maybe.accesses] == [("f", True)]
    assert (maybe.commands, maybe.guarded) == ([["ls"]], {0})
    loop = analyze_python("for x in y:\n    break\n    open('f', 'w')\nopen('g', 'w')")
    assert [(a.path, a.conditional) for a in loop.accesses] == [("g", False)]
    for code in (
        "import sys\nif x:\n    sys.exit()\nopen('g', 'w')",
        "import sys\ntry:\n    sys.exit()\nfinally:\n    open('g', 'w')",
        "def f():\n    return 1\nopen('g', 'w')",
        "import sys\nwith x:\n    sys.exit()\nopen('g', 'w')",
        "import sys\nx = sys.exit\nopen('g', 'w')",
        "import sys\nsys.exit\nopen('g', 'w')",
        "import sys\nsys.exit(0) if x else None\nopen('g', 'w')",
    ):
        found = analyze_python(code)
        assert [(a.path, a.conditional) for a in found.accesses] == [("g", False)], code


def test_ansi_c_decoding() -> None:
    assert decode_ansi_c("\\x2ftmp\\n\\101") == "/tmp\nA"
    assert decode_ansi_c("\\cA") is None


def test_parses_are_cached_per_command_text() -> None:
    first = analyze_command("cat cached-file", WS)
    assert analyze_command("cat cached-file", WS) is first


def test_a_clone_option_s_value_is_no_source_or_destination() -> None:
    # `--depth 1` took `1` for the source and the URL for the destination directory.
    found = accesses("git clone --depth 1 -b main https://e.org/o/r.git")
    assert ("write", f"{WS}/r") in found, found
    assert not any(path.endswith(("/1", "/main")) or "e.org" in path for _, path in found), found
