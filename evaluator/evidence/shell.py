"""Which paths a shell command touches, from a real bash parse (tree-sitter-bash).

Closed world: every command is looked up in the command table (`commands.py`) or has a handler
here; anything else (an unknown command, a computed command name, `eval`, aliases, functions,
unmodelled expansion, program text that cannot be read) is reported as opaque, which makes the
session `unverifiable`. Paths are resolved lexically against the cwd in force at that point of
the command (`cd` chains included); symlinks on disk are the isolation stage's business, while
scripts and symlinks the session itself creates are reported (`runs`, `contents`, `symlinks`) so
the normaliser can follow them across commands.

Results are cached per (command text, cwd, home): sessions repeat the same commands often.
"""

from __future__ import annotations

import base64
import binascii
import posixpath
import re
import sys
from dataclasses import dataclass, field
from functools import cache, lru_cache
from typing import Literal

import tree_sitter_bash
from tree_sitter import Language, Node, Parser

from evaluator.evidence.commands import (
    COMMANDS,
    PATH_ROLES,
    PREFIX_COMMANDS,
    PREFIX_LEADING_OPERANDS,
    PYTHON_MODULES,
    PYTHON_TREE_MODULES,
    SHELLS,
    SUMMARISING_FLAGS,
    UNSAFE_VARIABLES,
    UV_RUN,
    CommandModel,
    Role,
    words,
)
from evaluator.evidence.programs import scan_awk, scan_sed
from evaluator.evidence.pycode import analyze_python
from evaluator.kernelpaths import join_path
from evaluator.vocabulary import AccessKind

HOME_MARK = "~"
MAX_DEPTH = 6
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


@dataclass(frozen=True)
class ScriptRun:
    """A program file the command runs; what it does depends on its content."""

    path: str
    language: ProgramLanguage
    via: str
    tree: bool = False  # runs every program under `path` (pytest, make)


@dataclass(frozen=True)
class ContentWrite:
    """A file the command (re)wrote; `content` is None when it cannot be known."""

    path: str
    content: str | None
    append: bool = False


@dataclass
class ShellAnalysis:
    accesses: list[PathAccess] = field(default_factory=list)
    opaque: list[str] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)
    runs: list[ScriptRun] = field(default_factory=list)
    contents: list[ContentWrite] = field(default_factory=list)
    symlinks: list[tuple[str, str]] = field(default_factory=list)  # (link, target)
    copies: list[tuple[str, str]] = field(default_factory=list)  # (source, destination)
    final_cwd: str = "/"


@cache
def _parser() -> Parser:
    return Parser(Language(tree_sitter_bash.language()))


def analyze_command(command: str, cwd: str, home: str | None = None) -> ShellAnalysis:
    """The paths `command` touches when run in `cwd`. The result is shared: do not mutate it."""
    return _analyze_cached(command, posixpath.normpath(cwd), home)


@lru_cache(maxsize=1024)
def _analyze_cached(command: str, cwd: str, home: str | None) -> ShellAnalysis:
    return _analyze(command, cwd, home, 0)


def _analyze(command: str, cwd: str, home: str | None, depth: int) -> ShellAnalysis:
    result = ShellAnalysis(final_cwd=cwd)
    if depth > MAX_DEPTH:
        result.opaque.append("shell code nested too deeply")
        return result
    tree = _parser().parse(command.encode("utf-8"))
    walker = _Walker(result, home, depth)
    walker.cwd = cwd
    if tree.root_node.has_error:
        result.opaque.append("the command does not parse as bash")
    walker.statements(tree.root_node)
    result.final_cwd = walker.cwd
    return result


def analyze_program(
    text: str, language: ProgramLanguage, cwd: str, home: str | None = None
) -> ShellAnalysis:
    """What a program file does when run, from its content (shell or Python)."""
    if language == "shell":
        return _analyze_cached(text, posixpath.normpath(cwd), home)
    result = ShellAnalysis(final_cwd=cwd)
    if language == "python":
        walker = _Walker(result, home, 0)
        walker.cwd = cwd
        walker.python(text, "python script")
    else:
        result.opaque.append("a program in a language that is not analysed")
    return result


def shebang_language(content: str, path: str) -> ProgramLanguage:
    first = content.split("\n", 1)[0]
    if first.startswith("#!"):
        words = first[2:].split()
        program = (
            posixpath.basename(words[-1] if words and words[0].endswith("env") else words[0])
            if words
            else ""
        )
        if program in SHELLS:
            return "shell"
        if program.startswith("python"):
            return "python"
        return "unknown"
    if path.endswith(".py"):
        return "python"
    if path.endswith((".sh", ".bash")) or not posixpath.splitext(path)[1]:
        return "shell"
    return "unknown"


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


def _echo_text(args: list[str | None]) -> str | None:
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


def _printf_text(args: list[str | None]) -> str | None:
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


