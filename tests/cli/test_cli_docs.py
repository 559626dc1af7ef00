"""Every CLI command and option is documented in docs/cli.md (the sqlite-utils rule)."""

from __future__ import annotations

import click
import pytest

from evaluator.cli.main import cli
from tests.conftest import ROOT


def _commands(group: click.Group, prefix: str = "") -> list[tuple[str, click.Command]]:
    # through list_commands/get_command: the top-level group loads its commands lazily
    context = click.Context(group)
    found: list[tuple[str, click.Command]] = []
    for name in group.list_commands(context):
        command = group.get_command(context, name)
        assert command is not None, name
        full = f"{prefix}{name}"
        if isinstance(command, click.Group):
            found.extend(_commands(command, f"{full} "))
        else:
            found.append((full, command))
    return found


COMMANDS = _commands(cli)


@pytest.mark.parametrize("name,command", COMMANDS, ids=[n for n, _ in COMMANDS])
def test_command_and_options_are_documented(name: str, command: click.Command) -> None:
    docs = (ROOT / "docs/cli.md").read_text()
    assert f"## agentic-eval {name}\n" in docs, f"docs/cli.md lacks a section for {name}"
    section = docs.split(f"## agentic-eval {name}\n", 1)[1].split("\n## ", 1)[0]
    for param in command.params:
        if isinstance(param, click.Option):
            longest = max(param.opts, key=len)
            assert longest in section, f"{name}: option {longest} undocumented"
        else:
            assert param.name is not None
            assert param.name.upper() in section, f"{name}: argument {param.name} undocumented"


def test_readme_starts_with_the_two_commands() -> None:
    readme = (ROOT / "README.md").read_text()
    assert "./dev demo" in readme and "./dev test" in readme
    ci = (ROOT / ".ci/run").read_text()
    assert "./dev test" in ci
