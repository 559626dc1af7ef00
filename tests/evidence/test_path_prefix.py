"""`PATH=DIR:$PATH cmd` (docs/evidence-access.md, "Assignments that change what runs"): a prefix
that puts known absolute directories first is the command its words show, as long as the session
wrote nothing there; a directory it cannot know, or one the session wrote into, made or linked,
keeps the command opaque (what runs may be the session's own program of that name)."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluator.evidence.builder import EvidenceBuilder
from evaluator.evidence.shell import analyze_command

WS = "/ws"
HOME = "/home/agent"


def _opaque(*commands: str) -> list[str]:
    """The session-level reasons a run of `commands` (one tool call each) is opaque."""
    builder = EvidenceBuilder(Path("session.jsonl"), HOME)
    builder.evidence.cwd = WS
    for index, command in enumerate(commands, 1):
        builder.observe_command(index, None, f"call-{index}", "shell", command, None, "tool-call")
    return [reason for _, reason in builder.evidence.opaque]


@pytest.mark.parametrize(
    "command,read",
    [
        ('PATH="$PWD/node_modules/.bin:$PATH" cat notes.txt', "/ws/notes.txt"),
        ("PATH=$PWD/tools/bin:${PATH} cat /etc/hostname", "/etc/hostname"),
        ('PATH="$PWD/.venv/bin:$PATH" python3 -m json.tool data.json', "/ws/data.json"),
        ('PATH="${PATH}:$PWD/bin" cat notes.txt', "/ws/notes.txt"),
        ("PATH=/ws/bin:/usr/local/bin:/usr/bin:/bin cat notes.txt", "/ws/notes.txt"),
    ],
)
def test_a_path_of_known_directories_is_the_command_it_prefixes(command: str, read: str) -> None:
    assert _opaque(command) == []
    assert ("read", read) in {(a.kind, a.path) for a in analyze_command(command, WS, HOME).accesses}


@pytest.mark.parametrize(
    "command",
    [
        "PATH=bin:$PATH cat notes.txt",  # relative: each program's own working directory
        "PATH=:$PATH cat notes.txt",  # empty: the working directory
        "PATH=.:$PATH cat notes.txt",
        "PATH=$(pwd)/bin:$PATH cat notes.txt",  # computed
        "PATH=$TOOLS:$PATH cat notes.txt",
        "PATH=/a:$PATHX cat notes.txt",
        "PATH=/a:$PATH; cat notes.txt",  # for the rest of the shell, not one command
        "export PATH=/a:$PATH; cat notes.txt",
        # outside the workspace: looked in with stat, which no trace shows (the jail hides it)
        "PATH=$HOME/.local/bin:$PATH cat notes.txt",
        'PATH="${PATH}:/opt/tool/bin" cat notes.txt',
        "PATH=/tmp/c:$PATH cat notes.txt",
        "PATH=$PWD/../tools:$PATH cat notes.txt",
    ],
)
def test_a_path_not_known_for_one_command_stays_opaque(command: str) -> None:
    """Each reason names PATH: the trace never vouches for a call whose opaque reason does
    (isolation/trace.py: a lookup the jail hid fails without a trace)."""
    assert any("PATH" in reason for reason in _opaque(command)), _opaque(command)


def test_env_setting_path_stays_opaque() -> None:
    """`env`'s words are evaluated before it is modelled: `$PATH` there is computed."""
    assert _opaque("env PATH=/a:$PATH cat notes.txt") == ["env with a computed argument"]


@pytest.mark.parametrize(
    "before",
    [
        "mkdir -p bin && printf '#!/bin/sh\\ncat /etc/shadow\\n' > bin/cat && chmod +x bin/cat",
        "mkdir -p bin && cp /bin/sh bin/cat",
        "mkdir -p bin && ln -s /bin/sh bin/cat",
        "ln -s /tmp/e bin && printf '#!/bin/sh\\n' > /tmp/e/cat",
        "tar xf tools.tar",  # unknown files written above bin
        "printf '#!/bin/sh\\n' > /tmp/x && mv /tmp/x bin",
    ],
)
def test_a_directory_the_session_wrote_into_hides_what_runs(before: str) -> None:
    """The red team's form: the agent's own `cat` put first in PATH, in an earlier call or the
    same one; each way the session can place a program there."""
    after = 'PATH="$PWD/bin:$PATH" cat notes.txt'
    for commands in ((before, after), (f"{before}; {after}",)):
        found = _opaque(*commands)
        # (a link to a directory outside is opaque for being outside)
        assert any(r.startswith("PATH=") and "runs" in r for r in found), (commands, found)


def test_a_session_write_elsewhere_changes_nothing() -> None:
    """Look-alikes: the session wrote beside the directory, or into it only after the call."""
    after = 'PATH="$PWD/bin:$PATH" cat notes.txt'
    assert _opaque("mkdir -p binaries && printf x > binaries/cat", after) == []
    assert _opaque(after, "mkdir -p bin && printf x > bin/cat") == []


def test_a_program_not_modelled_stays_opaque_for_that_alone() -> None:
    """The directories known, the program is still whatever its name finds: a name the analysis
    does not model is opaque as it is without the prefix."""
    assert _opaque("PATH=$PWD/node_modules/.bin:$PATH frobnicate x") == [
        "command 'frobnicate' is not modelled"
    ]
