"""Regular expressions written by eval authors, matched with RE2 (linear time).

Check patterns run against agent output we do not control: with a backtracking engine a pattern
like `^(a+)+$` can keep the judge busy for minutes. RE2 guarantees time linear in the input, at
the price of Python-only features (backreferences, lookaround), which `validate` rejects with a
located error.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

import re2  # google-re2


class PatternError(ValueError):
    """The pattern is not valid RE2 syntax."""


@dataclass(frozen=True)
class Pattern:
    """A compiled author pattern; `search` returns the matched text or None."""

    text: str
    _compiled: object

    def search(self, subject: str) -> str | None:
        match = self._compiled.search(subject)  # type: ignore[attr-defined]
        return None if match is None else str(match.group(0))

    def spans(self, subject: str) -> Iterator[tuple[int, int, str]]:
        """Every match, left to right: where it starts and ends, and its text."""
        for match in self._compiled.finditer(subject):  # type: ignore[attr-defined]
            yield match.start(), match.end(), str(match.group(0))


def _options() -> object:
    options = re2.Options()
    options.log_errors = False  # the error reaches the author as a located line, not stderr
    return options


@cache
def compile_pattern(text: str) -> Pattern:
    try:
        compiled = re2.compile(text, options=_options())
    except re2.error as exc:
        reason = exc.args[0] if exc.args else exc
        if isinstance(reason, bytes):
            reason = reason.decode("utf-8", "replace")
        raise PatternError(f"invalid regular expression {text!r}: {reason}") from None
    return Pattern(text, compiled)


def pattern_problem(text: str) -> str | None:
    """Why `text` is not a usable check pattern, or None when it compiles."""
    try:
        compile_pattern(text)
    except PatternError as exc:
        return str(exc)
    return None
