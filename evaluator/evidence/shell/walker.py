"""The walk over a bash parse (tree-sitter-bash): statements, pipelines, redirects, here-docs,
expansions. Each simple command's words go to its handler in the registry (`registry.py`);
what a command does with its arguments is its family module's business (`families/`).

Paths are resolved lexically against the cwd in force at that point of the command (`cd` chains
included); symlinks on disk are the isolation stage's business, while scripts and symlinks the
session itself creates are reported (`runs`, `contents`, `symlinks`) so the normaliser can follow
them across commands.
"""

from __future__ import annotations

import base64
import binascii
import posixpath
import re
from dataclasses import replace
from functools import cache, lru_cache
from itertools import pairwise
from typing import NamedTuple

import tree_sitter_bash
from tree_sitter import Language, Node, Parser, Tree

from evaluator.evidence.programs import scan_awk, scan_sed
from evaluator.evidence.pycode import analyze_python, file_url_path
from evaluator.evidence.shell.model import (
    PATH_ROLES,
    CommandModel,
    Role,
    split_options,
    words,
)
from evaluator.evidence.shell.registry import lookup, model_of
from evaluator.evidence.shell.results import (
    HOME_MARK,
    ContentWrite,
    Invocation,
    PathAccess,
    ScriptRun,
    ShellAnalysis,
)
from evaluator.evidence.shell.text import (
    decode_ansi_c,
    echo_text,
    expand_braces,
    looks_like_path,
    path_guesses,
    printf_text,
    unescape,
)
from evaluator.kernelpaths import join_path
from evaluator.vocabulary import AccessKind

MAX_DEPTH = 6

# Environment variables whose value changes which program runs or what it reads: assigning
# them hides the command's real effect.
# Variables naming a file a later shell runs before its commands: bash reads `BASH_ENV` when it
# starts non-interactive (`bash -c`, a script), so what that file defines may give any command
# name another meaning (red team 18). `ENV` is read only by interactive shells (`sh -i`), and is
# a common application setting (`ENV=test pytest`): not one of them.
STARTUP_VARIABLES = frozenset({"BASH_ENV"})
UNSAFE_VARIABLES = frozenset(
    words(
        "PATH LD_PRELOAD LD_LIBRARY_PATH LD_AUDIT BASH_ENV ENV CDPATH PYTHONPATH PYTHONSTARTUP"
        " PYTHONHOME PYTHONUSERBASE NODE_OPTIONS NODE_PATH PERL5OPT PERL5LIB PERLLIB RUBYOPT RUBYLIB"
        " GIT_DIR GIT_WORK_TREE GIT_CONFIG GIT_CONFIG_GLOBAL GIT_CONFIG_SYSTEM GIT_CONFIG_COUNT"
        " GIT_EXEC_PATH GIT_SSH GIT_SSH_COMMAND GIT_PAGER GIT_EDITOR GIT_ASKPASS GIT_TEMPLATE_DIR"
        " PAGER EDITOR VISUAL PROMPT_COMMAND IFS GLOBIGNORE SHELLOPTS BASHOPTS XDG_CONFIG_HOME"
        " CURL_HOME WGETRC INPUTRC TERMINFO"
    )
)
FILE_TESTS = frozenset(words("-e -f -d -r -w -x -s -L -h -p -S -b -c -g -u -k -O -G -N"))


@cache
def _parser() -> Parser:
    return Parser(Language(tree_sitter_bash.language()))


def parse(code: str) -> Tree:
    """The bash parse of `code`. A short text's parse is cached by the text alone, so the same
    command in another cwd (every attempt has its own workspace) or another session of the run
    is parsed once. A tree takes about 50 times its text in memory, so only texts up to 512
    characters are kept (at most about 25 MB); a longer one (a here-doc'd script) is rarely
    repeated."""
    if len(code) > _CACHED_TEXT:
        return _parser().parse(code.encode("utf-8"))
    return _parse_cached(code)


_CACHED_TEXT = 512


@lru_cache(maxsize=1024)
def _parse_cached(code: str) -> Tree:
    return _parser().parse(code.encode("utf-8"))


def walk(code: str, cwd: str, home: str | None, depth: int, lexical: bool = True) -> ShellAnalysis:
    """What shell `code` touches when run in `cwd` (nested code: `depth` levels down);
    `lexical=False` walks the parse of a program `lexical_program` reads (the tests compare)."""
    result = ShellAnalysis(final_cwd=cwd)
    if depth > MAX_DEPTH:
        result.opaque.append("shell code nested too deeply")
        return result
    walker = Walker(result, home, depth)
    walker.cwd = cwd
    simple = simple_command(code)
    program = lexical_program(code) if simple is None and lexical else None
    if simple is not None:
        walker.apply(simple[0], list(simple[1:]), list(simple[1:]))
    elif program is not None:
        walker.lexical(program)
    else:
        tree = parse(code)
        if tree.root_node.has_error:
            result.opaque.append("the command does not parse as bash")
        walker.statements(tree.root_node)
    result.final_cwd = walker.cwd
    return result


