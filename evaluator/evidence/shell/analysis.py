"""The entry points: what a command, or a program file, touches."""

from __future__ import annotations

import posixpath
from functools import lru_cache

from evaluator.evidence.shell.results import ProgramLanguage, ShellAnalysis
from evaluator.evidence.shell.walker import Walker, walk


def analyze_command(command: str, cwd: str, home: str | None = None) -> ShellAnalysis:
    """The paths `command` touches when run in `cwd`. The result is shared: do not mutate it."""
    return _analyze_cached(command, posixpath.normpath(cwd), home)


# Sessions repeat the same commands often; the parse underneath is cached by text alone
# (`walker.parse`), so other working directories and other sessions of the run share it.
@lru_cache(maxsize=1024)
def _analyze_cached(command: str, cwd: str, home: str | None) -> ShellAnalysis:
    return walk(command, cwd, home, 0)


def analyze_program(
    text: str, language: ProgramLanguage, cwd: str, home: str | None = None
) -> ShellAnalysis:
    """What a program file does when run, from its content (shell or Python)."""
    if language == "shell":
        return _analyze_cached(text, posixpath.normpath(cwd), home)
    result = ShellAnalysis(final_cwd=cwd)
    if language == "python":
        walker = Walker(result, home, 0)
        walker.cwd = cwd
        walker.python(text, "python script")
    else:
        result.opaque.append("a program in a language that is not analysed")
    return result