class _Walker:
    def __init__(self, result: ShellAnalysis, home: str | None, depth: int) -> None:
        self.result = result
        self.home = home
        self.depth = depth
        self.cwd = "/"
        self.oldpwd: str | None = None
        self.dirs: list[str] = []
        self.vars: dict[str, str | None] = {}
        self.stdin_text: str | None = None  # literal text piped or here-doc'd into the command
        self.stdin_file: str | None = None  # a file whose content is the command's stdin
        self.env: dict[str, str | None] = {}  # prefix assignments of the command being applied

    # ------------------------------------------------------------------ values
    def value(self, node: Node) -> str | None:
        """The literal text of a word, or None when it depends on run-time expansion."""
        kind = node.type
        text = _text(node)
        if kind in ("word", "number"):
            if (kind == "word" and text in ("{", "}")) or ("{" in text and "," in text):
                return None  # brace expansion
            return _unescape(text)
        if kind == "raw_string":
            return text[1:-1]
        if kind == "string":
            parts = []
            for child in node.named_children:
                if child.type == "string_content":
                    parts.append(_text(child))
                else:
                    part = self.value(child)
                    if part is None:
                        return None
                    parts.append(part)
            return "".join(parts)
        if text == "{}":
            return text  # find -exec's placeholder, not a brace expansion
        if kind == "concatenation":
            children = node.named_children
            if any(c.type == "word" and _text(c) == "{" for c in children):
                return None  # brace expansion: `{a,b}/x`
            pieces = [self.value(child) for child in children]
            if any(p is None for p in pieces):
                return None
            return "".join(p for p in pieces if p is not None)
        if kind == "simple_expansion" or (kind == "expansion" and re.fullmatch(r"\$\{\w+\}", text)):
            name = text.strip("${}")
            if name == "HOME":
                return self.home or HOME_MARK
            if name == "PWD":
                return self.cwd
            if name == "OLDPWD":
                return self.oldpwd
            return self.vars.get(name)
        if kind == "ansi_c_string":
            return decode_ansi_c(text[2:-1])
        if kind == "command_substitution":
            # `$(echo X)`, `$(printf '%s' X)`, backticks: the literal they print.
            inner = [c for c in node.named_children if c.type != "comment"]
            if len(inner) == 1 and inner[0].type == "command":
                output = self.stage_output(inner[0])
                return output.rstrip("\n") if output is not None else None
        return None

    def expanded(self, node: Node) -> list[str | None]:
        """A word's values after brace expansion (`{a,b}/x` is two words)."""
        pieces = node.named_children if node.type == "concatenation" else [node]
        text = _text(node)
        if "{" in text and all(p.type in ("word", "brace_expression", "number") for p in pieces):
            alternatives = expand_braces(text)
            if alternatives is not None and alternatives != [text]:
                return [_unescape(a) for a in alternatives]
        return [self.value(node)]

    def glob_text(self, node: Node) -> str:
        """The word as pathname expansion sees it: quoted and escaped characters neutralised
        (`x`), unquoted expansions replaced by their known value (their result is globbed too)."""
        kind = node.type
        if kind == "word":
            return _ESCAPED.sub("x", _text(node))
        if kind == "concatenation":
            return "".join(self.glob_text(child) for child in node.named_children)
        if kind in ("simple_expansion", "expansion", "command_substitution"):
            value = self.value(node)
            if value is not None:
                return value
            return "*" if self.may_glob(node) else "x"
        return "x"  # strings, raw strings, ANSI-C strings, numbers: quoted, never globbed

    def may_glob(self, node: Node) -> bool:
        """Whether an unquoted expansion we cannot evaluate may carry a glob into the word: the
        output of a command substitution, a variable this command set to something computed
        (`x=$(cat f)`, `read x`), a positional parameter (a script's `$1`, `$@`), text a `${...}`
        inserts (`${x:-/o/*}`, `${x/a/*}`). A variable of the environment is the evaluator's own
        allowlisted one, taken as glob-free; a `${x#*/}` pattern only removes text."""
        if node.type == "command_substitution":
            return True
        match = re.match(r"\$\{?[#!]?(\w+|[@*])(\[[^]]*\])?(.*?)\}?$", _text(node), re.S)
        if match is None:
            return False
        name, rest = match.group(1), match.group(3) if node.type == "expansion" else ""
        inserted = ""
        if rest.startswith((":-", ":=", ":+", ":?")):
            inserted = rest[2:]
        elif rest.startswith(("-", "=", "+", "?")):
            inserted = rest[1:]
        elif rest.startswith("/"):
            inserted = rest.lstrip("/").partition("/")[2]
        if any(c in inserted for c in "*?["):
            return True
        if name.isdigit() or name in ("@", "*"):
            return True
        return name in self.vars and self.vars[name] is None

    def globbed(self, node: Node, via: str) -> None:
        """A word with an unquoted glob lists its directory, whatever the command does with the
        names it gets (`echo /outside/*` shows them): a `list` access of the pattern, judged by
        its directory part. A glob over a computed directory cannot be judged."""
        if node.type == "word" and not _GLOB_CHAR.search(_text(node)):
            return  # most words: no glob character at all, nothing to neutralise or expand
        if not _GLOB.search(self.glob_text(node)):
            return
        for value in self.expanded(node):
            if value is None:
                self.opaque(f"{via}: glob over a computed path {_text(node)}")
            else:
                self.add("list", value, f"{via} glob")

    def resolve(self, raw: str, base: str | None = None) -> str:
        if raw == "~" or raw.startswith("~/"):
            if self.home:
                return posixpath.normpath(self.home + raw[1:])
            return raw
        if raw.startswith(HOME_MARK):
            return raw
        # The command's process runs in `base or self.cwd`: that is its `/proc/self/cwd`.
        return join_path(base or self.cwd, raw, process_cwd=True)

    def add(
        self, kind: AccessKind, raw: str, via: str, base: str | None = None, guess: bool = False
    ) -> None:
        self.result.accesses.append(PathAccess(kind, self.resolve(raw, base), raw, via, guess))

    def opaque(self, reason: str) -> None:
        self.result.opaque.append(reason)

    def nested(self, code: str, via: str, cwd: str | None = None) -> None:
        inner = _analyze(code, cwd or self.cwd, self.home, self.depth + 1)
        self.merge(inner)

    def merge(self, inner: ShellAnalysis) -> None:
        self.result.accesses.extend(inner.accesses)
        self.result.opaque.extend(inner.opaque)
        self.result.commands.extend(inner.commands)
        self.result.runs.extend(inner.runs)
        self.result.contents.extend(inner.contents)
        self.result.symlinks.extend(inner.symlinks)
        self.result.copies.extend(inner.copies)

    def python(self, code: str, via: str, cwd: str | None = None) -> None:
        analysis = analyze_python(code)
        base = cwd or self.cwd
        for access in analysis.accesses:
            self.add(access.kind, access.path, f"{via} {access.how}", base, access.how == "literal")
        for command in analysis.commands:
            if isinstance(command, str):
                self.nested(command, via, base)
            else:
                self.apply(command[0], list(command[1:]), list(command[1:]))
        for reason in analysis.opaque:
            self.opaque(reason)

    # ------------------------------------------------------------------ statements
    def statements(self, node: Node) -> None:
        for child in node.named_children:
            self.statement(child)

    def statement(self, node: Node) -> None:
        kind = node.type
        if kind == "command":
            self.command(node, [])
        elif kind == "redirected_statement":
            self.redirected(node)
        elif kind == "pipeline":
            self.pipeline(node)
        elif kind in (
            "list",
            "program",
            "compound_statement",
            "do_group",
            "if_statement",
            "elif_clause",
            "else_clause",
            "while_statement",
            "case_statement",
            "case_item",
            "negated_command",
            "parenthesized_expression",
        ):
            self.statements(node)
        elif kind == "subshell":
            saved = self.cwd
            self.statements(node)
            self.cwd = saved
        elif kind == "for_statement":
            self.for_loop(node)
        elif kind == "c_style_for_statement":
            self.statements(node)
        elif kind == "function_definition":
            self.opaque("shell function definition")
        elif kind == "variable_assignment":
            self.assign(node, export=True)
        elif kind == "declaration_command":
            self.declaration(node)
        elif kind == "test_command":
            self.test_expression(node)
        elif kind in ("command_substitution", "process_substitution"):
            self.statements(node)
        elif kind in ("comment", "heredoc_body", "heredoc_start", "heredoc_end"):
            return
        elif kind in ("file_redirect", "heredoc_redirect", "herestring_redirect"):
            self.redirect(node)
        elif kind in ("variable_assignments",):
            for child in node.named_children:
                self.assign(child, export=True)
        elif (
            kind in ("word", "string", "raw_string", "concatenation", "number")
            or kind in ("unset_command",)
            or kind == "arithmetic_expansion"
        ):
            return
        else:
            self.opaque(f"shell construct {kind} is not modelled")

    def for_loop(self, node: Node) -> None:
        variable = node.child_by_field_name("variable")
        values = node.children_by_field_name("value")
        body = node.child_by_field_name("body")
        name = _text(variable) if variable is not None else ""
        for value_node in values:
            self.globbed(value_node, "for")
        words = [self.value(v) for v in values]
        if any(w is None for w in words) or not values:
            self.opaque("for loop over computed values")
            words = [None]
        for word in words[:20]:
            self.vars[name] = word
            if body is not None:
                self.statements(body)
        self.vars[name] = words[-1]  # bash keeps the last value

    def assign(self, node: Node, export: bool) -> None:
        if node.type != "variable_assignment":
            return
        name_node = node.child_by_field_name("name")
        value_node = node.child_by_field_name("value")
        name = _text(name_node) if name_node is not None else ""
        if value_node is not None:
            for sub in [*_descendants(value_node), value_node]:
                if sub.type in ("command_substitution", "process_substitution"):
                    self.statements(sub)
        if value_node is not None and value_node.type == "array":
            for element in value_node.named_children:
                self.globbed(element, f"{name}=( )")
        if name in UNSAFE_VARIABLES:
            self.opaque(f"assigns {name}, which changes what later commands run or read")
        value = self.value(value_node) if value_node is not None else ""
        if name == "HOME":
            self.home = value
        self.vars[name] = value

    def declaration(self, node: Node) -> None:
        for child in node.named_children:
            if child.type == "variable_assignment":
                self.assign(child, export=True)
            elif child.type == "variable_name" and _text(child) in UNSAFE_VARIABLES:
                self.opaque(f"declares {_text(child)}")

    def test_expression(self, node: Node) -> None:
        for sub in _descendants(node):
            if sub.type in ("command_substitution", "process_substitution"):
                self.statements(sub)
            if sub.type == "unary_expression":
                operator = sub.child_by_field_name("operator") or (
                    sub.named_children[0] if sub.named_children else None
                )
                operand = sub.named_children[-1] if sub.named_children else None
                if operator is not None and operand is not None and _text(operator) in _FILE_TESTS:
                    self.path_arg("metadata", self.value(operand), _text(operand), "test")
            elif sub.type == "binary_expression":
                operator = sub.child_by_field_name("operator")
                if operator is not None and _text(operator) in ("-nt", "-ot", "-ef"):
                    for side in (sub.child_by_field_name("left"), sub.child_by_field_name("right")):
                        if side is not None:
                            self.path_arg("metadata", self.value(side), _text(side), "test")

    def pipeline(self, node: Node, first_stdin: str | None = None) -> None:
        stages = [c for c in node.named_children if c.type != "comment"]
        start = len(self.result.accesses)
        previous_text: str | None = first_stdin
        previous_file: str | None = None
        for stage in stages:
            self.stdin_text, self.stdin_file = previous_text, previous_file
            previous_text = self.stage_output(stage)
            previous_file = self.stage_file(stage)
            self.statement(stage)
            self.stdin_text, self.stdin_file = None, None
        if stages and self.summarises(stages[-1]):
            self.demote(start)

    def stage_output(self, stage: Node) -> str | None:
        """What a literal-producing stage writes (`echo X |`, `printf X |`, `base64 -d` of it,
        `cat <<EOF` with a literal here-doc)."""
        if stage.type == "redirected_statement":
            body = stage.child_by_field_name("body")
            heredoc = next(
                (
                    c
                    for c in stage.named_children
                    if c.type in ("heredoc_redirect", "herestring_redirect")
                ),
                None,
            )
            if body is not None and heredoc is not None and self.words(body) == ["cat"]:
                return self.heredoc_text(heredoc)
            return None
        if stage.type != "command":
            return None
        words = self.words(stage)
        if not words or words[0] is None:
            return None
        name, args = posixpath.basename(words[0]), words[1:]
        if name == "echo":
            return _echo_text(args)
        if name == "printf":
            return _printf_text(args)
        if (
            name in ("base64", "base32")
            and any(a in ("-d", "--decode") for a in args)
            and self.stdin_text is not None
        ):
            try:
                return base64.b64decode(self.stdin_text, validate=False).decode("utf-8")
            except (binascii.Error, UnicodeDecodeError, ValueError):
                return None
        if name == "cat" and not args:
            return self.stdin_text
        return None

    def stage_file(self, stage: Node) -> str | None:
        """The one file a `cat FILE |` stage passes on unchanged."""
        if stage.type != "command":
            return None
        words = self.words(stage)
        if len(words) == 2 and words[0] == "cat" and words[1] is not None:
            return self.resolve(words[1])
        return None

    def words(self, command: Node) -> list[str | None]:
        name_node = command.child_by_field_name("name")
        if name_node is None:
            return []
        first = self.value(name_node.named_children[0]) if name_node.named_children else None
        return [first, *(self.value(a) for a in command.children_by_field_name("argument"))]

    def summarises(self, stage: Node) -> bool:
        while stage.type == "redirected_statement":
            body = stage.child_by_field_name("body")
            if body is None:
                return False
            stage = body
        if stage.type != "command":
            return False
        words = self.words(stage)
        if not words or words[0] is None:
            return False
        name = posixpath.basename(words[0])
        model = COMMANDS.get(name)
        if model is not None and model.summarises:
            return True
        flags = SUMMARISING_FLAGS.get(name, frozenset())
        return any(w in flags for w in words[1:])

    def demote(self, start: int) -> None:
        """Reads since `start` showed the agent no content (summarised, or sent elsewhere)."""
        accesses = self.result.accesses
        for index in range(start, len(accesses)):
            access = accesses[index]
            if access.kind == "read":
                accesses[index] = PathAccess(
                    "metadata", access.path, access.raw, access.via, access.guess
                )

    def redirected(self, node: Node) -> None:
        body = node.child_by_field_name("body")
        redirects = [c for c in node.named_children if c is not body]
        heredoc = next(
            (r for r in redirects if r.type in ("heredoc_redirect", "herestring_redirect")), None
        )
        saved = (self.stdin_text, self.stdin_file)
        if heredoc is not None:
            self.stdin_text = self.heredoc_text(heredoc)
        for redirect in _flatten_redirects(redirects):
            if redirect.type == "file_redirect" and _operator(redirect) == "<":
                destination = redirect.child_by_field_name("destination")
                raw = self.value(destination) if destination is not None else None
                self.stdin_file = self.resolve(raw) if raw else None
        start = len(self.result.accesses)
        output_target = self.output_target(redirects)
        if body is not None:
            if body.type == "command":
                self.command(body, redirects)
            else:
                self.statement(body)
        self.stdin_text, self.stdin_file = saved
        for redirect in redirects:
            self.redirect(redirect, stdout_handled=True)
        if output_target is not None:
            self.demote(start)
            if body is not None and body.type == "command":
                self.record_content(body, heredoc, output_target)
            elif output_target[0] and not output_target[0].startswith("/dev/"):
                self.result.contents.append(ContentWrite(self.resolve(output_target[0]), None))
        if heredoc is not None:
            feeds = body is not None and body.type == "command" and self.words(body) == ["cat"]
            self.heredoc_tail(heredoc, self.heredoc_text(heredoc) if feeds else None)

    def heredoc_tail(self, heredoc: Node, output: str | None) -> None:
        """tree-sitter puts what follows `<<EOF` on its line (`| sh`, `&& cat x`) inside the
        here-doc node: those commands run too, a pipeline with the here-doc's output as stdin."""
        for child in heredoc.named_children:
            if child.type in _HEREDOC_PARTS:
                continue
            if child.type == "pipeline":
                self.pipeline(child, first_stdin=output)
            elif child.type == "command" and output is not None:
                saved = self.stdin_text
                self.stdin_text = output
                self.statement(child)
                self.stdin_text = saved
            else:
                self.statement(child)

    def heredoc_text(self, node: Node) -> str | None:
        if node.type == "herestring_redirect":
            value = next((self.value(c) for c in node.named_children), None)
            return None if value is None else value + "\n"
        start = next((c for c in node.named_children if c.type == "heredoc_start"), None)
        body = next((c for c in node.named_children if c.type == "heredoc_body"), None)
        if body is None:
            return ""
        quoted = start is not None and _text(start)[:1] in ("'", '"', "\\")
        if not quoted and any(c.type != "heredoc_content" for c in body.named_children):
            return None  # expansions inside an unquoted here-doc
        return _text(body)

    def output_target(self, redirects: list[Node]) -> tuple[str, bool] | None:
        """Where the command's stdout goes when redirected: (raw target, append)."""
        for redirect in _flatten_redirects(redirects):
            if redirect.type != "file_redirect":
                continue
            descriptor = next((c for c in redirect.children if c.type == "file_descriptor"), None)
            operator = _operator(redirect)
            if descriptor is not None and _text(descriptor) != "1":
                continue
            if operator in (">", ">>", ">|", "&>", "&>>"):
                destination = redirect.child_by_field_name("destination")
                raw = self.value(destination) if destination is not None else None
                return (raw or "", operator in (">>", "&>>"))
        return None

    def record_content(self, body: Node, heredoc: Node | None, target: tuple[str, bool]) -> None:
        raw, append = target
        if not raw or raw.startswith("/dev/"):
            return
        words = self.words(body)
        name = posixpath.basename(words[0]) if words and words[0] else ""
        content: str | None = None
        if name == "echo":
            content = _echo_text(words[1:])
        elif name == "printf":
            content = _printf_text(words[1:])
        elif name == "cat" and len(words) == 1 and heredoc is not None:
            content = self.heredoc_text(heredoc)
        self.result.contents.append(ContentWrite(self.resolve(raw), content, append))

    def redirect(self, node: Node, stdout_handled: bool = False) -> None:
        for redirect in _flatten_redirects([node]):
            if redirect.type != "file_redirect":
                continue
            destination = redirect.child_by_field_name("destination")
            if destination is None:
                continue
            operator = _operator(redirect)
            self.globbed(destination, f"redirect {operator}")
            raw = self.value(destination)
            if raw is None:
                self.opaque(f"redirect to a computed path {_text(destination)!r}")
                continue
            if operator in (">&", "<&", ">&-", "<&-") and (raw.isdigit() or raw == "-"):
                continue
            writes = not operator.startswith("<") or operator == "<>"
            self.add("write" if writes else "read", raw, operator or ">")
            descriptor = next((c for c in redirect.children if c.type == "file_descriptor"), None)
            to_stdout = descriptor is None or _text(descriptor) == "1"
            if writes and not raw.startswith("/dev/") and not (to_stdout and stdout_handled):
                self.result.contents.append(ContentWrite(self.resolve(raw), None, ">>" in operator))

    # ------------------------------------------------------------------ commands
    def command(self, node: Node, redirects: list[Node]) -> None:
        env: dict[str, str | None] = {}
        for sub in node.named_children:
            if sub.type == "variable_assignment":
                variable_node = sub.child_by_field_name("name")
                value_node = sub.child_by_field_name("value")
                variable = _text(variable_node) if variable_node is not None else ""
                if variable in UNSAFE_VARIABLES:
                    self.opaque(f"runs a command with {variable} set")
                env[variable] = self.value(value_node) if value_node is not None else ""
            for inner in [sub, *_descendants(sub)]:
                if inner.type in ("command_substitution", "process_substitution"):
                    self.statements(inner)
        saved_stdin = self.stdin_text
        for child in node.named_children:
            if child.type == "file_redirect":
                self.redirect(child)
            elif child.type in ("herestring_redirect", "heredoc_redirect"):
                self.stdin_text = self.heredoc_text(child)
                self.redirect(child)
                self.heredoc_tail(child, None)
        name_node = node.child_by_field_name("name")
        if name_node is None:
            for variable, value in env.items():
                if variable not in UNSAFE_VARIABLES:
                    self.vars[variable] = value
                if variable == "HOME":
                    self.home = value
            return
        args_nodes = node.children_by_field_name("argument")
        name = self.value(name_node.named_children[0]) if name_node.named_children else None
        if name is None:
            self.opaque(f"command name is computed: {_text(name_node)!r}")
            return
        args: list[str | None] = []
        texts: list[str] = []
        for word in [*name_node.named_children[:1], *args_nodes]:
            self.globbed(word, name)
        for arg in args_nodes:
            for value in self.expanded(arg):
                args.append(value)
                texts.append(_text(arg))
        self.env = env
        self.apply(name, args, texts)
        self.env = {}
        self.stdin_text = saved_stdin

    def path_arg(
        self, kind: AccessKind, raw: str | None, text: str, via: str, base: str | None = None
    ) -> None:
        if raw is None:
            self.opaque(f"{via}: computed path {text}")
        elif raw not in ("-", ""):
            self.add(kind, raw, via, base)

    def role(
        self, role: Role, raw: str | None, text: str, via: str, base: str | None = None
    ) -> None:
        if role in PATH_ROLES:
            self.path_arg(role, raw, text, via, base)  # type: ignore[arg-type]
        elif role == "text":
            return
        elif raw is None:
            self.opaque(f"{via} with computed text {text}")
        elif role == "dir":
            self.add("cwd", raw, via, base)
        elif role == "shell":
            self.nested(raw, via, base)
        elif role == "python":
            self.python(raw, via, base)
        elif role in ("sed", "awk"):
            found = scan_sed(raw) if role == "sed" else scan_awk(raw)
            for kind, path in found.accesses:
                self.add(kind, path, f"{via} program", base)
            for reason in found.opaque:
                self.opaque(reason)
        else:
            self.opaque(f"{via} {text}: effect not modelled")

    def apply(self, name: str, args: list[str | None], texts: list[str]) -> None:
        base = posixpath.basename(name)
        self.result.commands.append(base)
        if "/" in name:
            self.add("exec", name, name)
            # Judged by what the name resolves to: `/proc/self/root/bin/sh` and `/tmp/../bin/sh`
            # are the system shell and are modelled as `sh`, not trusted as a target's program.
            if not self.resolve(name).startswith(("/usr/", "/bin/", "/sbin/")):
                self.result.runs.append(ScriptRun(self.resolve(name), "unknown", name))
                for raw in args:
                    if raw is not None and _looks_like_path(raw):
                        self.add("path", raw, name, guess=True)
                return
        handler = (
            getattr(self, f"cmd_{base.replace('-', '_')}", None)
            if base.isidentifier() or "-" in base
            else None
        )
        if base in ("[", "[["):
            self.cmd_test(args[:-1] if args and args[-1] in ("]", "]]") else args, texts)
        elif base in PREFIX_COMMANDS:
            self.prefix(base, args, texts)
        elif base in SHELLS:
            self.shell(base, args, texts)
        elif base.startswith("python") and re.fullmatch(r"python[0-9.]*", base):
            self.python_command(base, args, texts)
        elif handler is not None:
            handler(args, texts)
        elif base in COMMANDS:
            self.modelled(base, COMMANDS[base], args, texts)
        elif base in ("source", "."):
            if args and args[0] is not None:
                self.add("exec", args[0], base)
                self.result.runs.append(ScriptRun(self.resolve(args[0]), "shell", base))
            else:
                self.opaque(f"{base} of a computed path")
        else:
            self.opaque(f"command {base!r} is not modelled")

    def modelled(
        self,
        via: str,
        model: CommandModel,
        args: list[str | None],
        texts: list[str],
        base: str | None = None,
    ) -> list[tuple[str, str | None]]:
        options, operands = split_options(model, args, texts)
        names = {o for o, _ in options}
        for option, value in options:
            if option in model.roles:
                self.role(model.roles[option], value, str(value), f"{via} {option}", base)
            elif value is not None and option.startswith("--") and _looks_like_path(value):
                self.add("path", value, f"{via} {option}", base, guess=True)
        if model.first is not None and operands and not (names & model.first_unless):
            raw, text = operands.pop(0)
            self.role(model.first, raw, text, via, base)
        last: tuple[str | None, str] | None = None
        if model.last is not None and len(operands) >= 2 and not (names & model.last_unless):
            last = operands.pop()
        role = model.operands
        if role == "read" and names & model.quiet:
            role = "metadata"
        if not operands and model.default is not None:
            operands = [(model.default, model.default)]
        for raw, text in operands:
            self.role(role, raw, text, via, base)
            if (
                role == "write"
                and raw is not None
                and via not in ("mkdir", "touch", "chmod", "chown", "chgrp")
            ):
                self.result.contents.append(ContentWrite(self.resolve(raw, base), None))
        if last is not None and model.last is not None:
            self.role(model.last, last[0], last[1], via, base)
            if model.last == "write" and last[0] is not None:
                self.copy_contents(operands, last[0], base)
        return options

    def copy_contents(
        self, sources: list[tuple[str | None, str]], destination: str, base: str | None
    ) -> None:
        # The destination is rewritten; its content is unknown here (the normaliser copies known
        # content from a single source).
        self.result.contents.append(ContentWrite(self.resolve(destination, base), None))
        if len(sources) == 1 and sources[0][0] is not None:
            self.result.copies.append(
                (self.resolve(sources[0][0], base), self.resolve(destination, base))
            )

    # ------------------------------------------------------------------ families
    def prefix(self, base: str, args: list[str | None], texts: list[str]) -> None:
        model = PREFIX_COMMANDS[base]
        if base in ("command", "builtin") and args and args[0] in ("-v", "-V"):
            return
        options, rest = _leading_options(model, args, texts)
        for option, value in options:
            role = model.roles.get(option, "text")
            if role == "dir" and value is not None:
                self.add("cwd", value, f"{base} {option}")
                saved = self.cwd
                self.cwd = self.resolve(value)
                self.run_rest(rest[PREFIX_LEADING_OPERANDS.get(base, 0) :], base)
                self.cwd = saved
                return
            self.role(role, value, str(value), f"{base} {option}")
        if base == "sudo" and any(o in ("-s", "-i") for o, _ in options):
            self.opaque("sudo -s/-i runs a shell")
            return
        self.run_rest(rest[PREFIX_LEADING_OPERANDS.get(base, 0) :], base)

    def run_rest(self, rest: list[tuple[str | None, str]], via: str) -> None:
        if not rest:
            return
        name, _ = rest[0]
        if name is None:
            self.opaque(f"{via} runs a computed command")
            return
        self.apply(name, [r for r, _ in rest[1:]], [t for _, t in rest[1:]])

    def cmd_uv(self, args: list[str | None], texts: list[str]) -> None:
        if not args or args[0] != "run":
            self.opaque("uv other than `uv run` manages environments and packages")
            return
        options, rest = _leading_options(UV_RUN, args[1:], texts[1:])
        saved = self.cwd
        try:
            self.uv_run(options, rest)
        finally:
            self.cwd = saved  # `--directory` holds for this command only

    def uv_run(
        self, options: list[tuple[str, str | None]], rest: list[tuple[str | None, str]]
    ) -> None:
        raws, texts = [r for r, _ in rest], [t for _, t in rest]
        for option, value in options:
            if value is None:
                continue
            if option in ("--module", "-m"):
                self.python_module("uv run", value, raws, texts)
                return
            if option == "--script":
                self.python_command("uv run", [value, *raws], [value, *texts])
                return
            if option == "--directory":
                self.add("cwd", value, "uv run --directory")
                self.cwd = self.resolve(value)
                continue
            if option == "--project":
                self.add("read", value, "uv run --project")  # the project's configuration
                continue
            self.role(UV_RUN.roles.get(option, "text"), value, value, f"uv run {option}")
        if raws and raws[0] is not None and raws[0].endswith(".py"):
            self.python_command("uv run", raws, texts)
            return
        self.run_rest(rest, "uv run")

    def cmd_env(self, args: list[str | None], texts: list[str]) -> None:
        index = 0
        saved = self.cwd
        while index < len(args):
            raw = args[index]
            if raw is None:
                self.opaque("env with a computed argument")
                return
            if raw in ("-i", "--ignore-environment", "-0", "--null", "-"):
                index += 1
            elif raw in ("-u", "--unset"):
                index += 2
            elif raw.startswith("--unset="):
                index += 1
            elif raw in ("-C", "--chdir") or raw.startswith("--chdir="):
                value = (
                    raw.split("=", 1)[1]
                    if "=" in raw
                    else (args[index + 1] if index + 1 < len(args) else None)
                )
                index += 1 if "=" in raw else 2
                if value is None:
                    self.opaque("env --chdir to a computed directory")
                    return
                self.add("cwd", value, "env --chdir")
                self.cwd = self.resolve(value)
            elif raw in ("-S", "--split-string") or raw.startswith(("--split-string=", "-S")):
                if raw in ("-S", "--split-string"):
                    value = args[index + 1] if index + 1 < len(args) else None
                    index += 2
                else:
                    value = raw.split("=", 1)[1] if raw.startswith("--") else raw[2:]
                    index += 1
                if value is None:
                    self.opaque("env -S with computed text")
                    return
                rest_words = [w for w in args[index:]]
                self.nested(
                    value + "".join(" " + _quote(w) for w in rest_words if w is not None), "env -S"
                )
                self.cwd = saved
                return
            elif raw.startswith("-"):
                index += 1
            elif "=" in raw:
                name = raw.split("=", 1)[0]
                if name in UNSAFE_VARIABLES:
                    self.opaque(f"env sets {name}")
                index += 1
            else:
                break
        if index < len(args):
            self.apply(args[index] or "", args[index + 1 :], texts[index + 1 :])
        self.cwd = saved

    def cmd_eval(self, args: list[str | None], texts: list[str]) -> None:
        if args and all(a is not None for a in args):
            self.nested(" ".join(a for a in args if a is not None), "eval")
        else:
            self.opaque("eval runs computed text")

    def cmd_alias(self, args: list[str | None], texts: list[str]) -> None:
        if args:
            self.opaque("alias defines a command whose effect is not modelled")

    def cmd_trap(self, args: list[str | None], texts: list[str]) -> None:
        if args and args[0] not in ("-l", "-p") and args[0] != "-":
            self.role("shell", args[0], texts[0], "trap")

    def cmd_cd(self, args: list[str | None], texts: list[str]) -> None:
        operands = [a for a in args if a is None or not a.startswith("-") or a == "-"]
        target = operands[0] if operands else "~"
        if target is None:
            self.opaque("cd to a computed directory")
            return
        if target == "-":
            if self.oldpwd is None:
                self.opaque("cd - to an unknown directory")
                return
            target = self.oldpwd
        if "CDPATH" in self.vars and not target.startswith(("/", ".", "~")):
            self.opaque("cd with CDPATH set")
            return
        self.add("cwd", target, "cd")
        resolved = self.resolve(target)
        if resolved.startswith(HOME_MARK):
            self.opaque("cd into the home directory, whose path is not known")
            return
        self.oldpwd, self.cwd = self.cwd, resolved

    cmd_chdir = cmd_cd

    def cmd_pushd(self, args: list[str | None], texts: list[str]) -> None:
        before = self.cwd
        self.cmd_cd(args, texts)
        self.dirs.append(before)

    def cmd_popd(self, args: list[str | None], texts: list[str]) -> None:
        if not self.dirs:
            self.opaque("popd with an unknown directory stack")
            return
        self.cwd = self.dirs.pop()
        self.add("cwd", self.cwd, "popd")

    def cmd_export(self, args: list[str | None], texts: list[str]) -> None:
        for raw, text in zip(args, texts, strict=True):
            name = (raw or text).split("=", 1)[0]
            if name in UNSAFE_VARIABLES:
                self.opaque(f"export {name}")
            elif raw is not None and "=" in raw:
                key, value = raw.split("=", 1)
                self.vars[key] = value
                if key == "HOME":
                    self.home = value
            elif raw is None and "=" in text:
                self.vars[name] = None  # set to something computed

    def cmd_read(self, args: list[str | None], texts: list[str]) -> None:
        """`read NAME...` sets its variables to what it reads: computed (`REPLY` by default)."""
        options, operands = split_options(_READ_BUILTIN, args, texts)
        names = [raw for raw, _ in operands if raw is not None]
        names += [value for option, value in options if option == "-a" and value is not None]
        for name in names or ["REPLY"]:
            self.vars[name] = None

    def cmd_printf(self, args: list[str | None], texts: list[str]) -> None:
        """`printf -v NAME ...` sets a variable (known when every argument is literal)."""
        if len(args) >= 2 and args[0] == "-v" and args[1] is not None:
            self.vars[args[1]] = _printf_text(args[2:])

    def cmd_tee(self, args: list[str | None], texts: list[str]) -> None:
        options, operands = split_options(COMMANDS["tee"], args, texts)
        append = any(o in ("-a", "--append") for o, _ in options)
        for raw, text in operands:
            self.path_arg("write", raw, text, "tee")
            if raw is not None and not raw.startswith("/dev/"):
                self.result.contents.append(
                    ContentWrite(self.resolve(raw), self.stdin_text, append)
                )

    def cmd_xargs(self, args: list[str | None], texts: list[str]) -> None:
        self.opaque("xargs builds commands from its input")

    def cmd_test(self, args: list[str | None], texts: list[str]) -> None:
        for index, raw in enumerate(args):
            if raw in _FILE_TESTS and index + 1 < len(args):
                self.path_arg("metadata", args[index + 1], texts[index + 1], "test")
            elif raw in ("-nt", "-ot", "-ef") and 0 < index < len(args) - 1:
                self.path_arg("metadata", args[index - 1], texts[index - 1], "test")
                self.path_arg("metadata", args[index + 1], texts[index + 1], "test")

    def cmd_mktemp(self, args: list[str | None], texts: list[str]) -> None:
        model = COMMANDS_MKTEMP
        options, operands = split_options(model, args, texts)
        directory: str | None = None
        use_tmpdir = not operands
        for option, value in options:
            if option in ("-p", "--tmpdir"):
                directory = value if value else None
                use_tmpdir = True
            elif option == "-t":
                use_tmpdir = True
        if use_tmpdir and directory is None:
            env = getattr(self, "env", {})
            directory = env.get("TMPDIR") if "TMPDIR" in env else self.vars.get("TMPDIR", "/tmp")
        if directory is None and use_tmpdir:
            self.opaque("mktemp in a computed TMPDIR")
            return
        template = operands[0][0] if operands else "tmp.XXXXXXXXXX"
        if template is None:
            self.opaque("mktemp with a computed template")
            return
        path = posixpath.join(directory, template) if use_tmpdir and directory else template
        self.add("write", path.replace("X", "?"), "mktemp")

    def cmd_ln(self, args: list[str | None], texts: list[str]) -> None:
        options, operands = split_options(COMMANDS_LN, args, texts)
        names = {o for o, _ in options}
        symbolic = bool(names & {"-s", "--symbolic"})
        directory = next((v for o, v in options if o in ("-t", "--target-directory")), None)
        if any(raw is None for raw, _ in operands):
            self.opaque("ln with a computed path")
            return
        values = [raw for raw, _ in operands if raw is not None]
        if directory is not None:
            pairs = [(t, posixpath.join(directory, posixpath.basename(t))) for t in values]
        elif len(values) == 1:
            pairs = [(values[0], posixpath.basename(values[0]))]
        elif len(values) == 2:
            pairs = [(values[0], values[1])]
        else:
            pairs = [(t, posixpath.join(values[-1], posixpath.basename(t))) for t in values[:-1]]
        for target, link in pairs:
            link_path = self.resolve(link)
            self.add("write", link, "ln")
            if symbolic:
                # A symbolic link's target is resolved from the link's directory when used.
                resolved = self.resolve(target, posixpath.dirname(link_path))
                self.result.symlinks.append((link_path, resolved))
                self.add("metadata", target, "ln -s target", posixpath.dirname(link_path))
            else:
                self.add("write", target, "ln (hard link)")

    def cmd_dd(self, args: list[str | None], texts: list[str]) -> None:
        for raw, text in zip(args, texts, strict=True):
            if raw is None:
                self.opaque(f"dd: computed operand {text}")
            elif raw.startswith("if="):
                self.add("read", raw[3:], "dd")
            elif raw.startswith("of="):
                self.add("write", raw[3:], "dd")
                self.result.contents.append(ContentWrite(self.resolve(raw[3:]), None))

    def cmd_find(self, args: list[str | None], texts: list[str]) -> None:
        roots: list[str] = []
        index = 0
        while index < len(args) and args[index] in ("-H", "-L", "-P", "-O0", "-O1", "-O2", "-O3"):
            index += 1
        while index < len(args):
            raw = args[index]
            if raw is None:
                self.opaque(f"find: computed path {texts[index]}")
                return
            if raw.startswith(("-", "(", "!", ")")) or raw == ",":
                break
            roots.append(raw)
            index += 1
        roots = roots or ["."]
        for root in roots:
            self.add("list", root, "find")
        while index < len(args):
            raw = args[index]
            if raw in ("-exec", "-execdir", "-ok", "-okdir"):
                end = index + 1
                while end < len(args) and args[end] not in (";", "+"):
                    end += 1
                inner = args[index + 1 : end]
                for root in roots:
                    found = posixpath.join(root, "*")
                    words = [found if w is not None and "{}" in w else w for w in inner]
                    if not words or words[0] is None:
                        self.opaque("find -exec runs a computed command")
                        break
                    self.apply(words[0], words[1:], [w or "" for w in words[1:]])
                index = end + 1
                continue
            if raw in ("-fprint", "-fprint0", "-fprintf", "-fls"):
                if index + 1 < len(args):
                    self.path_arg("write", args[index + 1], texts[index + 1], f"find {raw}")
                index += 3 if raw == "-fprintf" else 2
                continue
            if raw in ("-newer", "-anewer", "-cnewer", "-samefile") or (raw or "").startswith(
                "-newer"
            ):
                if index + 1 < len(args):
                    self.path_arg("metadata", args[index + 1], texts[index + 1], f"find {raw}")
                index += 2
                continue
            if raw == "-delete":
                for root in roots:
                    self.add("write", root, "find -delete")
            if raw in _FIND_VALUE_OPTIONS:
                index += 2
                continue
            if raw is None:
                self.opaque("find: computed expression")
            index += 1

    def cmd_fd(self, args: list[str | None], texts: list[str]) -> None:
        options, operands = split_options(COMMANDS_FD, args, texts)
        if any(o in ("-x", "--exec", "-X", "--exec-batch") for o, _ in options):
            self.opaque("fd --exec runs commands on what it finds")
        for raw, text in operands[1:] or [(".", ".")]:
            self.path_arg("list", raw, text, "fd")

    def cmd_grep(self, args: list[str | None], texts: list[str]) -> None:
        options = self.modelled("grep", COMMANDS_GREP, args, texts)
        recursive = any(
            o in ("-r", "-R", "--recursive", "--dereference-recursive") for o, _ in options
        )
        _, operands = split_options(COMMANDS_GREP, args, texts)
        pattern_given = any(o in ("-e", "-f", "--regexp", "--file") for o, _ in options)
        files = operands if pattern_given else operands[1:]
        if recursive and not files:
            quiet = any(o in COMMANDS_GREP.quiet for o, _ in options)
            self.add("metadata" if quiet else "read", ".", "grep -r")

    cmd_egrep = cmd_grep
    cmd_fgrep = cmd_grep

    def cmd_rg(self, args: list[str | None], texts: list[str]) -> None:
        options, operands = split_options(COMMANDS_RG, args, texts)
        names = {o for o, _ in options}
        if names & {"--pre", "--pre-glob"}:
            self.opaque("rg --pre runs a command on every file")
        for option, value in options:
            if option in COMMANDS_RG.roles:
                self.role(COMMANDS_RG.roles[option], value, str(value), f"rg {option}")
        pattern_given = bool(names & {"-e", "--regexp", "-f", "--file"})
        files = operands if pattern_given else operands[1:]
        if "--files" in names:
            files = operands
        kind: AccessKind = "metadata" if names & COMMANDS_RG.quiet else "read"
        if "--files" in names:
            kind = "list"
        for raw, text in files or [(".", ".")]:
            self.path_arg(kind, raw, text, "rg")

    cmd_ag = cmd_rg
    cmd_ack = cmd_rg

    def cmd_sed(self, args: list[str | None], texts: list[str]) -> None:
        options, operands = split_options(COMMANDS_SED, args, texts)
        names = {o for o, _ in options}
        in_place = any(o == "-i" or o.startswith("--in-place") for o in names)
        scripts = [v for o, v in options if o in ("-e", "--expression")]
        for option, value in options:
            if option in ("-f", "--file"):
                self.path_arg("read", value, str(value), "sed -f")
                self.opaque("sed script read from a file")
        if not scripts and not names & {"-f", "--file"} and operands:
            scripts.append(operands.pop(0)[0])
        for script in scripts:
            self.role("sed", script, str(script), "sed")
        for raw, text in operands:
            self.path_arg("write" if in_place else "read", raw, text, "sed")
            if in_place and raw is not None:
                self.result.contents.append(ContentWrite(self.resolve(raw), None))

    def cmd_awk(self, args: list[str | None], texts: list[str]) -> None:
        options, operands = split_options(COMMANDS_AWK, args, texts)
        names = {o for o, _ in options}
        for option, value in options:
            if option in ("-f", "--file", "-i", "--include", "-l", "--load", "-E", "--exec"):
                self.path_arg("read", value, str(value), f"awk {option}")
                self.opaque("awk program read from a file")
        if not names & {"-f", "--file", "-E", "--exec"} and operands:
            raw, text = operands.pop(0)
            self.role("awk", raw, text, "awk")
        for raw, text in operands:
            if raw is not None and re.match(r"^[A-Za-z_]\w*=", raw):
                continue  # a variable assignment operand
            self.path_arg("read", raw, text, "awk")

    cmd_gawk = cmd_awk
    cmd_mawk = cmd_awk
    cmd_nawk = cmd_awk

    def cmd_tar(self, args: list[str | None], texts: list[str]) -> None:
        words = list(args)
        if (
            words
            and words[0] is not None
            and not words[0].startswith("-")
            and re.fullmatch(r"[A-Za-z]+", words[0])
        ):
            words[0] = "-" + words[0]  # old-style `tar xzf a.tar`
        options, operands = split_options(COMMANDS_TAR, words, texts)
        names = {o for o, _ in options}
        for option in names & {
            "--to-command",
            "--use-compress-program",
            "-I",
            "--info-script",
            "-F",
            "--new-volume-script",
            "--checkpoint-action",
            "--rsh-command",
            "--rmt-command",
        }:
            self.opaque(f"tar {option} runs a command")
        directory = self.cwd
        for option, value in options:
            if option in ("-C", "--directory"):
                if value is None:
                    self.opaque("tar -C with a computed directory")
                    return
                self.add("cwd", value, f"tar {option}", directory)
                directory = self.resolve(value, directory)
        create = bool(names & {"-c", "--create", "-r", "--append", "-u", "--update"})
        extract = bool(names & {"-x", "--extract", "--get"})
        for option, value in options:
            if option in ("-f", "--file"):
                self.path_arg("write" if create else "read", value, str(value), f"tar {option}")
            elif option in ("-T", "--files-from", "-X", "--exclude-from"):
                self.path_arg("read", value, str(value), f"tar {option}")
        for raw, text in operands:
            self.path_arg(
                "read" if create else "write" if extract else "metadata",
                raw,
                text,
                "tar",
                directory,
            )
        if extract:
            self.add("write", directory, "tar extract into")
            self.result.contents.append(ContentWrite(directory, None))

    def cmd_unzip(self, args: list[str | None], texts: list[str]) -> None:
        options, operands = split_options(COMMANDS_UNZIP, args, texts)
        directory = next((v for o, v in options if o == "-d"), ".")
        if operands:
            raw, text = operands[0]
            self.path_arg("read", raw, text, "unzip")
        listing = any(o in ("-l", "-v", "-t", "-Z") for o, _ in options)
        to_stdout = any(o in ("-p", "-c") for o, _ in options)
        if not listing and not to_stdout:
            self.path_arg("write", directory, str(directory), "unzip -d")
            if directory is not None:
                self.result.contents.append(ContentWrite(self.resolve(directory), None))

    def cmd_patch(self, args: list[str | None], texts: list[str]) -> None:
        options, operands = split_options(COMMANDS_PATCH, args, texts)
        directory = self.cwd
        for option, value in options:
            if option in ("-d", "--directory"):
                self.path_arg("cwd", value, str(value), "patch -d")
                if value is not None:
                    directory = self.resolve(value)
            elif option in ("-i", "--input"):
                self.path_arg("read", value, str(value), "patch -i")
            elif option in ("-o", "--output", "-r", "--reject-file"):
                self.path_arg("write", value, str(value), f"patch {option}")
        for raw, text in operands[:1]:
            self.path_arg("write", raw, text, "patch", directory)
        for raw, text in operands[1:2]:
            self.path_arg("read", raw, text, "patch", directory)
        if not operands:
            # The files come from the patch's own headers, which are not shown here.
            self.opaque("patch writes the files its input names")

    def cmd_git(self, args: list[str | None], texts: list[str]) -> None:
        index = 0
        directory = self.cwd
        while index < len(args):
            raw = args[index]
            if raw is None:
                self.opaque("git with a computed argument")
                return
            if raw in ("-C",):
                value = args[index + 1] if index + 1 < len(args) else None
                if value is None:
                    self.opaque("git -C with a computed directory")
                    return
                directory = self.resolve(value, directory)
                index += 2
            elif raw in ("-c", "--config-env"):
                setting = args[index + 1] if index + 1 < len(args) else None
                if setting is None or not _safe_git_setting(setting):
                    self.opaque(f"git -c {setting}: a setting that can run commands or move paths")
                index += 2
            elif raw.startswith(
                ("--git-dir", "--work-tree", "--exec-path", "--namespace", "--super-prefix")
            ):
                if "=" in raw:
                    self.add("path", raw.split("=", 1)[1], "git", directory)
                    index += 1
                else:
                    self.path_arg(
                        "path",
                        args[index + 1] if index + 1 < len(args) else None,
                        raw,
                        "git",
                        directory,
                    )
                    index += 2
            elif raw.startswith("-"):
                index += 1
            else:
                break
        self.add("path", directory, "git")
        if index >= len(args):
            return
        sub = args[index] or ""
        rest = args[index + 1 :]
        rest_texts = texts[index + 1 :]
        positional = [
            (r, t)
            for r, t in zip(rest, rest_texts, strict=True)
            if r is None or not r.startswith("-")
        ]
        if sub in ("init",) and positional:
            self.path_arg("write", positional[0][0], positional[0][1], "git init", directory)
        elif sub == "clone":
            values = [p for p in positional]
            if values:
                source = values[0][0] or ""
                if source.startswith("file://"):
                    self.add("read", source[7:], "git clone", directory)
                elif "://" not in source and "@" not in source.split("/")[0]:
                    self.path_arg("read", values[0][0], values[0][1], "git clone", directory)
            destination = values[1] if len(values) > 1 else None
            if destination is not None:
                self.path_arg("write", destination[0], destination[1], "git clone", directory)
            elif values and values[0][0]:
                name = posixpath.basename(values[0][0].rstrip("/")).removesuffix(".git")
                self.add("write", name, "git clone", directory)
        elif sub in ("diff",) and "--no-index" in rest:
            for raw, text in positional:
                self.path_arg("read", raw, text, "git diff --no-index", directory)
        elif sub in _GIT_OPAQUE:
            self.opaque(f"git {sub} runs commands or hooks not shown")
        else:
            for raw, _ in positional:
                if (
                    raw is not None
                    and (_looks_like_path(raw) or raw.startswith("/"))
                    and ":" not in raw
                ):
                    self.add("path", raw, f"git {sub}", directory)
            for option in rest:
                if option is not None and option.startswith("--") and "=" in option:
                    value = option.split("=", 1)[1]
                    if _looks_like_path(value):
                        self.add("path", value, f"git {sub}", directory)

    def cmd_script(self, args: list[str | None], texts: list[str]) -> None:
        options, operands = split_options(COMMANDS_SCRIPT, args, texts)
        for option, value in options:
            if option in ("-c", "--command"):
                self.role("shell", value, str(value), "script -c")
            elif option in (
                "-I",
                "-O",
                "-B",
                "-T",
                "--log-in",
                "--log-out",
                "--log-io",
                "--log-timing",
            ):
                self.path_arg("write", value, str(value), f"script {option}")
        for raw, text in operands or [("typescript", "typescript")]:
            self.path_arg("write", raw, text, "script")

    def cmd_make(self, args: list[str | None], texts: list[str]) -> None:
        options, _ = split_options(COMMANDS_MAKE, args, texts)
        directory = self.cwd
        makefile = None
        for option, value in options:
            if option in ("-C", "--directory"):
                self.path_arg("cwd", value, str(value), "make -C")
                if value is not None:
                    directory = self.resolve(value)
            elif option in ("-f", "--file", "--makefile"):
                makefile = value
        path = self.resolve(makefile or "Makefile", directory)
        self.add("read", path, "make")
        self.result.runs.append(ScriptRun(path, "unknown", "make"))

    def cmd_curl(self, args: list[str | None], texts: list[str]) -> None:
        options, operands = split_options(COMMANDS_CURL, args, texts)
        for option, value in options:
            if option in COMMANDS_CURL.roles:
                role = COMMANDS_CURL.roles[option]
                if (
                    value is not None
                    and option in ("-d", "--data", "--data-binary", "--data-urlencode", "--json")
                    and "@" in value
                ):
                    self.path_arg("read", value.split("@", 1)[1], value, f"curl {option}")
                elif (value is not None and option in ("-F", "--form") and "=@" in value) or (
                    value or ""
                ).startswith("@"):
                    self.path_arg(
                        "read",
                        (value or "").split("@", 1)[1].split(";")[0],
                        str(value),
                        f"curl {option}",
                    )
                elif option not in (
                    "-d",
                    "--data",
                    "--data-binary",
                    "--data-urlencode",
                    "--json",
                    "-F",
                    "--form",
                ):
                    self.role(role, value, str(value), f"curl {option}")
            elif option in ("-O", "--remote-name", "-J"):
                for raw, _ in operands:
                    if raw is not None:
                        self.add("write", posixpath.basename(raw.split("?")[0]) or ".", "curl -O")
        for raw, text in operands:
            if raw is None:
                self.opaque(f"curl of a computed URL {text}")
            elif raw.lower().startswith("file:"):
                self.add(
                    "read",
                    re.sub(r"^file:(//[^/]*)?", "", raw, flags=re.IGNORECASE) or "/",
                    "curl file://",
                )
            elif "://" not in raw and not re.match(r"^[\w.-]+(:\d+)?(/|$)", raw):
                self.opaque(f"curl of an unclear URL {raw}")

    def cmd_npm(self, args: list[str | None], texts: list[str]) -> None:
        self.opaque("npm/npx/pnpm/yarn run package scripts or downloaded code")

    cmd_npx = cmd_npm
    cmd_pnpm = cmd_npm
    cmd_yarn = cmd_npm
    cmd_pip = cmd_npm
    cmd_pip3 = cmd_npm

    def cmd_pytest(self, args: list[str | None], texts: list[str]) -> None:
        operands = [
            (a, t) for a, t in zip(args, texts, strict=True) if a is None or not a.startswith("-")
        ]
        for raw, text in operands or [(".", ".")]:
            self.path_arg("read", raw, text, "pytest")
            if raw is not None:
                self.result.runs.append(
                    ScriptRun(self.resolve(raw.split("::")[0]), "python", "pytest", tree=True)
                )

    def cmd_node(self, args: list[str | None], texts: list[str]) -> None:
        self.interpreter(
            "node",
            args,
            texts,
            code_flags="ep",
            long_code={"--eval", "--print"},
            value_flags="r",
            long_values={"--require", "--import", "--loader", "--input-type"},
        )

    cmd_nodejs = cmd_node
    cmd_deno = cmd_node

    def cmd_perl(self, args: list[str | None], texts: list[str]) -> None:
        self.interpreter(
            "perl",
            args,
            texts,
            code_flags="eE",
            long_code=set(),
            value_flags="IMmx",
            long_values=set(),
        )

    cmd_ruby = cmd_perl
    cmd_php = cmd_perl

    def interpreter(
        self,
        base: str,
        args: list[str | None],
        texts: list[str],
        *,
        code_flags: str,
        long_code: set[str],
        value_flags: str,
        long_values: set[str],
    ) -> None:
        if args[:1] and args[0] in _INFO_FLAGS:
            return
        index = 0
        while index < len(args):
            raw = args[index]
            if raw is None:
                self.opaque(f"{base}: computed argument {texts[index]}")
                return
            if raw in long_code or (
                raw.startswith("-")
                and not raw.startswith("--")
                and any(c in raw[1:] for c in code_flags)
            ):
                code = _inline_code(
                    raw,
                    args[index + 1] if index + 1 < len(args) else None,
                    code_flags,
                    raw in long_code,
                )
                if code is None or not _trivially_path_free(code):
                    self.opaque(f"{base} {raw} runs inline code whose paths cannot be known")
                for rest in args[index + 2 :]:
                    if rest is not None and _looks_like_path(rest):
                        self.add("read", rest, base)
                return
            if raw in long_values or (raw[:2] in {f"-{c}" for c in value_flags} and len(raw) == 2):
                index += 2
                continue
            if raw.startswith("-"):
                index += 1
                continue
            self.add("exec", raw, base)
            self.result.runs.append(ScriptRun(self.resolve(raw), "unknown", base))
            for rest in args[index + 1 :]:
                if rest is not None and _looks_like_path(rest):
                    self.add("path", rest, base, guess=True)
            return
        self.stdin_program(base, "unknown")

    def stdin_program(self, base: str, language: ProgramLanguage) -> None:
        """A program read from stdin: analysed when the stdin text is known."""
        if self.stdin_text is not None:
            if language == "shell":
                self.nested(self.stdin_text, base)
            elif language == "python":
                self.python(self.stdin_text, base)
            else:
                self.opaque(f"{base} runs code from stdin whose paths cannot be known")
        elif self.stdin_file is not None:
            # `cat s.sh | bash`, `bash < s.sh`: the file is the program.
            self.result.runs.append(ScriptRun(self.stdin_file, language, f"{base} < file"))
        else:
            self.opaque(f"{base} runs code from stdin that is not shown")

    def shell(self, base: str, args: list[str | None], texts: list[str]) -> None:
        if args[:1] and args[0] in _INFO_FLAGS:
            return
        index = 0
        command_mode = False
        while index < len(args):
            raw = args[index]
            if raw is None:
                self.opaque(f"{base}: computed argument {texts[index]}")
                return
            if raw == "--":
                index += 1
                break
            if raw in ("-o", "+o", "-O", "+O"):
                index += 2
                continue
            if raw in ("--rcfile", "--init-file"):
                self.opaque(f"{base} {raw} sources a file")
                index += 2
                continue
            if raw.startswith("--"):
                index += 1
                continue
            if raw.startswith(("-", "+")) and len(raw) > 1:
                command_mode = command_mode or "c" in raw[1:]
                if "s" in raw[1:] and not command_mode:
                    index += 1
                    self.stdin_program(base, "shell")
                    return
                index += 1
                continue
            break
        operands = args[index:]
        if command_mode:
            if not operands:
                self.opaque(f"{base} -c without text")
                return
            self.role("shell", operands[0], texts[index], f"{base} -c")
            return
        if not operands:
            self.stdin_program(base, "shell")
            return
        script = operands[0]
        if script is None:
            self.opaque(f"{base}: computed script {texts[index]}")
            return
        self.add("exec", script, base)
        self.result.runs.append(ScriptRun(self.resolve(script), "shell", base))
        for rest in operands[1:]:
            if rest is not None and _looks_like_path(rest):
                self.add("path", rest, base, guess=True)

    def python_command(self, base: str, args: list[str | None], texts: list[str]) -> None:
        if args[:1] and args[0] in _INFO_FLAGS:
            return
        index = 0
        while index < len(args):
            raw = args[index]
            if raw is None:
                self.opaque(f"{base}: computed argument {texts[index]}")
                return
            if raw == "-":
                self.stdin_program(base, "python")
                return
            if raw.startswith("--"):
                index += 1
                continue
            if raw.startswith("-") and len(raw) > 1:
                letters = raw[1:]
                for position, letter in enumerate(letters):
                    if letter in "cm":
                        value = letters[position + 1 :] or (
                            args[index + 1] if index + 1 < len(args) else None
                        )
                        consumed = 1 if letters[position + 1 :] else 2
                        rest = args[index + consumed :]
                        rest_texts = texts[index + consumed :]
                        if letter == "c":
                            self.role("python", value, str(value), f"{base} -c")
                            for extra in rest:
                                if extra is not None and _looks_like_path(extra):
                                    self.add("path", extra, base, guess=True)
                        else:
                            self.python_module(base, value, rest, rest_texts)
                        return
                    if letter in "XWQ":
                        index += 0 if letters[position + 1 :] else 1
                        break
                index += 1
                continue
            self.add("exec", raw, base)
            self.result.runs.append(ScriptRun(self.resolve(raw), "python", base))
            for extra in args[index + 1 :]:
                if extra is not None and _looks_like_path(extra):
                    self.add("path", extra, base, guess=True)
            return
        self.stdin_program(base, "python")

    def python_module(
        self, base: str, module: str | None, args: list[str | None], texts: list[str]
    ) -> None:
        if module is None:
            self.opaque(f"{base} -m with a computed module")
        elif module in PYTHON_MODULES:
            self.modelled(f"{base} -m {module}", PYTHON_MODULES[module], args, texts)
        elif module in PYTHON_TREE_MODULES:
            self.cmd_pytest(args, texts)
        elif module in ("pip",):
            self.opaque("pip installs or runs code outside the workspace")
        else:
            # `-m` looks in the working directory first: a skill's `python -m scripts.tool`
            # runs scripts/tool.py there. It may as well be an installed module, whose effect
            # is unknown, so the construct stays opaque (the trace can still vouch for it).
            if (
                re.fullmatch(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*", module)
                and module.split(".")[0] not in sys.stdlib_module_names
            ):
                self.add("exec", module.replace(".", "/") + ".py", f"{base} -m {module}")
            self.opaque(f"{base} -m {module}: module not modelled")
            for raw in args:
                if raw is not None and _looks_like_path(raw):
                    self.add("path", raw, f"{base} -m {module}", guess=True)


# ---------------------------------------------------------------------- option splitting


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


def _leading_options(
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


def _inline_code(flag: str, following: str | None, code_flags: str, long: bool) -> str | None:
    """The code of `-e CODE`, `-le CODE`, `-pe CODE` or `-eCODE`."""
    if long:
        return following
    letters = flag[1:]
    for position, letter in enumerate(letters):
        rest = letters[position + 1 :]
        if letter in code_flags:
            return following if all(c in code_flags for c in rest) else rest
    return following


def _trivially_path_free(code: str) -> bool:
    """Inline code that only prints literals (`print "hi"`, `console.log(1+2)`)."""
    return bool(
        re.fullmatch(
            r"\s*(print|say|puts|console\.log)\s*\(?\s*(\"[^\"$@{}`\\]*\"|'[^']*'|[0-9+*/ -]+)\s*\)?\s*;?\s*",
            code,
        )
    )


def _safe_git_setting(setting: str) -> bool:
    key = setting.split("=", 1)[0].lower()
    return key.startswith(
        ("user.", "color.", "init.defaultbranch", "advice.", "safe.directory")
    ) or key in (
        "core.quotepath",
        "log.showsignature",
        "commit.gpgsign",
    )


_HEREDOC_PARTS = frozenset(
    {"heredoc_start", "heredoc_body", "heredoc_end", "heredoc_content", "file_redirect"}
)
_INFO_FLAGS = frozenset(words("--version -V --help -h -v"))
_GIT_OPAQUE = frozenset(
    words("submodule filter-branch bisect daemon instaweb difftool mergetool send-email -p")
)
_READ_BUILTIN = CommandModel(operands="text", short_values="adinNptu")
_ESCAPED = re.compile(r"\\.")  # an escaped character, never a glob
_GLOB_CHAR = re.compile(r"[*?[]")  # a word without any of these cannot glob
# An active pathname-expansion character (after `glob_text`): `*`, `?` or a bracket expression.
_GLOB = re.compile(r"[*?]|\[[^]]*\]")
_FILE_TESTS = frozenset(words("-e -f -d -r -w -x -s -L -h -p -S -b -c -g -u -k -O -G -N"))
_FIND_VALUE_OPTIONS = frozenset(
    words(
        "-name -iname -path -ipath -regex -iregex -type -xtype -maxdepth -mindepth -size -mtime -mmin"
        " -atime -amin -ctime -cmin -user -group -perm -printf -wholename -iwholename -lname"
        " -ilname -uid -gid -inum -links -used -context -regextype -files0-from"
    )
)

COMMANDS_MKTEMP = CommandModel(short_values="p", long_values=frozenset(words("--tmpdir --suffix")))
COMMANDS_LN = CommandModel(
    short_values="tS", long_values=frozenset(words("--target-directory --suffix"))
)
COMMANDS_FD = CommandModel(
    short_values="etdExXSoj",
    long_values=frozenset(
        words(
            "--extension --type --max-depth --exclude --exec --exec-batch --size --owner --threads"
        )
    ),
)
COMMANDS_GREP = CommandModel(
    operands="read",
    first="text",
    first_unless=frozenset(words("-e --regexp -f --file")),
    short_values="efmABCd",
    long_values=frozenset(
        words(
            "--regexp --file --max-count --after-context --before-context --context --include --exclude --exclude-dir --exclude-from --label --color --colour --devices --directories --binary-files"
        )
    ),
    roles={"-f": "read", "--file": "read", "--exclude-from": "read"},
    quiet=frozenset(
        words("-l -L -c -q --count --quiet --silent --files-with-matches --files-without-match")
    ),
)
COMMANDS_RG = CommandModel(
    short_values="efgtTmABCMjE",
    long_values=frozenset(
        words(
            "--regexp --file --glob --iglob --type --type-not --max-count --after-context --before-context --context --max-columns --threads --encoding --pre --pre-glob --ignore-file --type-add --max-depth --sort --sortr --color --colors --replace -r"
        )
    ),
    roles={"-f": "read", "--file": "read", "--ignore-file": "read"},
    quiet=frozenset(
        words("-l -c -q --count --quiet --files-with-matches --files-without-match --count-matches")
    ),
)
COMMANDS_SED = CommandModel(
    short_values="efl", long_values=frozenset(words("--expression --file --line-length"))
)
COMMANDS_AWK = CommandModel(
    short_values="FvfiElW",
    long_values=frozenset(words("--field-separator --assign --file --include --load --exec")),
)
COMMANDS_TAR = CommandModel(
    short_values="fCTXIFbgKLNV",
    long_values=frozenset(
        words(
            "--file --directory --files-from --exclude-from --exclude --transform --to-command --use-compress-program --owner --group --mode --mtime --strip-components --checkpoint-action --info-script --new-volume-script --rsh-command --rmt-command --format --label"
        )
    ),
)
COMMANDS_UNZIP = CommandModel(short_values="dxP")
COMMANDS_PATCH = CommandModel(
    short_values="pdioDrBzFVY",
    long_values=frozenset(
        words("--strip --directory --input --output --reject-file --backup --suffix --fuzz")
    ),
)
COMMANDS_SCRIPT = CommandModel(
    short_values="cEIOBTm",
    long_values=frozenset(
        words("--command --echo --log-in --log-out --log-io --log-timing --logging-format")
    ),
)
COMMANDS_MAKE = CommandModel(
    short_values="CfjlIoWe",
    long_values=frozenset(
        words("--directory --file --makefile --jobs --include-dir --old-file --what-if")
    ),
)
COMMANDS_CURL = CommandModel(
    operands="text",
    short_values="oXHdFuAeTKbcrmwxEDyYzC",
    long_values=frozenset(
        words(
            "--output --request --header --data --data-binary --data-raw --data-urlencode --json --form --user --user-agent --referer --upload-file --config --cookie --cookie-jar --range --max-time --write-out --proxy --cert --key --cacert --capath --dump-header --trace --trace-ascii --stderr --output-dir --connect-timeout --retry --url"
        )
    ),
    roles={
        "-o": "write",
        "--output": "write",
        "-T": "read",
        "--upload-file": "read",
        "-K": "read",
        "--config": "read",
        "-c": "write",
        "--cookie-jar": "write",
        "-D": "write",
        "--dump-header": "write",
        "--trace": "write",
        "--trace-ascii": "write",
        "--stderr": "write",
        "--output-dir": "write",
        "--cacert": "read",
        "--cert": "read",
        "--key": "read",
        "--capath": "read",
        "-E": "read",
        "-d": "text",
        "--data": "text",
        "--data-binary": "text",
        "--data-urlencode": "text",
        "--json": "text",
        "-F": "text",
        "--form": "text",
        "-b": "text",
        "--cookie": "text",
        "--url": "text",
    },
)


def _flatten_redirects(nodes: list[Node]) -> list[Node]:
    """tree-sitter nests a file redirect after a here-doc start inside the heredoc_redirect."""
    found: list[Node] = []
    for node in nodes:
        if node.type in ("file_redirect", "heredoc_redirect", "herestring_redirect"):
            found.append(node)
            found.extend(c for c in node.named_children if c.type == "file_redirect")
    return found


def _operator(node: Node) -> str:
    return "".join(
        _text(c)
        for c in node.children
        if c.type in (">", ">>", "<", "&>", "&>>", ">|", "<>", ">&", "<&", ">&-", "<&-")
    )


def _text(node: Node) -> str:
    return node.text.decode("utf-8", errors="replace") if node.text is not None else ""


def _quote(word: str) -> str:
    return "'" + word.replace("'", "'\\''") + "'"


def _unescape(text: str) -> str:
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


def _descendants(node: Node) -> list[Node]:
    found: list[Node] = []
    stack = list(node.named_children)
    while stack:
        current = stack.pop()
        found.append(current)
        stack.extend(current.named_children)
    return found


def _looks_like_path(raw: str) -> bool:
    return "/" in raw or raw.startswith((".", "~")) or raw in ("..", ".")
