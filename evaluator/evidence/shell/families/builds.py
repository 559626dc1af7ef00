"""Build and package tools: make runs its Makefile, `uv run` runs a command in the project's
environment, and package managers (npm, pip, ...) run code we cannot see."""

from __future__ import annotations

from evaluator.evidence.shell.families.interpreters import python_command, python_module
from evaluator.evidence.shell.model import leading_options, model, split_options
from evaluator.evidence.shell.registry import handles
from evaluator.evidence.shell.results import ScriptRun
from evaluator.evidence.shell.walker import Walker

MAKE = model(
    short="CfjlIoWe",
    long="--directory --file --makefile --jobs --include-dir --old-file --what-if",
)
# `uv run [OPTIONS] COMMAND|SCRIPT.py ...`: the command it runs, in the project's environment.
# uv's own reads and writes (the project's pyproject.toml and .venv, its cache in the agent's
# home) are the tool's housekeeping, like an interpreter reading its standard library.
UV_RUN = model(
    "text",
    short="pwm",
    long=(
        "--python --with --with-editable --with-requirements --project --directory --env-file"
        " --extra --group --only-group --package --index --index-url --extra-index-url --from"
        " --config-file --cache-dir --script --module"
    ),
    roles={
        "--project": "dir",
        "--directory": "dir",
        "--env-file": "read",
        "--with-requirements": "read",
        "--with-editable": "read",
        "--config-file": "read",
        "--cache-dir": "write",
    },
)


@handles("make", model=MAKE)
def make(w: Walker, name: str, args: list[str | None], texts: list[str]) -> None:
    options, _ = split_options(MAKE, args, texts)
    directory = w.cwd
    makefile = None
    for option, value in options:
        if option in ("-C", "--directory"):
            w.path_arg("cwd", value, str(value), "make -C")
            if value is not None:
                directory = w.resolve(value)
        elif option in ("-f", "--file", "--makefile"):
            makefile = value
    path = w.resolve(makefile or "Makefile", directory)
    w.add("read", path, "make")
    w.result.runs.append(ScriptRun(path, "unknown", "make"))


@handles("uv", model=UV_RUN)
def uv(w: Walker, name: str, args: list[str | None], texts: list[str]) -> None:
    if not args or args[0] != "run":
        w.opaque("uv other than `uv run` manages environments and packages")
        return
    options, rest = leading_options(UV_RUN, args[1:], texts[1:])
    saved = w.cwd
    try:
        uv_run(w, options, rest)
    finally:
        w.cwd = saved  # `--directory` holds for this command only


def uv_run(
    w: Walker, options: list[tuple[str, str | None]], rest: list[tuple[str | None, str]]
) -> None:
    raws, texts = [r for r, _ in rest], [t for _, t in rest]
    for option, value in options:
        if value is None:
            continue
        if option in ("--module", "-m"):
            python_module(w, "uv run", value, raws, texts)
            return
        if option == "--script":
            python_command(w, "uv run", [value, *raws], [value, *texts])
            return
        if option == "--directory":
            w.add("cwd", value, "uv run --directory")
            w.cwd = w.resolve(value)
            continue
        if option == "--project":
            w.add("read", value, "uv run --project")  # the project's configuration
            continue
        w.role(UV_RUN.roles.get(option, "text"), value, value, f"uv run {option}")
    if raws and raws[0] is not None and raws[0].endswith(".py"):
        python_command(w, "uv run", raws, texts)
        return
    w.run_rest(rest, "uv run")


@handles("npm", "npx", "pnpm", "yarn", "pip", "pip3")
def packages(w: Walker, name: str, args: list[str | None], texts: list[str]) -> None:
    w.opaque(f"{name} runs package scripts or downloaded code")
