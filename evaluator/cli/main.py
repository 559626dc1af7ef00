"""Entry point: builds the command group and turns known errors into one line and an exit code."""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

import click

from evaluator import __version__
from evaluator.cli.lazy import LazyCommand, LazyGroup
from evaluator.errors import EXIT_ENVIRONMENT, EXIT_INPUT, EvalError, Terminated

# Every command, by name: the module that defines it is imported only when the command runs
# (`--help` and `--version` import none; see lazy.py). The summary is the first paragraph of the
# command's help, shown by the top-level `--help`; tests/cli/test_startup.py checks it against the
# command.
COMMANDS: dict[str, LazyCommand] = {
    "attempt": LazyCommand(
        "evaluator.cli.attempt:group",
        "In-session attempts: you spawn each case's sub-agent; these commands do the rest.",
    ),
    "compare": LazyCommand(
        "evaluator.cli.compare:command",
        "Compare CANDIDATE with BASE (run dirs); exit 1 on any regression.",
    ),
    "convert": LazyCommand(
        "evaluator.cli.convert:command",
        "Write the agentic-evals YAML repo equivalent to a skill-creator evals.json.",
    ),
    "evaluate": LazyCommand(
        "evaluator.cli.evaluate:command",
        "Compare variants of a skill on the same cases: pass rates, per-case differences, uplift.",
    ),
    "explain": LazyCommand(
        "evaluator.cli.explain:command",
        "Show how every assertion entry will be decided (checks, compiled rules, model judge).",
    ),
    "export": LazyCommand(
        "evaluator.cli.export:group",
        "Write the eval's cases for SkillOpt or CodexOpt, or runs for skill-creator and Harbor.",
    ),
    "gate": LazyCommand(
        "evaluator.cli.gate:command",
        "Accept or reject a candidate skill's run against the current and best runs.",
    ),
    "history": LazyCommand(
        "evaluator.cli.history:group",
        "Pass-rate trend per case across recorded runs, flaky cases flagged.",
    ),
    "init": LazyCommand(
        "evaluator.cli.init:command",
        "Write an eval repo for a skill: target, suite, two example cases, good and bad behaviours.",
    ),
    "install-skill": LazyCommand(
        "evaluator.cli.install_skill:command",
        "Install the skill-eval skill, so an agent can run evaluations from its own session.",
    ),
    "judge": LazyCommand(
        "evaluator.cli.judge:command",
        "Judge again (after editing assertions) without re-running agents.",
    ),
    "list": LazyCommand(
        "evaluator.cli.list_cmd:command",
        "List targets, suites and the cases a run would execute, with their splits.",
    ),
    "model-server": LazyCommand(
        "evaluator.cli.model_server:command",
        "Run the scripted model server (the provider API of every agent) until interrupted.",
    ),
    "report": LazyCommand(
        "evaluator.cli.report:command",
        "Rewrite report.md, transcript.md and report.html of a run from its saved results"
        " (and comparison.html when the run has a comparison.json).",
    ),
    "run": LazyCommand(
        "evaluator.cli.run:command",
        "Run every selected case in fresh workspaces and judge it from the recorded sessions.",
    ),
    "schemas": LazyCommand(
        "evaluator.cli.schemas_cmd:command",
        "Generate or check the JSON Schemas in schemas/ and in the package (developers).",
        hidden=True,
    ),
    "score": LazyCommand(
        "evaluator.cli.score:command",
        "Score a skill: hard and soft verified pass rates, coverage, and a VERDICT line.",
    ),
    "selftest": LazyCommand(
        "evaluator.cli.selftest:command",
        "Check that each case's assertions tell its golden behaviours apart. Exit 1 if not.",
    ),
    "session": LazyCommand(
        "evaluator.cli.session:command", "Locate and inspect agent sessions on disk."
    ),
    "setup-agents": LazyCommand(
        "evaluator.cli.setup_agents:command",
        "Install the pinned agent CLIs with npm into the user cache (nothing if already there).",
    ),
    "show": LazyCommand(
        "evaluator.cli.show:command",
        "Show a run's cases, or one case's result: status, assertions, blocked reason, artifacts.",
    ),
    "triggers": LazyCommand(
        "evaluator.cli.triggers:command",
        "Run a trigger set: K attempts per prompt beside distractor skills; precision, recall, F1.",
    ),
    "validate": LazyCommand(
        "evaluator.cli.validate:command",
        "Check an eval repo: schemas, unknown keys, paths, ids, patterns, skill files, golden"
        " behaviours. Exit 2 if any error.",
    ),
}


