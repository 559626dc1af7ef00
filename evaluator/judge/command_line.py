"""A simple command's words as the line a `command_ran` pattern is searched in.

Two lines are searched, and a match in either counts:

- **plain**: the words joined by one space, as every check has read them (an author's
  `python3 -c .*import x` keeps matching `python3 -c "import x; x.run()"`);
- **quoted**: a word holding whitespace (or empty) written as bash would take it back, in double
  quotes (`git -C "my dir" commit`). The plain line loses where such a word ends (`-C my dir
  commit` may be `-C "my dir" commit` or `-C my` then the subcommand `dir`); in the quoted line
  a command literal's pattern can tell (docs/criteria.md, "Command literals").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_NEEDS_QUOTES = re.compile(r"\s")
_ESCAPED = re.compile(r'([\\"$`])')
_OPTION_VALUE = re.compile(r"(--?[A-Za-z][\w-]*=)(.*)", re.DOTALL)
# A short option with its value attached (`-C"my dir"` is the word `-Cmy dir`): the value is
# quoted alone, as it is written, so a pattern reading `-C` then one word finds it.
_ATTACHED_VALUE = re.compile(r"(-[A-Za-z])(.*\s.*)", re.DOTALL)

# One word of a command as it may be written: in the agent's raw text (any quoting) and in the
# quoted line. A value of an option is one such word, never two.
SHELL_WORD = r"""(?:[^\s\\'"]|\\[\s\S]|'[^']*'|"(?:[^"\\]|\\[\s\S])*")+"""


def quoted_word(word: str) -> str:
    """`word` as it stands in the quoted line: an option's `=value` quotes the value alone
    (`--git-dir="a b"`), as it is written."""
    if word and not _NEEDS_QUOTES.search(word):
        return word
    option = _OPTION_VALUE.match(word) or _ATTACHED_VALUE.fullmatch(word)
    if option is not None:
        return option.group(1) + quoted_word(option.group(2))
    return '"' + _ESCAPED.sub(r"\\\1", word) + '"'


def word_forms(word: str) -> str:
    """The pattern of `word` in any line or raw text: as is when it needs no quoting, else in
    double quotes (the quoted line, or the author's), single quotes or with escaped spaces."""
    if word and not _NEEDS_QUOTES.search(word):
        return re.escape(word)
    forms = [re.escape(quoted_word(word)), re.escape(re.sub(r"([\\\s'\"$`])", r"\\\1", word))]
    whole = '"' + _ESCAPED.sub(r"\\\1", word) + '"'
    if whole != quoted_word(word):
        forms.append(re.escape(whole))  # `"-Cmy dir"` as well as `-C"my dir"`
    if "'" not in word:
        forms.append(re.escape(f"'{word}'"))
    return "(?:" + "|".join(forms) + ")"


def command_lines(words: Sequence[str]) -> list[tuple[str, list[tuple[int, int]]]]:
    """The plain and the quoted line of `words`, each with every word's span in it (one line
    when no word needs quotes)."""
    lines: list[tuple[str, list[tuple[int, int]]]] = []
    for render in (str, quoted_word):
        rendered = [render(word) for word in words]
        spans: list[tuple[int, int]] = []
        offset = 0
        for text in rendered:
            spans.append((offset, offset + len(text)))
            offset += len(text) + 1
        line = " ".join(rendered)
        if not lines or line != lines[0][0]:
            lines.append((line, spans))
    return lines