# The lexical pre-check: a command of plain words (no quoting, expansion, glob, brace, tilde,
# operator, redirection, comment or line break) is one simple command whose words bash passes
# as written, so it needs no parse: its words go straight to the handler, exactly as the walk
# would give them. The first word must not be one bash or tree-sitter-bash reads as syntax (a
# keyword, a declaration, an assignment, `[`); no word may start with a character that
# tree-sitter-bash reads otherwise (`=`, `+`, `:`, `,`; tests/evidence/test_shell_precheck.py checks the
# rule against the full parse).
_FIRST = r"[A-Za-z_./][A-Za-z0-9_./-]*"
_WORD = r"[A-Za-z0-9_./-][A-Za-z0-9_./:,+=-]*"
_PLAIN = re.compile(rf"[ \t]*{_FIRST}(?:[ \t]+{_WORD})*[ \t]*")
_SYNTAX_WORDS = frozenset(
    words(
        "if then else elif fi case esac for select while until do done in function time coproc"
        " declare typeset export readonly local unset unsetenv"
    )
)

# Declaration options that leave a variable's value as written (export, read-only, global,
# arrays, printing); any other one changes what later expansions give.
_PLAIN_DECLARE_OPTIONS = frozenset("xrgaApfF")


def simple_command(code: str) -> tuple[str, ...] | None:
    """The words of `code` when it is one command of plain words, else None."""
    if len(code) > 4096 or not _PLAIN.fullmatch(code):
        return None
    parts = tuple(code.split())
    if parts[0] in _SYNTAX_WORDS:
        return None
    return parts


# The wider lexical path: one command, one pipeline (`a | b | c`) or one `&&` chain of commands
# whose words are plain (as above) or quoted whole, `'...'` or `"..."` with printable ASCII and
# nothing double quotes expand (`$`, a backtick, `\`, `!`), arguments that may glob with `*` or
# `?` (`globbed`: a `list` access of the pattern), each command ending, at most, in
# `2>&1` or `2>/dev/null`. Such a program's parse is fixed: tree-sitter-bash reads a flat
# pipeline of commands, or a list nested to the left, each word a `word` (or `number`),
# `raw_string` or `string` of one `string_content`, whose value is the text inside the quotes
# and which never globs, and a command with its redirect a `redirected_statement`;
# `Walker.lexical` does what `statements` does with that parse. A command name must be plain,
# and no word may join two parts (`a'b'`); anything else (other redirects, `;`, `||`, `&`,
# expansions, here-docs) is left to the parse. tests/evidence/test_shell_precheck.py compares the two
# walks over the corpus, the fixture sessions and thousands of generated programs.
_TOKEN = re.compile(
    r"""[ \t]+|;|'[ -&(-~]*'|"[ #%-\[\]-_a-~]*"|&&|\||2>&1|2>/dev/null|[A-Za-z0-9_./:,+=*?-]+"""
)
_REDIRECTS = ("2>&1", "2>/dev/null")
_FIRST_WORD = re.compile(_FIRST)
# An argument may also glob (`*`, `?`; a bracket expression is left to the parse).
_OTHER_WORD = re.compile(r"[A-Za-z0-9_./*?-][A-Za-z0-9_./:,+=*?-]*")
# Commands after which nothing in the shell runs (`_terminates`), or only what succeeds
# (`set -e`, `_sets_errexit`): a program of several commands holding one is parsed.
_GATING = frozenset(("exit", "return", "logout", "exec", "set"))


class LexicalCommand(NamedTuple):
    """A command of the lexical path: its words' values, their texts as written, and the
    redirect it ends in ("" for none)."""

    values: list[str]
    texts: list[str]
    redirect: str


def _redirects(code: str) -> int:
    return code.count("2>&1") + code.count("2>/dev/null")


# One statement of a lexical program: "" (one command), "|" (a pipeline) or "&&" (a chain),
# and its commands.
LexicalPart = tuple[str, list[LexicalCommand]]


def lexical_program(code: str) -> list[LexicalPart] | None:
    """The statements of `code`, separated by `;`, when it is a program of the lexical path. (A
    line break is left to the parse: tree-sitter-bash reads the line after `sh *` as more of
    its arguments.)"""
    if len(code) > 4096 or "\n" in code or "<" in code or code.count(">") != _redirects(code):
        return None  # quickly, before the tokens: here-docs, scripts, most redirects
    tokens = _TOKEN.findall(code)
    if sum(map(len, tokens)) != len(code):
        return None  # a character no token takes (findall skips it)
    parts: list[LexicalPart] = []
    commands: list[LexicalCommand] = []
    operators: set[str] = set()
    values: list[str] = []
    texts: list[str] = []
    redirect = ""
    joined = False  # the token before was a word: another one now would be part of it
    for token in (*tokens, ";"):
        if token[0] in " \t":
            joined = False
            continue
        if token in ("|", "&&", ";"):
            if not values:
                return None
            commands.append(LexicalCommand(values, texts, redirect))
            values, texts, redirect, joined = [], [], "", False
            if token in ("|", "&&"):
                operators.add(token)
                continue
            if len(operators) > 1:
                return None
            parts.append((operators.pop() if operators else "", commands))
            commands = []
            continue
        if joined or redirect:
            return None  # a word of two parts, or anything after the redirect
        joined = True
        if token in _REDIRECTS:
            if not values:
                return None
            redirect = token
            continue
        if token[0] in "'\"":
            if not values:
                return None  # a quoted command name
            values.append(token[1:-1])
        elif (_OTHER_WORD if values else _FIRST_WORD).fullmatch(token):
            values.append(token)
        else:
            return None
        texts.append(token)
    several = len(parts) > 1 or len(parts[0][1]) > 1
    for _, part in parts:
        for command in part:
            name = command.values[0]
            if name in _SYNTAX_WORDS or (several and name in _GATING):
                return None
    return parts


