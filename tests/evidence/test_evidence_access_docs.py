"""The commands docs/evidence-access.md lists are exactly the commands the shell analysis handles."""

from __future__ import annotations

import re
from collections import Counter

from evaluator.evidence.shell import analyze_command, handled_commands
from tests.conftest import ROOT


def _documented_commands() -> list[str]:
    text = (ROOT / "docs/evidence-access.md").read_text()
    section = text.split("\n## The command table\n", 1)[1].split("\n## ", 1)[0]
    names: list[str] = []
    for line in section.splitlines():
        match = re.match(r"\| `([^`]+)`", line)
        if match:
            names.extend(match.group(1).split())
    return names


def test_documented_commands_are_the_handled_commands() -> None:
    documented = _documented_commands()
    assert [n for n, c in Counter(documented).items() if c > 1] == []
    assert sorted(set(documented) - handled_commands()) == [], "documented, not handled"
    assert sorted(handled_commands() - set(documented)) == [], "handled, not documented"


def test_a_command_outside_the_table_is_opaque() -> None:
    assert "frobnicate" not in handled_commands()
    analysis = analyze_command("frobnicate x", "/w/ws")
    assert analysis.opaque == ["command 'frobnicate' is not modelled"]
    assert "python3.12" not in handled_commands()  # handled as `python`, by its pattern
    assert analyze_command("python3.12 -c 'print(1)'", "/w/ws").opaque == []
