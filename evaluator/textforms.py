"""A text in any mix of the character escapes a file or a tool can hold it in.

A value written `%41BC`, `\\u0041BC`, `&#65;BC` or `\\ABC` is `ABC` to whatever decodes it (a
URL, a JSON or Python string, HTML, a shell word), and a tool that decodes a file's text prints
it plain. Escaping only some characters is free to a writer, so a search that knows only the
whole-text encodings misses a value with one character escaped. `escaped_pattern` matches the
text with each character raw or in any of those escapes, independently.
"""

from __future__ import annotations

import re

# Leading zeros a numeric escape may carry (`&#0065;`, `\u0041`): bounded, so that a match has a
# bounded length (a chunked search overlaps by it).
_MAX_ZEROS = 4
# The longest one character can be written: `&#x` + zeros + 6 hex digits + `;`, or four `%XX`.
_LONGEST_ESCAPE = 3 + _MAX_ZEROS + 6 + 1
_NAMED_ENTITIES = {"&": "amp", "<": "lt", ">": "gt", '"': "quot", "'": "apos", " ": "nbsp"}


def _digits(number: int, base: int) -> bytes:
    """`number` in `base` (16 or 10), either case, up to `_MAX_ZEROS` leading zeros."""
    text = format(number, "x" if base == 16 else "d")
    either = "".join(f"[{d.lower()}{d.upper()}]" if d.isalpha() else d for d in text)
    return f"0{{0,{_MAX_ZEROS}}}{either}".encode("ascii")


def _character(char: str) -> bytes:
    """A regex (bytes) for one character raw or in any of its escapes."""
    raw = char.encode("utf-8")
    point = ord(char)
    forms = [re.escape(raw)]
    forms.append(rb"\\" + re.escape(raw))  # `\"`, `\/`, `\_`: a backslash-escaped character
    forms.append(b"".join(b"%" + _digits(byte, 16) for byte in raw))  # percent-encoded
    forms.append(rb"&#[xX]" + _digits(point, 16) + b";?")
    forms.append(rb"&#" + _digits(point, 10) + b";?")
    if char in _NAMED_ENTITIES:
        forms.append(b"&" + _NAMED_ENTITIES[char].encode("ascii") + b";")
    if char == " ":
        forms.append(rb"\+")  # a form's encoding of a space
    forms.append(rb"\\[uU]\{?" + _digits(point, 16) + rb"\}?")  # JSON, JS, Python, Rust
    if point < 0x100:
        forms.append(rb"\\[xX]" + _digits(point, 16))
        forms.append(rb"\\0{0,1}" + format(point, "o").encode("ascii"))  # C's octal
    return b"(?:" + b"|".join(forms) + b")"


def escaped_pattern(text: str) -> bytes:
    """A regex source (bytes) matching `text` with each character raw or escaped."""
    return b"".join(_character(char) for char in text)


def longest_match(text: str) -> int:
    """An upper bound on the length in bytes of a match of `escaped_pattern(text)`."""
    return sum(max(_LONGEST_ESCAPE, 3 * len(char.encode("utf-8"))) for char in text)
