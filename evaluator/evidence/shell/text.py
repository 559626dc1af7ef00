"""Words as bash gives them to a command: ANSI-C strings, brace expansion, what `echo` and
`printf` print."""

from __future__ import annotations

import re


def decode_ansi_c(body: str) -> str | None:
    """The value of a bash `$'...'` body, or None for escapes we do not model (`\\c`)."""
    out: list[str] = []
    i = 0
    simple = {
        "n": "\n",
        "t": "\t",
        "r": "\r",
        "a": "\a",
        "b": "\b",
        "f": "\f",
        "v": "\v",
        "e": "\x1b",
        "E": "\x1b",
        "\\": "\\",
        "'": "'",
        '"': '"',
        "?": "?",
    }
    while i < len(body):
        char = body[i]
        if char != "\\" or i + 1 >= len(body):
            out.append(char)
            i += 1
            continue
        code = body[i + 1]
        if code in simple:
            out.append(simple[code])
            i += 2
        elif code == "x":
            digits = re.match(r"[0-9a-fA-F]{1,2}", body[i + 2 :])
            if not digits:
                return None
            out.append(chr(int(digits.group(0), 16)))
            i += 2 + len(digits.group(0))
        elif code in "uU":
            digits = re.match(
                r"[0-9a-fA-F]{1,8}" if code == "U" else r"[0-9a-fA-F]{1,4}", body[i + 2 :]
            )
            if not digits:
                return None
            out.append(chr(int(digits.group(0), 16)))
            i += 2 + len(digits.group(0))
        elif code in "01234567":
            digits = re.match(r"[0-7]{1,3}", body[i + 1 :])
            assert digits is not None
            out.append(chr(int(digits.group(0), 8)))
            i += 1 + len(digits.group(0))
        else:
            return None
    return "".join(out)


def expand_braces(text: str, limit: int = 64) -> list[str] | None:
    """Bash brace expansion of unquoted text: `{a,b}` lists and `{1..3}`/`{a..c}` ranges.
    None when the result would be too large to enumerate."""
    depth, start = 0, -1
    for index, char in enumerate(text):
        if char == "\\":
            continue
        if char == "{" and (index == 0 or text[index - 1] not in "\\$"):
            if depth == 0:
                start = index
            depth += 1
        elif char == "}" and depth > 0:
            depth -= 1
            if depth == 0:
                inner = text[start + 1 : index]
                options = _brace_options(inner)
                if options is None:
                    rest = expand_braces(text[index + 1 :], limit)
                    if rest is None:
                        return None
                    return [text[: index + 1] + r for r in rest]
                results: list[str] = []
                for option in options:
                    expanded = expand_braces(text[:start] + option + text[index + 1 :], limit)
                    if expanded is None:
                        return None
                    results.extend(expanded)
                    if len(results) > limit:
                        return None
                return results
    return [text]


def _brace_options(inner: str) -> list[str] | None:
    parts, depth, current = [], 0, ""
    for char in inner:
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
            continue
        depth += {"{": 1, "}": -1}.get(char, 0)
        current += char
    parts.append(current)
    if len(parts) > 1:
        return parts
    match = re.fullmatch(r"(-?\d+)\.\.(-?\d+)|([a-zA-Z])\.\.([a-zA-Z])", inner)
    if match is None:
        return None
    if match.group(1) is not None:
        low, high = int(match.group(1)), int(match.group(2))
        step = 1 if high >= low else -1
        return [str(n) for n in range(low, high + step, step)][:65]
    low_c, high_c = ord(match.group(3)), ord(match.group(4))
    step = 1 if high_c >= low_c else -1
    return [chr(c) for c in range(low_c, high_c + step, step)]


def echo_text(args: list[str | None]) -> str | None:
    words = list(args)
    newline, escapes = True, False
    while words and words[0] is not None and re.fullmatch(r"-[neE]+", words[0]):
        flags = words.pop(0) or ""
        newline = newline and "n" not in flags
        escapes = "e" in flags or (escapes and "E" not in flags)
    if any(w is None for w in words):
        return None
    text = " ".join(w for w in words if w is not None)
    if escapes:
        decoded = decode_ansi_c(text)
        if decoded is None:
            return None
        text = decoded
    return text + ("\n" if newline else "")


def printf_text(args: list[str | None]) -> str | None:
    if not args or args[0] is None or args[0] == "-v":
        return None
    fmt = decode_ansi_c(args[0])
    values = args[1:]
    if fmt is None or any(v is None for v in values):
        return None
    if "%" not in fmt.replace("%%", ""):
        return fmt.replace("%%", "%") if not values else None
    if re.fullmatch(r"(?:[^%]|%%)*%s(?:[^%]|%%)*", fmt):
        return "".join(
            fmt.replace("%%", "\0").replace("%s", v or "").replace("\0", "%")
            for v in values or [""]
        )
    return None


def quote(word: str) -> str:
    return "'" + word.replace("'", "'\\''") + "'"


def unescape(text: str) -> str:
    if "\\" not in text:
        return text  # most words: nothing escaped
    out, escaped = [], False
    for char in text:
        if escaped:
            out.append(char)
            escaped = False
        elif char == "\\":
            escaped = True
        else:
            out.append(char)
    return "".join(out)


def looks_like_path(raw: str) -> bool:
    return "/" in raw or raw.startswith((".", "~")) or raw in ("..", ".")


def path_guesses(raw: str) -> list[str]:
    """The paths a word given to a program whose options are not modelled may name: the word
    itself when it looks like a path, and the value in `--name=VALUE`, `name=VALUE` (dd's
    `if=`, make's variables) or `-xVALUE` (a short option glued to its value)."""
    guesses: list[str] = []
    if not raw.startswith("-") and looks_like_path(raw):
        guesses.append(raw)
    if "=" in raw:
        guesses.append(raw.split("=", 1)[1])
    elif raw.startswith("-") and not raw.startswith("--") and len(raw) > 2:
        guesses.append(raw[2:])
    return [g for g in guesses if g and looks_like_path(g)]
