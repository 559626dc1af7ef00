"""A click group that imports a subcommand's module only when that subcommand runs.

Every command module imports the stages it drives (the pipeline, the judge, the model judge,
pydantic models, jinja2, tree-sitter): importing them all made `agentic-eval --version` take
seconds. The group lists its commands from a table of names, import paths and one-line
summaries, so `--help` and `--version` import no command module at all, and `agentic-eval
validate` imports only `evaluator.cli.validate`. `tests/cli/test_startup.py` checks the table
against the real commands.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import click


@dataclass(frozen=True)
class LazyCommand:
    """Where a subcommand lives and what the top-level `--help` says of it without importing it."""

    # "package.module:attribute", the attribute being the click command or group
    import_path: str
    # the first paragraph of the command's help, whitespace collapsed
    summary: str
    hidden: bool = False


class LazyGroup(click.Group):
    """A `click.Group` whose subcommands are imported on first use from `lazy_commands`."""

    def __init__(self, *args: Any, lazy_commands: Mapping[str, LazyCommand], **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.lazy_commands = dict(lazy_commands)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *self.lazy_commands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in self.lazy_commands:
            self.commands[cmd_name] = self._load(cmd_name)
        return self.commands.get(cmd_name)

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        try:
            return super().resolve_command(ctx, args)
        except click.UsageError as exc:
            # click (8.4 and later) suggests close names from `self.commands`, which holds only
            # the commands loaded so far: suggest from every name instead
            no_such = getattr(click.exceptions, "NoSuchCommand", None)
            if no_such is None or not isinstance(exc, no_such):
                raise
            raise no_such(
                exc.command_name, possibilities=self.list_commands(ctx), ctx=ctx
            ) from None

    def _load(self, cmd_name: str) -> click.Command:
        module_name, _, attribute = self.lazy_commands[cmd_name].import_path.partition(":")
        command = getattr(importlib.import_module(module_name), attribute)
        if not isinstance(command, click.Command) or command.name != cmd_name:
            raise TypeError(f"{module_name}:{attribute} is not the click command {cmd_name!r}")
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The commands section of `--help`, from the table: no command module is imported."""
        rows: list[tuple[str, click.Command]] = []
        for name in self.list_commands(ctx):
            entry = self.lazy_commands.get(name)
            if name in self.commands or entry is None:
                command = self.get_command(ctx, name)
                if command is not None and not command.hidden:
                    rows.append((name, command))
            elif not entry.hidden:
                # a stand-in carrying only the summary, so click shortens it as it would the
                # real command's help (same width, same truncation)
                rows.append((name, click.Command(name, help=entry.summary)))
        if not rows:
            return
        limit = formatter.width - 6 - max(len(name) for name, _ in rows)
        with formatter.section("Commands"):
            formatter.write_dl([(name, cmd.get_short_help_str(limit)) for name, cmd in rows])
