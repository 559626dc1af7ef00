"""Files named inside sed scripts and awk programs (`r FILE`, `w FILE`, `getline < FILE`, ...).

Both scanners are closed-world: a construct they do not understand (sed `e`, an awk pipe or
`system()`, a computed redirection target) is reported as opaque instead of being skipped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from evaluator.vocabulary import AccessKind


@dataclass
class ProgramFiles:
    accesses: list[tuple[AccessKind, str]] = field(default_factory=list)
    opaque: list[str] = field(default_factory=list)


_SED_SIMPLE = set("=dDgGhHlnNpPqQxzF{}!")
_SED_LABELLED = set(":btT")
_SED_TEXT = set("aic")


def scan_sed(script: str) -> ProgramFiles:
    found = ProgramFiles()
    i, n = 0, len(script)

    def rest_of_line(start: int) -> tuple[str, int]:
        end = script.find("\n", start)
        end = n if end < 0 else end
        return script[start:end].strip(), end

    def skip_delimited(start: int, delimiter: str) -> int:
        j = start
        while j < n and script[j] != delimiter:
            j += 2 if script[j] == "\\" else 1
        return j + 1

    while i < n:
        char = script[i]
        if char in " \t\n;":
            i += 1
            continue
        # Addresses: numbers, $, /regex/, \cREGEXc, first~step, addr1,addr2, then `!`.
        while i < n and (script[i].isdigit() or script[i] in "$,~+ !/\\"):
            if script[i] == "/":
                i = skip_delimited(i + 1, "/")
            elif script[i] == "\\" and i + 1 < n:
                i = skip_delimited(i + 2, script[i + 1])
            else:
                i += 1
        if i >= n:
            break
        command = script[i]
        i += 1
        if command == "#":
            _, i = rest_of_line(i)
        elif command in _SED_LABELLED:
            while i < n and script[i] not in ";\n":
                i += 1
        elif command in _SED_TEXT:
            while i < n and script[i] != "\n":
                i += 2 if script[i] == "\\" else 1
        elif command in "rRwW":
            name, i = rest_of_line(i)
            found.accesses.append(("read" if command in "rR" else "write", name))
        elif command == "e":
            found.opaque.append("sed `e` runs a command")
            _, i = rest_of_line(i)
        elif command in "sy":
            if i >= n:
                break
            delimiter = script[i]
            i = skip_delimited(i + 1, delimiter)
            i = skip_delimited(i, delimiter)
            if command == "s":
                while i < n and script[i] not in ";\n}":
                    flag = script[i]
                    if flag == "w":
                        name, i = rest_of_line(i + 1)
                        found.accesses.append(("write", name))
                        break
                    if flag == "e":
                        found.opaque.append("sed s///e runs the pattern space as a command")
                    i += 1
        elif command in _SED_SIMPLE:
            if command in "qQlL":
                while i < n and (script[i].isdigit() or script[i] == " "):
                    i += 1
        else:
            found.opaque.append(f"sed command {command!r} is not modelled")
            break
    return found


# awk: strings, regex literals and the statements that name files or run commands.
_AWK_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_AWK_REDIRECT = re.compile(r"\b(print|printf)\b([^;{}\n]*)")
_AWK_GETLINE = re.compile(
    r"getline\s*(?:[A-Za-z_][A-Za-z_0-9]*(?:\[[^\]]*\])?)?\s*<\s*(\S.*?)\s*(?:[;}\n)]|$)"
)


def _awk_target(expression: str) -> str | None:
    expression = expression.strip()
    match = _AWK_STRING.fullmatch(expression)
    return match.group(0)[1:-1] if match else None


def _top_level(text: str, chars: str) -> int:
    """Index of the first of `chars` outside parentheses and strings, or -1."""
    depth, in_string, j = 0, False, 0
    while j < len(text):
        c = text[j]
        if in_string:
            if c == "\\":
                j += 1
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c in chars and depth == 0:
            return j
        j += 1
    return -1


def scan_awk(program: str) -> ProgramFiles:
    found = ProgramFiles()
    bare = _AWK_STRING.sub('""', program)
    if re.search(r"\bsystem\s*\(", bare) or re.search(r"\|\s*getline", bare):
        found.opaque.append("awk runs a command (system() or a pipe into getline)")
    if re.search(r"@include|@load", bare):
        found.opaque.append("awk @include/@load reads code not shown")
    if re.search(r"\bARG[VC]\b", bare):
        # `ARGV[1] = "/etc/passwd"` makes awk read a file its command line does not name.
        found.opaque.append("awk changes which files it reads (ARGV, ARGC)")
    for match in _AWK_REDIRECT.finditer(program):
        statement = match.group(2)
        index = _top_level(statement, ">|")
        if index < 0:
            continue
        if statement[index] == "|":
            found.opaque.append("awk print into a command pipe")
            continue
        target = statement[index + 1 :].lstrip(">")
        path = _awk_target(target)
        if path is None:
            found.opaque.append(f"awk output to a computed file {target.strip()!r}")
        elif path not in ("/dev/stdout", "/dev/stderr", "-"):
            found.accesses.append(("write", path))
    for match in _AWK_GETLINE.finditer(program):
        path = _awk_target(match.group(1))
        if path is None:
            found.opaque.append(f"awk getline from a computed file {match.group(1)!r}")
        else:
            found.accesses.append(("read", path))
    return found