@click.group(
    cls=LazyGroup,
    lazy_commands=COMMANDS,
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.version_option(__version__, prog_name="agentic-eval")
def cli() -> None:
    """Black-box evaluation of coding-agent skills from the agent's own recorded sessions."""


def main(argv: list[str] | None = None) -> None:
    sys.exit(run_cli(argv))


def run_cli(argv: list[str] | None = None) -> int:
    """Runs one command and returns its exit code: every error is one line on stderr, and
    with `--json` also one JSON object on stdout (unless the command printed its own)."""
    # A command's module loads the options module; --help and --version must load none, so a
    # previous command's mark (an earlier call in this process) is cleared only if it is loaded.
    options = sys.modules.get("evaluator.cli.options")
    if options is not None:
        options.reset_json_emitted()
    args = sys.argv[1:] if argv is None else argv
    wants_json = "--json" in (args[: args.index("--")] if "--" in args else args)
    try:
        with _sigterm_unwinds():
            code = cli.main(args=argv, prog_name="agentic-eval", standalone_mode=False)
    except click.exceptions.Exit as exc:
        code = exc.exit_code
    except click.ClickException as exc:
        click.echo(f"agentic-eval: {exc.format_message()}", err=True)
        code = EXIT_INPUT if isinstance(exc, click.UsageError) else exc.exit_code
        _json_error(wants_json, exc, code)
    except click.Abort as exc:
        # Click turns a KeyboardInterrupt inside a command into Abort, the interrupt its cause.
        terminated = isinstance(exc.__cause__, Terminated)
        what = "terminated (SIGTERM)" if terminated else "aborted"
        click.echo(f"agentic-eval: {what}", err=True)
        code = 143 if terminated else 130
        _json_error(wants_json, exc, code, what)
    except EvalError as exc:
        click.echo(f"agentic-eval: {exc}", err=True)
        code = exc.exit_code
        _json_error(wants_json, exc, code)
    except KeyboardInterrupt as exc:
        what = "terminated (SIGTERM)" if isinstance(exc, Terminated) else "interrupted"
        click.echo(f"agentic-eval: {what}", err=True)
        code = 143 if isinstance(exc, Terminated) else 130
        _json_error(wants_json, exc, code, what)
    except Exception as exc:  # a bug: say so in one line unless asked for the traceback
        if os.environ.get("AGENTIC_EVAL_DEBUG"):
            raise
        storage = _storage_line(exc)
        if storage is not None:
            click.echo(f"agentic-eval: {storage}", err=True)
            _json_error(wants_json, exc, EXIT_ENVIRONMENT, storage)
            return EXIT_ENVIRONMENT
        message = f"internal error: {type(exc).__name__}: {exc}"
        click.echo(
            f"agentic-eval: {message} (set AGENTIC_EVAL_DEBUG=1 for the traceback)", err=True
        )
        code = 70
        _json_error(wants_json, exc, code, message)
    return code if isinstance(code, int) else 0


@contextmanager
def _sigterm_unwinds() -> Iterator[None]:
    """SIGTERM raises `Terminated` while a command runs (a run's pool of attempts sets its own
    handler and stops there): the default action would kill the process where it stands, with
    the run's scratch (agent homes, workspaces) left behind and its manifest still `running`."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def terminate(signum: int, frame: FrameType | None) -> None:
        raise Terminated()

    previous = signal.signal(signal.SIGTERM, terminate)
    try:
        yield
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _storage_line(exc: Exception) -> str | None:
    """A write the disk refused (full, over quota, read-only) is the machine's, exit 3 as the
    exit codes say, never an internal error: the line names the file and what to do."""
    from evaluator.artifacts.rundir import FULL_ERRNOS

    if not isinstance(exc, OSError) or exc.errno not in FULL_ERRNOS:
        return None
    where = f"{os.fsdecode(exc.filename)}: " if exc.filename is not None else ""
    return f"cannot write {where}{exc.strerror} (free space or make it writable, then run again)"


def _json_error(wants_json: bool, exc: BaseException, code: int, text: str | None = None) -> None:
    """With `--json`, an error that stopped the command before it printed its object is that
    object: a caller that parses stdout gets JSON either way (docs/cli.md)."""
    from evaluator.cli.options import emit_json, error_json, json_emitted

    if wants_json and not json_emitted():
        problem = Exception(text) if text is not None or not isinstance(exc, Exception) else exc
        emit_json(error_json(problem, code), code)
