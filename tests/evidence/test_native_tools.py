"""The C compiler drivers and the binutils that read a binary (docs/evidence-access.md's command
table). Round 12 of real skills: a skill that reverse engineers a binary has the agent build it
with `gcc -O0 -g -o app app.c` and list it with `nm`; neither was modelled, so each call was
opaque (an untraced attempt `unverifiable`, a pass `blocked`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluator.evidence.builder import EvidenceBuilder
from evaluator.evidence.shell import analyze_command

WS = "/w/ws"


def _accesses(command: str) -> tuple[list[tuple[str, str]], list[str]]:
    analysis = analyze_command(command, WS)
    return [(a.kind, a.path) for a in analysis.accesses], analysis.opaque


@pytest.mark.parametrize(
    "command,expected",
    [
        ("gcc -O0 -g -o app app.c", [("write", "/w/ws/app"), ("read", "/w/ws/app.c")]),
        ("cc x.c", [("read", "/w/ws/x.c"), ("write", "/w/ws/a.out")]),
        (
            "gcc -c a.c src/b.c",
            [
                ("read", "/w/ws/a.c"),
                ("read", "/w/ws/src/b.c"),
                ("write", "/w/ws/a.o"),
                ("write", "/w/ws/b.o"),
            ],
        ),
        ("g++ -S k.cpp", [("read", "/w/ws/k.cpp"), ("write", "/w/ws/k.s")]),
        ("gcc -E x.c", [("read", "/w/ws/x.c")]),
        (
            "gcc -Wall -Wextra -std=c11 -O2 -march=native -fPIC -fsanitize=address -DNDEBUG"
            " -Iinclude -L lib -MMD -o out/app main.c -lm",
            [
                ("read", "/w/ws/include"),
                ("read", "/w/ws/lib"),
                ("write", "/w/ws/out/app"),
                ("read", "/w/ws/main.c"),
                ("write", "/w/ws/out/app.d"),
            ],
        ),
        ("gcc-12 -oapp a.c", [("write", "/w/ws/app"), ("read", "/w/ws/a.c")]),
        ("x86_64-linux-gnu-gcc a.c", [("read", "/w/ws/a.c"), ("write", "/w/ws/a.out")]),
        (
            "clang -include cfg.h a.c",
            [("read", "/w/ws/cfg.h"), ("read", "/w/ws/a.c"), ("write", "/w/ws/a.out")],
        ),
        ("nm --defined-only app", [("read", "/w/ws/app")]),
        ("nm -f posix app", [("read", "/w/ws/app")]),
        ("nm", [("read", "/w/ws/a.out")]),
        ("objdump -d -j .text app", [("read", "/w/ws/app")]),
        ("readelf -h -s app", [("read", "/w/ws/app")]),
        ("size app", [("read", "/w/ws/app")]),
    ],
)
def test_what_a_build_and_a_look_at_the_binary_touch(
    command: str, expected: list[tuple[str, str]]
) -> None:
    accesses, opaque = _accesses(command)
    assert opaque == []
    assert accesses == expected


@pytest.mark.parametrize(
    "command,outside",
    [
        # the look-alikes that name a place outside stay outside, in each role
        ("gcc -o /tmp/app app.c", ("write", "/tmp/app")),
        ("gcc -I /etc/secrets a.c", ("read", "/etc/secrets")),
        ("gcc -I../other a.c", ("read", "/w/other")),
        ("gcc -include /etc/shadow a.c", ("read", "/etc/shadow")),
        ("gcc /etc/passwd.c", ("read", "/etc/passwd.c")),
        ("gcc -MMD -o ../out/app a.c", ("write", "/w/out/app.d")),
        ("nm /etc/x", ("read", "/etc/x")),
        ("objdump -I /etc -d app", ("read", "/etc")),
    ],
)
def test_a_path_outside_is_seen(command: str, outside: tuple[str, str]) -> None:
    accesses, _ = _accesses(command)
    assert outside in accesses


@pytest.mark.parametrize(
    "command",
    [
        "gcc -B/tmp/evil a.c",  # the driver runs cc1/as/ld from there
        "gcc -wrapper /tmp/w,a a.c",
        "gcc -specs=/tmp/s a.c",
        "gcc -fplugin=/tmp/p.so a.c",
        "gcc -Wl,-T,/etc/x a.c",
        "gcc -Xlinker --version-script=/etc/x a.c",
        "gcc @args",
        "gcc -fprofile-use=/tmp/x.gcda a.c",  # an -f option's value that may be a file
        "gcc -save-temps a.c",
        "gcc --frobnicate a.c",  # any option not listed
        "gcc $CFLAGS a.c",
        "clang -mllvm -x a.c",
        "nm @opts",
        "nm --plugin /tmp/p.so app",
        "objdump -S app",  # reads the sources the debug information names
        "objdump -Wi app",
        "readelf --debug-dump=info app",
        "readelf -wi app",
    ],
)
def test_what_the_command_does_not_show_is_opaque(command: str) -> None:
    assert _accesses(command)[1] != []


@pytest.mark.parametrize("name", ["gcc-ar", "clang-format", "clang-tidy", "ccache", "gccx"])
def test_other_tools_of_the_family_are_not_taken_for_a_compiler(name: str) -> None:
    assert _accesses(f"{name} a.c")[1] == [f"command '{name}' is not modelled"]


def _opaque(*commands: str) -> list[str]:
    builder = EvidenceBuilder(Path("session.jsonl"), "/home/agent")
    builder.evidence.cwd = WS
    for index, command in enumerate(commands, 1):
        builder.observe_command(index, None, f"call-{index}", "shell", command, None, "tool-call")
    return [reason for _, reason in builder.evidence.opaque]


def test_running_the_program_the_session_built_is_not_understood() -> None:
    """A built binary is code the session made: its run stays opaque, like a script of unknown
    content; the build itself and a look at the binary are understood."""
    assert _opaque("gcc -o app app.c", "nm app", "strings -n 6 app") == []
    assert _opaque("gcc -o app app.c", "./app hunter2") == [
        "./app runs /w/ws/app, whose content is not known"
    ]
    assert _opaque("cc app.c && ./a.out") == [
        "./a.out runs /w/ws/a.out, whose content is not known"
    ]
    # built from stdin, run by its default name
    assert _opaque("printf 'int main(void){return 0;}' | gcc -x c - && ./a.out") == [
        "./a.out runs /w/ws/a.out, whose content is not known"
    ]
    # look-alike: a program shipped in the workspace, not built by the session, is the target's
    assert _opaque("./app hunter2") == []