class Walker:
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
        self.conditional = 0  # inside a place that may not run (after `||`, an `if` branch)
        # Inside a place that runs only if earlier commands succeeded (after `&&`, after
        # `set -e`): the call's exit code 0 shows they did, when `tail` (below) held there.
        self.after_success = 0
        # Walking the statement whose exit status is the tool call's (the last one of the
        # program, not in the background, not followed by `||`).
        self.tail = True
        # Command names this shell gave another meaning (a function, an alias, `hash -p`): a
        # later command by that name may not run the program it names.
        self.redefined: set[str] = set()
        # Why any later command name may have another meaning (text this shell ran that the
        # analysis did not read, a trap, the tables of names; red team 17), or None.
        self.redefined_any: str | None = None

    # ------------------------------------------------------------------ the lexical path
    def lexical(self, program: list[LexicalPart]) -> None:
        """What `statements` does with the parse of a `lexical_program`: statements in turn,
        the last one the program's tail; each a command, a pipeline, or an `&&` chain (`gated`:
        a command after the first runs only if those before it succeeded, which the call's exit
        code shows only in the tail). No command of several terminates or sets `-e`."""
        saved = (self.tail, self.conditional, self.after_success)
        for index, (operator, commands) in enumerate(program):
            self.tail = saved[0] and index == len(program) - 1
            if operator == "|":
                self.lexical_pipeline(commands)
                continue
            for position, command in enumerate(commands):
                conditional = position > 0 and not self.tail
                success = position > 0 and not conditional
                self.conditional += conditional
                self.after_success += success
                self.lexical_command(command)
                self.conditional -= conditional
                self.after_success -= success
        self.tail, self.conditional, self.after_success = saved

    def lexical_pipeline(self, stages: list[LexicalCommand]) -> None:
        """`pipeline` over stages that are commands of known words."""
        start = len(self.result.accesses)
        previous_text: str | None = None
        previous_file: str | None = None
        saved_tail = self.tail
        for index, stage in enumerate(stages):
            self.tail = saved_tail and index == len(stages) - 1
            self.stdin_text, self.stdin_file = previous_text, previous_file
            # A redirected stage passes on nothing known (`stage_output` of its parse).
            words: list[str | None] = list(stage.values)
            previous_text = None if stage.redirect else self.command_output(words)
            previous_file = None if stage.redirect else self.command_file(words)
            self.lexical_command(stage)
            self.stdin_text, self.stdin_file = None, None
        self.tail = saved_tail
        if self.words_summarise(list(stages[-1].values)):
            self.demote(start)

    def lexical_command(self, command: LexicalCommand) -> None:
        """`command` for a command of known words and no assignment, then `redirected` for
        its redirect: `2>&1` changes no path; `2>/dev/null` writes there (stderr, so no
        content write)."""
        saved_file = self.stdin_file
        saved_stdin = self.stdin_text
        args: list[str | None] = list(command.values[1:])
        name = command.values[0]
        for text in command.texts[1:]:
            # `globbed`: an unquoted word (a quoted one starts with its quote) that may glob.
            if ("*" in text or "?" in text) and text[0] not in "'\"":
                self.add("list", text, f"{name} glob")
        self.env = {}
        self.apply(name, args, command.texts[1:])
        self.env = {}
        self.stdin_text = saved_stdin
        if command.redirect:
            self.stdin_file = saved_file
        if command.redirect == "2>/dev/null":
            self.add("write", "/dev/null", ">")

    # ------------------------------------------------------------------ values
    def value(self, node: Node) -> str | None:
        """The literal text of a word, or None when it depends on run-time expansion."""
        kind = node.type
        text = _text(node)
        if kind in ("word", "number"):
            if (kind == "word" and text in ("{", "}")) or ("{" in text and "," in text):
                return None  # brace expansion
            return unescape(text)
        if kind == "raw_string":
            return text[1:-1]
        if kind == "string":
            parts = []
            for child in node.named_children:
                if child.type == "string_content":
                    parts.append(_unquote_double(_text(child)))
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
                return [unescape(a) for a in alternatives]
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
        # A guessed path spelled as a `file:` URL (a program given a URL opens the file).
        path = (file_url_path(raw) or raw) if guess else raw
        self.result.accesses.append(
            PathAccess(
                kind,
                self.resolve(path, base),
                raw,
                via,
                guess,
                self.conditional > 0,
                self.conditional == 0 and self.after_success > 0,
            )
        )

    def guess_paths(self, raws: list[str | None], via: str) -> None:
        """The path-like words given to a program whose behaviour is not modelled (a target's
        script, an unknown module): lexical guesses, which the trace may contradict."""
        for raw in raws:
            for path in path_guesses(raw) if raw is not None else ():
                self.add("path", path, via, guess=True)

    def opaque(self, reason: str) -> None:
        self.result.opaque.append(reason)

    def nested(self, code: str, via: str, cwd: str | None = None) -> None:
        inner = walk(code, cwd or self.cwd, self.home, self.depth + 1)
        self.merge(inner)

    def merge(self, inner: ShellAnalysis) -> None:
        for access in inner.accesses:
            # As for its invocations (below): nested code's place is inside this command's.
            conditional = (
                access.conditional
                or self.conditional > 0
                or (access.after_success and not self.tail)
            )
            after_success = not conditional and (access.after_success or self.after_success > 0)
            self.result.accesses.append(
                replace(access, conditional=conditional, after_success=after_success)
            )
        self.result.opaque.extend(inner.opaque)
        self.result.commands.extend(inner.commands)
        self.result.runs.extend(inner.runs)
        self.result.contents.extend(inner.contents)
        self.result.symlinks.extend(inner.symlinks)
        self.result.copies.extend(inner.copies)
        for invocation in inner.invocations:
            # Nested code's exit status is this command's: its `&&` proof holds only at the tail.
            # A nested shell inherits the functions this one exported (`export -f`).
            conditional = (
                invocation.conditional
                or self.conditional > 0
                or (invocation.after_success and not self.tail)
                or self.redefined_any is not None
                or (bool(invocation.words) and invocation.words[0] in self.redefined)
            )
            after_success = not conditional and (invocation.after_success or self.after_success > 0)
            self.result.invocations.append(
                Invocation(
                    invocation.words,
                    invocation.executed,
                    conditional,
                    after_success,
                    invocation.paths,
                )
            )

    def python(self, code: str, via: str, cwd: str | None = None) -> None:
        analysis = analyze_python(code)
        base = cwd or self.cwd
        for access in analysis.accesses:
            # After an exit call in its block, Python may not reach it, as the shell after `exit`.
            self.conditional += access.conditional
            self.add(access.kind, access.path, f"{via} {access.how}", base, access.how == "literal")
            self.conditional -= access.conditional
        saved_tail, self.tail = self.tail, False  # Python's exit status is not the command's
        for index, command in enumerate(analysis.commands):
            guarded = index in analysis.guarded
            self.conditional += guarded
            if isinstance(command, str):
                self.nested(command, via, base)
            else:
                self.apply(command[0], list(command[1:]), list(command[1:]))
            self.conditional -= guarded
        self.tail = saved_tail
        for reason in analysis.opaque:
            self.opaque(reason)
        # `python3 -c`, `-m` and stdin put the working directory first on sys.path: a module the
        # session wrote there (`json.py`) runs instead of the standard library's.
        for module in dict.fromkeys(analysis.imports):
            for candidate in (f"{module}.py", f"{module}/__init__.py"):
                path = join_path(base, candidate)
                self.result.runs.append(ScriptRun(path, "python", f"{via} import {module}"))

    # ------------------------------------------------------------------ statements
    def statements(self, node: Node) -> None:
        """A sequence: what follows `exit` or `exec CMD` never runs; what follows `set -e` runs
        only if everything before it succeeded. A background job (`cmd &`) may be killed or
        outlived before it does anything (`python3 x.py & kill $!`): it may not have run, unless
        the very next statement waits for it (`cmd & wait`)."""
        children = [c for c in node.named_children if c.type != "comment"]
        saved = (self.tail, self.conditional, self.after_success)
        last = len(children) - 1
        tail = saved[0] and node.type not in ("command_substitution", "process_substitution")
        for index, child in enumerate(children):
            background = _in_background(child)
            self.tail = tail and index == last and not background
            unwaited = background and not (index < last and _waits(children[index + 1]))
            self.conditional += unwaited
            self.statement(child)
            self.conditional -= unwaited
            if index == last:
                break  # nothing after it to gate
            if _terminates(child):
                self.conditional += 1
            elif _sets_errexit(child):
                self.after_success += 1
        self.tail, self.conditional, self.after_success = saved

    def command_list(self, node: Node) -> None:
        """`a && b || c`: what follows `||` runs only when what precedes it failed; what follows
        `&&` only when it succeeded, which the call's exit code 0 shows only in its last
        statement without a later `||` (else it may not have run)."""
        self.gated(node.children)

    def gated(self, children: list[Node]) -> None:
        types = [c.type for c in children]
        or_after = [False] * len(children)
        for index in range(len(children) - 2, -1, -1):
            or_after[index] = or_after[index + 1] or types[index + 1] == "||"
        saved_tail = self.tail
        after_and = after_or = stopped = False
        for index, child in enumerate(children):
            kind = types[index]
            if kind == "&&":
                after_and = True
            elif kind == "||":
                after_or = True
            elif kind != "comment" and child.is_named:
                self.tail = saved_tail and not or_after[index]
                conditional = after_or or stopped or (after_and and not self.tail)
                success = after_and and not conditional
                self.conditional += conditional
                self.after_success += success
                self.statement(child)
                self.conditional -= conditional
                self.after_success -= success
                stopped = stopped or (index < len(children) - 1 and _terminates(child))
        self.tail = saved_tail

    def branches(self, node: Node) -> None:
        """An `if`'s condition runs; its branches (and a `case` item) may not."""
        condition = node.child_by_field_name("condition")
        saved_tail, self.tail = self.tail, False
        for child in node.named_children:
            branch = condition is None or child.id != condition.id
            branch = branch and child.type not in ("elif_clause", "else_clause")
            self.conditional += branch
            self.statement(child)
            self.conditional -= branch
        self.tail = saved_tail

    def loop(self, node: Node) -> None:
        """A `while`/`until` condition runs; its body, or a C-style `for`'s, may not."""
        body = node.child_by_field_name("body")
        saved_tail, self.tail = self.tail, False
        for child in node.named_children:
            in_body = body is not None and child.id == body.id
            self.conditional += in_body
            self.statement(child)
            self.conditional -= in_body
        self.tail = saved_tail

    def statement(self, node: Node) -> None:
        kind = node.type
        if kind == "command":
            self.command(node, [])
        elif kind == "redirected_statement":
            self.redirected(node)
        elif kind == "pipeline":
            self.pipeline(node)
        elif kind == "list":
            self.command_list(node)
        elif kind in ("if_statement", "elif_clause", "else_clause", "case_item"):
            self.branches(node)
        elif kind in (
            "program",
            "compound_statement",
            "do_group",
            "case_statement",
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
        elif kind in ("c_style_for_statement", "while_statement"):
            self.loop(node)
        elif kind == "function_definition":
            self.opaque("shell function definition")
            named = node.child_by_field_name("name")
            if named is not None:
                self.redefined.add(_text(named))
                if _text(named) == NOT_FOUND_HANDLER:
                    # bash runs it in place of any command it does not find.
                    self.redefined_any = f"defines {NOT_FOUND_HANDLER}"
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
        # A computed or empty list may have no word at all: then the body never runs.
        empty = all(w is None or w == "" for w in words)
        saved_tail, self.tail = self.tail, False
        self.conditional += empty
        for word in words[:20]:
            self.vars[name] = word
            if body is not None:
                self.statements(body)
        self.conditional -= empty
        self.tail = saved_tail
        self.vars[name] = words[-1]  # bash keeps the last value

    def assign(self, node: Node, export: bool) -> None:
        if node.type != "variable_assignment":
            return
        name_node = node.child_by_field_name("name")
        value_node = node.child_by_field_name("value")
        name = _text(name_node) if name_node is not None else ""
        value_text = _text(value_node) if value_node is not None else ""
        if _names_table(name) or _names_table(value_text):
            # `BASH_CMDS[x]=/bin/true` (also through a reference, `declare -n r=BASH_CMDS`).
            self.redefined_any = f"assigns {name}, a table of what command names run"
        if value_node is not None:
            for sub in [*_descendants(value_node), value_node]:
                if sub.type in ("command_substitution", "process_substitution"):
                    self.substitution(sub, value_node)
        if value_node is not None and value_node.type == "array":
            for element in value_node.named_children:
                self.globbed(element, f"{name}=( )")
        if name in UNSAFE_VARIABLES:
            self.opaque(f"assigns {name}, which changes what later commands run or read")
        self.note_startup_variable(name)
        value = self.value(value_node) if value_node is not None else ""
        if name == "HOME":
            self.home = value
        self.vars[name] = value

    def substitution(self, node: Node, word: Node) -> None:
        """`$(...)` in `word`: inside `${x:+...}`, `${x-...}` (and `=`, `?`) it runs only if the
        variable is (un)set."""
        skippable = False
        current: Node | None = node.parent
        while current is not None and not skippable:
            skippable = current.type == "expansion" and bool(_SKIPPING.match(_text(current)))
            current = None if current.id == word.id else current.parent
        self.conditional += skippable
        self.statements(node)
        self.conditional -= skippable

    def declaration(self, node: Node) -> None:
        for child in node.named_children:
            option = _text(child) if child.type == "word" else ""
            if option[:1] in ("-", "+") and set(option[1:]) - _PLAIN_DECLARE_OPTIONS:
                # `-n` makes a name a reference to another variable, `-i` evaluates values as
                # arithmetic, `-l`/`-u` change their case: later expansions are not the text.
                self.opaque(f"declares with {option}, which changes what its variables expand to")
            if child.type == "variable_assignment":
                self.assign(child, export=True)
            elif child.type == "variable_name" and _text(child) in UNSAFE_VARIABLES:
                self.opaque(f"declares {_text(child)}")
                self.note_startup_variable(_text(child))

    def test_expression(self, node: Node) -> None:
        for sub in _descendants(node):
            if sub.type in ("command_substitution", "process_substitution"):
                self.statements(sub)
            if sub.type == "unary_expression":
                operator = sub.child_by_field_name("operator") or (
                    sub.named_children[0] if sub.named_children else None
                )
                operand = sub.named_children[-1] if sub.named_children else None
                if operator is not None and operand is not None and _text(operator) in FILE_TESTS:
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
        saved_tail = self.tail
        for index, stage in enumerate(stages):
            # The pipeline's status is its last stage's. A list as a stage is tree-sitter's
            # reading of `a && b | c`, which bash runs as `a && (b | c)`.
            self.tail = saved_tail and (index == len(stages) - 1 or _is_list(stage))
            self.stdin_text, self.stdin_file = previous_text, previous_file
            # Both read the stage's words in the same state: they are evaluated once.
            words = self.words(stage) if stage.type == "command" else None
            previous_text = self.stage_output(stage, words)
            previous_file = self.stage_file(stage, words)
            self.statement(stage)
            self.stdin_text, self.stdin_file = None, None
        self.tail = saved_tail
        if stages and self.summarises(stages[-1]):
            self.demote(start)

    def stage_output(self, stage: Node, words: list[str | None] | None = None) -> str | None:
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
        return self.command_output(self.words(stage) if words is None else words)

    def command_output(self, words: list[str | None]) -> str | None:
        """What a command of these words writes, when it is literal."""
        if not words or words[0] is None:
            return None
        name, args = posixpath.basename(words[0]), words[1:]
        if name == "echo":
            return echo_text(args)
        if name == "printf":
            return printf_text(args)
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

    def stage_file(self, stage: Node, words: list[str | None] | None = None) -> str | None:
        """The one file a `cat FILE |` stage passes on unchanged."""
        if stage.type != "command":
            return None
        return self.command_file(self.words(stage) if words is None else words)

    def command_file(self, words: list[str | None]) -> str | None:
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
        return self.words_summarise(self.words(stage))

    def words_summarise(self, words: list[str | None]) -> bool:
        """Whether a command of these words shows a summary, not the content it reads."""
        if not words or words[0] is None:
            return False
        name = posixpath.basename(words[0])
        model = model_of(name)
        if model is None:
            return False
        return model.summarises or any(w in model.summarises_with for w in words[1:])

    def demote(self, start: int) -> None:
        """Reads since `start` showed the agent no content (summarised, or sent elsewhere)."""
        accesses = self.result.accesses
        for index in range(start, len(accesses)):
            access = accesses[index]
            if access.kind == "read":
                accesses[index] = replace(access, kind="metadata")

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
        # tree-sitter puts the redirect of `a || b > f` on the list; bash gives it to `b`, the
        # last command, which may not run (red team, round 12b: `true || echo x > f` wrote
        # nothing, and `file_written` took it for a write).
        conditional, success = self.last_of_list(body)
        self.conditional += conditional
        self.after_success += success
        for redirect in redirects:
            self.redirect(redirect, stdout_handled=True)
        self.conditional -= conditional
        self.after_success -= success
        if output_target is not None:
            self.demote(start)
            if body is not None and body.type == "command":
                self.record_content(body, heredoc, output_target)
            elif output_target[0] and not output_target[0].startswith("/dev/"):
                self.result.contents.append(ContentWrite(self.resolve(output_target[0]), None))
        if heredoc is not None:
            feeds = body is not None and body.type == "command" and self.words(body) == ["cat"]
            self.heredoc_tail(heredoc, self.heredoc_text(heredoc) if feeds else None)

    def last_of_list(self, body: Node | None) -> tuple[bool, bool]:
        """For a list (`a && b`, `a || b`): whether its last command may not run, and whether
        it runs only if the commands before it succeeded (as `gated` decides for it)."""
        if body is None or body.type != "list":
            return False, False
        operators = {c.type for c in body.children if not c.is_named}
        conditional = "||" in operators or ("&&" in operators and not self.tail)
        return conditional, "&&" in operators and not conditional

    def heredoc_tail(self, heredoc: Node, output: str | None) -> None:
        """tree-sitter puts what follows `<<EOF` on its line (`| sh`, `&& cat x`) inside the
        here-doc node: those commands run too, a pipeline with the here-doc's output as stdin,
        and after `&&` or `||` only as a list would run them."""
        tail = [c for c in heredoc.children if c.type not in _HEREDOC_PARTS]
        if any(c.type in ("&&", "||") for c in tail):
            self.gated(tail)
            return
        for child in tail:
            if not child.is_named:
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
            content = echo_text(words[1:])
        elif name == "printf":
            content = printf_text(words[1:])
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
        # Only text holding one of these can hold a command or process substitution.
        text = _text(node)
        substitutes = any(mark in text for mark in _SUBSTITUTION_MARKS)
        for sub in node.named_children:
            if sub.type == "variable_assignment":
                variable_node = sub.child_by_field_name("name")
                value_node = sub.child_by_field_name("value")
                variable = _text(variable_node) if variable_node is not None else ""
                searched = (
                    self.searched_dirs(value_node)
                    if variable == "PATH" and value_node is not None
                    else None
                )
                if searched is not None and node.child_by_field_name("name") is not None:
                    # Where the command, or a program it runs, may find a program by its name:
                    # judged by where it is and what the session put there
                    # (`EvidenceBuilder.follow_search`).
                    for directory in searched:
                        self.result.runs.append(
                            ScriptRun(directory, "unknown", f"PATH={directory}", searched=True)
                        )
                elif variable in UNSAFE_VARIABLES:
                    self.opaque(f"runs a command with {variable} set")
                self.note_startup_variable(variable)
                env[variable] = self.value(value_node) if value_node is not None else ""
            if not substitutes:
                continue
            for inner in [sub, *_descendants(sub)]:
                if inner.type in ("command_substitution", "process_substitution"):
                    self.substitution(inner, sub)
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

    def searched_dirs(self, value_node: Node) -> tuple[str, ...] | None:
        """The directories a one-command `PATH=...` prefix puts before the PATH it had
        (`"$PWD/node_modules/.bin:$PATH"`, `$HOME/.local/bin:$PATH`, `/opt/x/bin:/usr/bin`), when
        each is known and absolute; None when one is computed, relative or empty (searched in
        the working directory of each program that looks a name up, not known here)."""
        had, saved = "PATH" in self.vars, self.vars.get("PATH")
        self.vars["PATH"] = _OLD_PATH
        try:
            value = self.value(value_node)
        finally:
            if had:
                self.vars["PATH"] = saved
            else:
                del self.vars["PATH"]
        if value is None:
            return None
        found: list[str] = []
        for entry in value.split(":"):
            if entry == _OLD_PATH:
                continue  # the PATH the shell had: the evaluator's, or an assignment made opaque
            if _OLD_PATH in entry or not entry.startswith(("/", HOME_MARK + "/")):
                return None
            found.append(self.resolve(entry))
        return tuple(dict.fromkeys(found))

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
        self.note_redefinitions(name, args)
        start, nested_start = len(self.result.accesses), len(self.result.invocations)
        self.apply_handler(name, args, texts)
        runs = [a for a in self.result.accesses[start:] if a.kind == "exec"]
        if runs and len(self.result.invocations) > nested_start:
            # What a command it runs runs is that command's (`find -exec python3 x.py`, whose
            # run may never happen; `timeout 5 python3 x.py`), not this one's.
            theirs = {
                i.words[n] for i in self.result.invocations[nested_start:] for n in i.executed
            }
            runs = [a for a in runs if a.raw not in theirs]
        scripts: list[int] = []
        paths: tuple[str, ...] = ()
        if runs:  # most commands run no file
            executed = {a.raw for a in runs}
            scripts = [i + 1 for i, raw in enumerate(args) if raw is not None and raw in executed]
            programs = {name, *(args[i - 1] for i in scripts)}
            paths = tuple(dict.fromkeys(a.path for a in runs if a.raw in programs))
        words = (
            name,
            *(raw if raw is not None else text for raw, text in zip(args, texts, strict=True)),
        )
        # A name redefined here runs the definition, which may or may not call the program.
        conditional = (
            self.conditional > 0 or name in self.redefined or self.redefined_any is not None
        )
        self.result.invocations.append(
            Invocation(
                words,
                (0, *scripts),
                conditional,
                not conditional and self.after_success > 0,
                paths,
            )
        )

    def note_startup_variable(self, name: str) -> None:
        """Setting a variable that names a file a later shell runs first (`BASH_ENV`, in any
        form: an assignment, `export`, `declare`, a command's prefix, `env NAME=`): any later
        command name may have another meaning there. Kept for the rest of the line, as for
        `source`: the trace decides what ran."""
        if name in STARTUP_VARIABLES:
            self.redefined_any = f"sets {name}, a file a later shell runs before its commands"

    def note_redefinitions(self, name: str, args: list[str | None]) -> None:
        """`alias NAME=...` and `hash -p PATH NAME...` give NAME another meaning (functions are
        noted where they are defined)."""
        if name == "alias":
            self.redefined.update(a.split("=", 1)[0] for a in args if a and "=" in a)
        elif name == "hash" and "-p" in args:
            self.redefined.update(a for a in args[args.index("-p") + 2 :] if a)
        elif name in REDEFINE_ANY:
            self.redefined_any = f"runs `{name}`, whose text may define any command name"
        elif name == "trap" and _trap_runs_before(args):
            self.redefined_any = "sets a trap, whose action runs between later commands"
        elif name in _TABLE_WRITERS and _assigns_table(name, args):
            self.redefined_any = f"`{name}` may assign a table of what command names run"

    def apply_handler(self, name: str, args: list[str | None], texts: list[str]) -> None:
        base = posixpath.basename(name)
        self.result.commands.append(base)
        if "/" in name:
            self.add("exec", name, name)
            # Judged by what the name resolves to: `/proc/self/root/bin/sh` and `/tmp/../bin/sh`
            # are the system shell and are modelled as `sh`, not trusted as a target's program.
            if not self.resolve(name).startswith(("/usr/", "/bin/", "/sbin/")):
                self.result.runs.append(ScriptRun(self.resolve(name), "unknown", name))
                self.guess_paths(args, name)
                return
        handler = lookup(base)
        if handler is None:
            self.opaque(f"command {base!r} is not modelled")
        else:
            handler.run(self, base, args, texts)

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
            elif value is not None and option.startswith("--") and looks_like_path(value):
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
                removed = via in ("rm", "rmdir", "unlink", "shred")
                self.result.contents.append(
                    ContentWrite(self.resolve(raw, base), None, removed=removed)
                )
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

    def run_rest(self, rest: list[tuple[str | None, str]], via: str) -> None:
        if not rest:
            return
        name, _ = rest[0]
        if name is None:
            self.opaque(f"{via} runs a computed command")
            return
        self.apply(name, [r for r, _ in rest[1:]], [t for _, t in rest[1:]])


# `$PATH` while a `PATH=...` prefix is read: the shell's own PATH, kept in place.
_OLD_PATH = "\x00PATH\x00"

_HEREDOC_PARTS = frozenset(
    {"heredoc_start", "heredoc_body", "heredoc_end", "heredoc_content", "file_redirect"}
)
_ESCAPED = re.compile(r"\\.")  # an escaped character, never a glob
# Inside double quotes a backslash escapes only `$`, a backtick, `"`, `\` and a line break (a
# line continuation: both go); before anything else it is itself.
_DOUBLE_QUOTED_ESCAPE = re.compile(r'\\([$`"\\\n])')


def _unquote_double(text: str) -> str:
    """The value of a double-quoted string's literal text (`"print(\\"a\\")"` is `print("a")`)."""
    if "\\" not in text:
        return text
    return _DOUBLE_QUOTED_ESCAPE.sub(lambda m: "" if m.group(1) == "\n" else m.group(1), text)


_GLOB_CHAR = re.compile(r"[*?[]")  # a word without any of these cannot glob
# An active pathname-expansion character (after `glob_text`): `*`, `?` or a bracket expression.
_GLOB = re.compile(r"[*?]|\[[^]]*\]")


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


_SUBSTITUTION_MARKS = ("$(", "`", "<(", ">(")
# `${x:-...}`, `${x+...}`, `${x:=...}`, `${x?...}`: the text after the operator is expanded only
# if the variable is unset (or set); `${x#...}`, `${x/...}` always expand it.
_SKIPPING = re.compile(r"\$\{[#!]?(?:\w+|[@*])(?:\[[^]]*\])?:?[-=+?]")


def _command_name(node: Node) -> str:
    while node.type == "redirected_statement":
        body = node.child_by_field_name("body")
        if body is None:
            return ""
        node = body
    if node.type != "command":
        return ""
    name = node.child_by_field_name("name")
    return _text(name) if name is not None else ""


def _in_background(node: Node) -> bool:
    after = node.next_sibling
    return after is not None and after.type == "&"


def _waits(node: Node) -> bool:
    """`wait` or `wait $!`: waits for the job just put in the background to end."""
    return node.type == "command" and _text(node).split() in (["wait"], ["wait", "$!"])


def _is_list(node: Node) -> bool:
    while node.type == "redirected_statement":
        body = node.child_by_field_name("body")
        if body is None:
            return False
        node = body
    return node.type == "list"


def _terminates(node: Node) -> bool:
    """`exit`, `return`, `logout`, or `exec` of a command: nothing after it in the shell runs."""
    if not (node.text or b"").startswith((b"exit", b"return", b"logout", b"exec")):
        return False  # the quick test: most statements start with another word
    name = _command_name(node)
    if name in ("exit", "return", "logout"):
        return True
    if name == "exec":
        command = node
        while command.type == "redirected_statement":
            command = command.child_by_field_name("body") or command
        return bool(command.children_by_field_name("argument"))
    return False


def _sets_errexit(node: Node) -> bool:
    """`set -e`, `set -euo pipefail`, `set -o errexit`: a failing command ends the shell."""
    if node.type != "command" or not (node.text or b"").startswith(b"set"):
        return False
    if _command_name(node) != "set":
        return False
    values = [_text(a) for a in node.children_by_field_name("argument")]
    if any(v.startswith("-") and not v.startswith("--") and "e" in v[1:] for v in values):
        return True
    return any(a == "-o" and b == "errexit" for a, b in pairwise(values))


def _text(node: Node) -> str:
    # `node.text` copies the bytes out of the tree at each access: read once (called ~40 times
    # per command).
    raw = node.text
    return raw.decode("utf-8", "replace") if raw is not None else ""


def _descendants(node: Node) -> list[Node]:
    found: list[Node] = []
    stack = list(node.named_children)
    while stack:
        current = stack.pop()
        found.append(current)
        stack.extend(current.named_children)
    return found


# Builtins that run or load text the analysis does not read as definitions: after one, any
# command name may be a function, an alias or a builtin of that text (a sourced file, an
# `eval`'d string, `enable -f`'s shared object).
REDEFINE_ANY = frozenset({"source", ".", "eval", "enable"})
# bash's hook for a command it does not find: defined, any missing program "runs" and exits 0.
NOT_FOUND_HANDLER = "command_not_found_handle"
# The arrays bash looks command names up in: `BASH_CMDS` is the hash table (`hash -p`),
# `BASH_ALIASES` the aliases.
_NAME_TABLES = ("BASH_CMDS", "BASH_ALIASES")
# Builtins that assign the variables their words name.
_TABLE_WRITERS = frozenset(
    {
        "read",
        "printf",
        "mapfile",
        "readarray",
        "declare",
        "typeset",
        "local",
        "export",
        "readonly",
    }
)
# Signals whose trap never runs between two commands of this shell: its exit.
_AT_EXIT = frozenset({"EXIT", "0", "SIGEXIT"})


def _names_table(text: str) -> bool:
    return any(table in text for table in _NAME_TABLES)


def _assigns_table(name: str, args: list[str | None]) -> bool:
    """Whether a builtin that assigns variables may assign a table of names (`read
    BASH_CMDS[x]`, `printf -v BASH_CMDS[x] ...`, `mapfile BASH_ALIASES`): a name it is given
    holds one, or cannot be read. Only `printf -v` assigns: its other words are its output."""
    if name == "printf":
        named = args[args.index("-v") + 1 : args.index("-v") + 2] if "-v" in args else []
    else:
        named = [a for a in args if a is None or not a.startswith("-")]
    return any(a is None or _names_table(a) for a in named)


def _trap_runs_before(args: list[str | None]) -> bool:
    """Whether `trap ARGS` sets an action that may run before a later command (`DEBUG` runs
    before each one, `ERR` after a failure, a signal when one is sent): anything but listing,
    resetting (`-`, an empty action) or the exit."""
    words = [a for a in args if a != "--"]
    if not words or words[0] in ("-l", "-p"):
        return False
    action, signals = words[0], words[1:]
    if action in ("-", "") or not signals:
        return False
    return any(s is None or s.upper() not in _AT_EXIT for s in signals)
