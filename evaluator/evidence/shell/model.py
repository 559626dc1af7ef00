"""How a command's arguments are read, as data: the one style every command family uses.

Each handled command has a `CommandModel`: which options take a value and what that value is (a
path read, written, listed, a directory to work in, program text, or plain text), and what the
operands are. `read` means the content reaches the command's stdout; `metadata` touches a path
without showing its content. Commands whose arguments need more than a model (git, find, tar)
still declare their options here and read them with `split_options`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from evaluator.vocabulary import AccessKind

# An argument's role: an access kind, or what the analysis must do with a non-path argument.
# `text` is not a path; `dir` is the directory the command works in (operands resolve there);
# `shell`/`python`/`sed`/`awk` are program text in that language; `opaque` hides its effect.
Role = AccessKind | Literal["text", "dir", "shell", "python", "sed", "awk", "opaque"]
PATH_ROLES: frozenset[str] = frozenset({"read", "metadata", "list", "write", "exec", "cwd", "path"})


@dataclass(frozen=True)
class CommandModel:
    operands: Role = "read"
    first: Role | None = None  # the first operand's role (grep PATTERN, chmod MODE, sed SCRIPT)
    first_unless: frozenset[str] = frozenset()  # options that supply `first` instead (grep -e)
    last: Role | None = None  # the last operand's role (cp DEST) when there are two or more
    last_unless: frozenset[str] = frozenset()  # options that name the destination (cp -t)
    short_values: str = ""  # short options that take a value
    long_values: frozenset[str] = frozenset()  # long options that take a value
    roles: Mapping[str, Role] = field(default_factory=dict)  # value role; default `text`
    quiet: frozenset[str] = frozenset()  # flags after which operands are metadata (grep -l)
    default: str | None = None  # operand assumed when none is given (ls → ".")
    summarises: bool = False  # as a pipeline's last stage, shows no content of what it got
    summarises_with: frozenset[str] = frozenset()  # flags that make it summarise (uniq -c)


def words(text: str) -> tuple[str, ...]:
    """A list of names written as one space-separated string (tables stay readable)."""
    return tuple(text.split())


def model(
    operands: Role = "read",
    *,
    first: Role | None = None,
    first_unless: str = "",
    last: Role | None = None,
    last_unless: str = "",
    short: str = "",
    long: str = "",
    roles: Mapping[str, Role] | None = None,
    quiet: str = "",
    default: str | None = None,
    summarises: bool = False,
    summarises_with: str = "",
) -> CommandModel:
    return CommandModel(
        operands=operands,
        first=first,
        first_unless=frozenset(first_unless.split()),
        last=last,
        last_unless=frozenset(last_unless.split()),
        short_values=short,
        long_values=frozenset(long.split()),
        roles=dict(roles or {}),
        quiet=frozenset(quiet.split()),
        default=default,
        summarises=summarises,
        summarises_with=frozenset(summarises_with.split()),
    )


TEXT = model("text")
WRITE = model("write")


def split_options(
    model: CommandModel, args: list[str | None], texts: list[str]
) -> tuple[list[tuple[str, str | None]], list[tuple[str | None, str]]]:
    """getopt-style: options with their values (`-o V`, `-oV`, `--opt=V`, `--opt V`, `-xvf V`)
    and the operands, in order."""
    options: list[tuple[str, str | None]] = []
    operands: list[tuple[str | None, str]] = []
    index = 0
    only_operands = False
    while index < len(args):
        raw, text = args[index], texts[index] if index < len(texts) else str(args[index])
        index += 1
        if raw is None or only_operands or raw == "-" or not raw.startswith("-"):
            operands.append((raw, text))
            continue
        if raw == "--":
            only_operands = True
            continue
        if raw.startswith("--"):
            name, has_value, value = raw.partition("=")
            if has_value:
                options.append((name, value))
            elif name in model.long_values:
                options.append((name, args[index] if index < len(args) else None))
                index += 1
            else:
                options.append((name, None))
            continue
        letters = raw[1:]
        for position, letter in enumerate(letters):
            if letter in model.short_values:
                attached = letters[position + 1 :]
                if attached:
                    options.append((f"-{letter}", attached))
                else:
                    options.append((f"-{letter}", args[index] if index < len(args) else None))
                    index += 1
                break
            options.append((f"-{letter}", None))
    return options, operands


def leading_options(
    model: CommandModel, args: list[str | None], texts: list[str]
) -> tuple[list[tuple[str, str | None]], list[tuple[str | None, str]]]:
    """Options before the first operand only: the rest is the command a prefix runs."""
    index = 0
    while index < len(args):
        raw = args[index]
        if raw is None or not raw.startswith("-") or raw == "-":
            break
        if raw == "--":
            index += 1
            break
        if raw.startswith("--"):
            index += 2 if raw in model.long_values else 1
            continue
        letters = raw[1:]
        first_value = next((i for i, c in enumerate(letters) if c in model.short_values), None)
        index += 2 if first_value == len(letters) - 1 else 1
    options, _ = split_options(model, args[:index], texts[:index])
    rest = list(zip(args[index:], texts[index:], strict=False))
    return options, rest
