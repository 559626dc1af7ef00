"""Error types that the CLI turns into one-line messages and exit codes."""

from __future__ import annotations

from pathlib import Path

EXIT_OK = 0
EXIT_FAILURES = 1
EXIT_INPUT = 2
EXIT_ENVIRONMENT = 3


class EvalError(Exception):
    """Base for errors the CLI reports without a traceback."""

    exit_code = EXIT_INPUT


class InputError(EvalError):
    """Bad user input, located as precisely as we can: `path:line:col: field: message`."""

    exit_code = EXIT_INPUT

    def __init__(
        self,
        message: str,
        *,
        path: Path | str | None = None,
        line: int | None = None,
        col: int | None = None,
        field: str | None = None,
    ) -> None:
        self.message = message
        self.path = str(path) if path is not None else None
        self.line = line
        self.col = col
        self.field = field
        super().__init__(self.render())

    def render(self) -> str:
        field = f"{self.field}: " if self.field else ""
        if not self.path:  # a command-line option, not a file: its name is the location
            return f"{field}{self.message}"
        location = self.path
        if self.line is not None:
            location += f":{self.line}:{self.col or 1}"
        return f"{location}: {field}{self.message}"


class EnvironmentProblem(EvalError):
    """The machine lacks something the evaluation needs (a binary, a writable directory...)."""

    exit_code = EXIT_ENVIRONMENT


class Terminated(KeyboardInterrupt):
    """SIGTERM outside the attempts' pool (planning, closing): it unwinds as Ctrl-C does, so
    the `finally` and cleanup blocks on the way run (the manifest closed `interrupted`, the
    scratch removed), where Python's default action would end the process on the spot."""
