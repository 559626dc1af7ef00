"""Entry point: builds the command group and turns known errors into one line and an exit code."""

from __future__ import annotations

import os
import sys

import click

from evaluator import __version__
from evaluator.cli import (
    attempt,
    compare,
    explain,
    export,
    gate,
    history,
    install_skill,
    judge,
    list_cmd,
    model_server,
    report,
    run,
    schemas_cmd,
    score,
    selftest,
    session,
    setup_agents,
    validate,
)
from evaluator.errors import EXIT_INPUT, EvalError

COMMANDS: list[click.Command] = [
    validate.command,
    list_cmd.command,
    schemas_cmd.command,
    model_server.command,
    session.command,
    run.command,
    report.command,
    judge.command,
    selftest.command,
    explain.command,
    setup_agents.command,
    score.command,
    gate.command,
    compare.command,
    export.group,
    history.group,
    attempt.group,
    install_skill.command,
]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="agentic-eval")
def cli() -> None:
    """Black-box evaluation of coding-agent skills from the agent's own recorded sessions."""


for _command in COMMANDS:
    cli.add_command(_command)


def main(argv: list[str] | None = None) -> None:
    sys.exit(run_cli(argv))


def run_cli(argv: list[str] | None = None) -> int:
    """Runs one command and returns its exit code: every error is one line on stderr."""
    try:
        code = cli.main(args=argv, prog_name="agentic-eval", standalone_mode=False)
    except click.exceptions.Exit as exc:
        code = exc.exit_code
    except click.ClickException as exc:
        click.echo(f"agentic-eval: {exc.format_message()}", err=True)
        code = EXIT_INPUT if isinstance(exc, click.UsageError) else exc.exit_code
    except click.Abort:
        click.echo("agentic-eval: aborted", err=True)
        code = 130
    except EvalError as exc:
        click.echo(f"agentic-eval: {exc}", err=True)
        code = exc.exit_code
    except KeyboardInterrupt:
        click.echo("agentic-eval: interrupted", err=True)
        code = 130
    except Exception as exc:  # a bug: say so in one line unless asked for the traceback
        if os.environ.get("AGENTIC_EVAL_DEBUG"):
            raise
        click.echo(
            f"agentic-eval: internal error: {type(exc).__name__}: {exc}"
            " (set AGENTIC_EVAL_DEBUG=1 for the traceback)",
            err=True,
        )
        code = 70
    return code if isinstance(code, int) else 0
