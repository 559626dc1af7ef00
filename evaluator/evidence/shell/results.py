"""What the shell analysis reports about one command or program."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from evaluator.vocabulary import AccessKind

HOME_MARK = "~"
ProgramLanguage = Literal["shell", "python", "unknown"]


@dataclass(frozen=True)
class PathAccess:
    kind: AccessKind
    path: str  # absolute and normalised, or starting with "~" when HOME is unknown
    raw: str
    via: str
    # A lexical guess: text that looks like a path (a literal in program text, an unknown
    # option's value, a script's argument), not a path a modelled API or command was given.
    guess: bool = False
    # Where the shell may not have reached it, as `Invocation` says of a command (after `||`
    # or `exit`, in a branch, a loop's body, the background), and whether it is reached only
    # if earlier commands succeeded (which the call's exit code 0 shows).
    conditional: bool = False
    after_success: bool = False

    def surely_done(self, exit_code: int | None) -> bool:
        """Whether the shell surely reached it in a call that exited with `exit_code`."""
        return not self.conditional and (not self.after_success or exit_code == 0)


@dataclass(frozen=True)
class ScriptRun:
    """A program file the command runs; what it does depends on its content."""

    path: str
    language: ProgramLanguage
    via: str
    tree: bool = False  # runs every program under `path` (pytest, make)
    # A directory a `PATH=DIR:$PATH cmd` prefix puts first: a program of any name the command or
    # its children run may be found there (what the session wrote there hides what runs).
    searched: bool = False


@dataclass(frozen=True)
class ContentWrite:
    """A file the command (re)wrote; `content` is None when it cannot be known."""

    path: str
    content: str | None
    append: bool = False
    removed: bool = False  # deleted (`rm`): nothing was made there


@dataclass(frozen=True)
class Invocation:
    """One simple command the shell runs: its words as bash passes them, which of them are
    programs it runs (the command itself, a script an interpreter is given), and whether it may
    not have run at all (after `||` or `exit`, in an `if` or `case` branch, a loop's body, a
    `${x:+$(...)}` expansion, `bash -n`). `after_success`: it ran only if earlier commands
    succeeded (after `&&` in the tool call's last statement, after `set -e`), which only the
    call's exit code 0 shows. `paths`: the programs it runs, resolved."""

    words: tuple[str, ...]
    executed: tuple[int, ...]
    conditional: bool = False
    after_success: bool = False
    paths: tuple[str, ...] = ()

    def surely_ran(self, exit_code: int | None) -> bool:
        """Whether it surely ran in a tool call that exited with `exit_code` (else it may not
        have)."""
        return not self.conditional and (not self.after_success or exit_code == 0)


@dataclass
class ShellAnalysis:
    accesses: list[PathAccess] = field(default_factory=list)
    opaque: list[str] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)
    runs: list[ScriptRun] = field(default_factory=list)
    contents: list[ContentWrite] = field(default_factory=list)
    symlinks: list[tuple[str, str]] = field(default_factory=list)  # (link, target)
    copies: list[tuple[str, str]] = field(default_factory=list)  # (source, destination)
    invocations: list[Invocation] = field(default_factory=list)
    final_cwd: str = "/"
