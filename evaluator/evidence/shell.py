"""Which paths a shell command touches, from a real bash parse (tree-sitter-bash).

The result is what a careful reader of the command would conclude: files read, written and
listed, directories entered, programs executed, and the constructs whose paths cannot be known
(`python -c`, `eval`, `sh -c "$VAR"`, expansions in path positions). Paths are resolved lexically
against the cwd in force at that point of the command (`cd` chains included); symlinks are the
isolation stage's business.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from functools import cache

import tree_sitter_bash
from tree_sitter import Language, Node, Parser

from evaluator.vocabulary import AccessKind

HOME_MARK = "~"


@dataclass(frozen=True)
class PathAccess:
    kind: AccessKind
    path: str  # absolute and normalised, or starting with "~" when HOME is unknown
    raw: str
    via: str


@dataclass
class ShellAnalysis:
    accesses: list[PathAccess] = field(default_factory=list)
    opaque: list[str] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)
    final_cwd: str = "/"


@cache
def _parser() -> Parser:
    return Parser(Language(tree_sitter_bash.language()))


# Commands whose non-option arguments are files they read.
READERS = {
    "cat",
    "head",
    "tail",
    "less",
    "more",
    "nl",
    "wc",
    "sort",
    "uniq",
    "diff",
    "cmp",
    "file",
    "stat",
    "md5sum",
    "sha1sum",
    "sha256sum",
    "xxd",
    "od",
    "strings",
    "cut",
    "column",
    "bat",
    "tac",
    "paste",
    "comm",
    "base64",
    "hexdump",
    "iconv",
    "fold",
    "fmt",
    "rev",
    "shasum",
}
# First non-option argument is a program or pattern, the rest are files.
PATTERN_READERS = {"grep", "egrep", "fgrep", "rg", "ag", "awk", "gawk", "jq", "sed", "yq"}
LISTERS = {"ls", "tree", "du", "find", "fd", "realpath", "readlink", "dir", "test", "["}
WRITERS = {"touch", "mkdir", "rm", "rmdir", "chmod", "chown", "truncate", "shred", "unlink"}
INTERPRETERS = {"python", "python3", "node", "bash", "sh", "zsh", "ruby", "perl", "php", "deno"}
INLINE_CODE_FLAGS = {"-c", "-e", "--eval", "-E", "-p", "--print"}
PREFIX_COMMANDS = {
    "env",
    "sudo",
    "nohup",
    "time",
    "timeout",
    "nice",
    "command",
    "builtin",
    "stdbuf",
}
NO_PATH_ARGS = {
    "echo",
    "printf",
    "true",
    "false",
    "export",
    "unset",
    "set",
    "exit",
    "sleep",
    "wait",
    "pwd",
    "basename",
    "dirname",
    "date",
    "whoami",
    "id",
    "uname",
    "which",
    "type",
    "seq",
    "expr",
    "let",
    "read",
    "shift",
    "return",
    "local",
    "declare",
    "alias",
}
OPTIONS_WITH_VALUE = {
    "head": {"-n", "-c"},
    "tail": {"-n", "-c"},
    "grep": {"-e", "-f", "-m", "-A", "-B", "-C"},
    "rg": {"-e", "-g", "-t", "-T", "-m", "-A", "-B", "-C", "--glob", "--type"},
    "sed": {"-e", "-f"},
    "awk": {"-F", "-v", "-f"},
    "find": set(),
    "cut": {"-d", "-f", "-c"},
    "sort": {"-k", "-t", "-o"},
    "git": {"-C", "-c"},
    "tar": {"-C", "-f"},
    "ls": set(),
    "timeout": {"-s", "-k"},
    "nl": {"-b", "-w", "-s"},
}


def analyze_command(command: str, cwd: str, home: str | None = None) -> ShellAnalysis:
    result = ShellAnalysis(final_cwd=posixpath.normpath(cwd))
    tree = _parser().parse(command.encode("utf-8"))
    walker = _Walker(result, home)
    walker.cwd = result.final_cwd
    if tree.root_node.has_error:
        result.opaque.append("the command does not parse as bash")
    walker.statements(tree.root_node)
    result.final_cwd = walker.cwd
    return result


class _Walker:
    def __init__(self, result: ShellAnalysis, home: str | None) -> None:
        self.result = result
        self.home = home
        self.cwd = "/"

    # ------------------------------------------------------------------ values
    def value(self, node: Node) -> str | None:
        """The literal text of a word, or None when it depends on run-time expansion."""
        kind = node.type
        text = _text(node)
        if kind in ("word", "number"):
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
        if kind == "concatenation":
            pieces = [self.value(child) for child in node.named_children]
            if any(p is None for p in pieces):
                return None
            return "".join(p for p in pieces if p is not None)
        if kind in ("simple_expansion", "expansion"):
            name = text.strip("${}")
            if name == "HOME":
                return self.home or HOME_MARK
            if name == "PWD":
                return self.cwd
            return None
        if kind == "ansi_c_string":
            return text[2:-1]
        return None

    def resolve(self, raw: str) -> str:
        if raw == "~" or raw.startswith("~/"):
            raw = (self.home + raw[1:]) if self.home else raw
            if raw.startswith("~"):
                return raw
        if raw.startswith(HOME_MARK):
            return raw
        return posixpath.normpath(posixpath.join(self.cwd, raw))

    def add(self, kind: AccessKind, raw: str, via: str) -> None:
        self.result.accesses.append(PathAccess(kind, self.resolve(raw), raw, via))

    def opaque(self, reason: str) -> None:
        self.result.opaque.append(reason)

    # ------------------------------------------------------------------ statements
    def statements(self, node: Node) -> None:
        for child in node.named_children:
            self.statement(child)

    def statement(self, node: Node) -> None:
        kind = node.type
        if kind == "command":
            self.command(node)
        elif kind == "redirected_statement":
            body = node.child_by_field_name("body")
            if body is not None:
                self.statement(body)
            for redirect in node.children_by_field_name("redirect"):
                self.redirect(redirect)
        elif kind in (
            "list",
            "pipeline",
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
        ):
            self.statements(node)
        elif kind == "subshell":
            saved = self.cwd
            self.statements(node)
            self.cwd = saved
        elif kind == "for_statement":
            if any(c.type == "simple_expansion" for c in _descendants(node)):
                self.opaque("for loop: the paths depend on the loop variable")
            self.statements(node)
        elif kind == "function_definition":
            self.opaque("shell function definition")
        elif kind in ("variable_assignment", "declaration_command"):
            for sub in _descendants(node):
                if sub.type == "command_substitution":
                    self.statements(sub)
        elif kind in (
            "heredoc_body",
            "comment",
            "test_command",
            "file_redirect",
            "heredoc_redirect",
        ):
            if kind == "test_command":
                for sub in _descendants(node):
                    if sub.type in ("word", "string", "raw_string"):
                        raw = self.value(sub)
                        if raw and _looks_like_path(raw):
                            self.add("path", raw, "test")
            elif kind == "file_redirect":
                self.redirect(node)
        else:
            self.statements(node)

    def redirect(self, node: Node) -> None:
        if node.type != "file_redirect":
            return
        destination = node.child_by_field_name("destination")
        if destination is None:
            return
        operator = "".join(
            _text(c)
            for c in node.children
            if c.type in (">", ">>", "<", "&>", "&>>", ">|", "<>", ">&", "<&")
        )
        raw = self.value(destination)
        if raw is None:
            self.opaque(f"redirect to a computed path {_text(destination)!r}")
            return
        if operator in (">&", "<&") and (raw.isdigit() or raw == "-"):
            return
        self.add("read" if operator.startswith("<") else "write", raw, operator or ">")

    # ------------------------------------------------------------------ commands
    def command(self, node: Node) -> None:
        name_node = node.child_by_field_name("name")
        for sub in node.named_children:
            if sub.type == "command_substitution":
                self.statements(sub)
        if name_node is None:
            return
        name = self.value(name_node.named_children[0]) if name_node.named_children else None
        args_nodes = [c for c in node.children_by_field_name("argument")]
        for redirect in node.children_by_field_name("redirect"):
            self.redirect(redirect)
        for arg in args_nodes:
            for sub in _descendants(arg):
                if sub.type == "command_substitution":
                    self.statements(sub)
        if name is None:
            self.opaque(f"command name is computed: {_text(name_node)!r}")
            return
        args = [self.value(a) for a in args_nodes]
        self.result.commands.append(name)
        self.apply(name, args, [_text(a) for a in args_nodes])

    def apply(self, name: str, args: list[str | None], texts: list[str]) -> None:
        base = posixpath.basename(name)
        if "/" in name:
            self.add("exec", name, name)
        if base in PREFIX_COMMANDS:
            rest = _skip_prefix(base, args)
            if rest and rest[0] is not None:
                offset = len(args) - len(rest)
                self.apply(rest[0], rest[1:], texts[offset + 1 :])
            return
        if base == "eval":
            self.opaque("eval runs computed text")
            return
        if base == "exec":
            if args and args[0] is not None:
                self.apply(args[0], args[1:], texts[1:])
            return
        if base in ("cd", "pushd"):
            target = next((a for a in args if a is None or not a.startswith("-")), "~")
            if target is None:
                self.opaque("cd to a computed directory")
                return
            if target == "-":
                return
            self.add("cwd", target, base)
            resolved = self.resolve(target)
            if not resolved.startswith(HOME_MARK):
                self.cwd = resolved
            return
        if base in ("source", "."):
            for raw in args[:1]:
                self._maybe("read", raw, base)
            return
        if base in INTERPRETERS:
            self.interpreter(base, args, texts)
            return
        if base == "xargs":
            self.opaque("xargs builds commands from its input")
            return
        if base == "git":
            self.git(args)
            return
        if base == "tar":
            self.with_dir_option(base, args, "-C")
            return
        if base == "make":
            self.with_dir_option(base, args, "-C")
            return
        if base == "find":
            for raw in _leading_operands(args):
                self._maybe("list", raw, base, force=True)
            if not _leading_operands(args):
                self.add("list", ".", base)
            action = next(
                (a for a in args if a in ("-exec", "-execdir", "-delete", "-fprint", "-ok")), None
            )
            if action:
                self.opaque(f"find {action} acts on the files it finds")
            return
        if base in NO_PATH_ARGS:
            return
        operands = _operands(base, args)
        if any(a is None for a in operands):
            computed = [t for a, t in zip(args, texts, strict=True) if a is None]
            self.opaque(f"{base}: computed argument(s) {', '.join(computed)}")
        literal = [a for a in operands if a is not None]
        if base in READERS:
            for raw in literal:
                self._maybe("read", raw, base, force=True)
        elif base in PATTERN_READERS:
            self.pattern_reader(base, args, literal)
        elif base in LISTERS:
            if not literal and base in ("ls", "tree", "du", "dir"):
                self.add("list", ".", base)
            for raw in literal:
                self._maybe("list", raw, base, force=True)
        elif base in WRITERS or base == "tee":
            for raw in literal:
                self._maybe("write", raw, base, force=True)
        elif base in ("cp", "install", "rsync", "scp"):
            for raw in literal[:-1]:
                self._maybe("read", raw, base, force=True)
            for raw in literal[-1:]:
                self._maybe("write", raw, base, force=True)
        elif base in ("mv", "ln"):
            for raw in literal:
                self._maybe("write", raw, base, force=True)
        elif base == "dd":
            for raw in literal:
                if raw.startswith("if="):
                    self._maybe("read", raw[3:], base, force=True)
                elif raw.startswith("of="):
                    self._maybe("write", raw[3:], base, force=True)
        elif base in NO_PATH_ARGS:
            return
        else:
            for raw in literal:
                self._maybe("path", raw, base)

    def pattern_reader(self, base: str, args: list[str | None], literal: list[str]) -> None:
        has_script_option = any(a in ("-e", "-f", "--regexp", "--file") for a in args)
        files = literal if has_script_option else literal[1:]
        in_place = base == "sed" and any(a and (a == "-i" or a.startswith("-i")) for a in args)
        for raw in files:
            self._maybe("write" if in_place else "read", raw, base, force=True)
        if base in ("grep", "egrep", "fgrep", "rg", "ag") and not files:
            recursive = base in ("rg", "ag") or any(
                a and a.startswith("-") and not a.startswith("--") and ("r" in a or "R" in a)
                for a in args
            )
            if recursive:
                self.add("read", ".", base)

    def interpreter(self, base: str, args: list[str | None], texts: list[str]) -> None:
        for index, raw in enumerate(args):
            if raw in INLINE_CODE_FLAGS or (raw and base in ("python", "python3") and raw == "-m"):
                if base in ("bash", "sh", "zsh") and raw == "-c" and index + 1 < len(args):
                    inner = args[index + 1]
                    if inner is None:
                        self.opaque(f"{base} -c with computed text {texts[index + 1]}")
                    else:
                        nested = analyze_command(inner, self.cwd, self.home)
                        self.result.accesses.extend(nested.accesses)
                        self.result.opaque.extend(nested.opaque)
                        self.result.commands.extend(nested.commands)
                    return
                if raw == "-m":
                    return
                self.opaque(f"{base} {raw} runs inline code whose paths cannot be known")
                return
            if raw is None:
                self.opaque(f"{base}: computed argument {texts[index]}")
                return
            if not raw.startswith("-"):
                self._maybe("read", raw, base, force=True)
                for rest in args[index + 1 :]:
                    if rest is not None:
                        self._maybe("path", rest, base)
                return

    def git(self, args: list[str | None]) -> None:
        directory = None
        for index, raw in enumerate(args):
            if raw == "-C" and index + 1 < len(args):
                directory = args[index + 1]
                if directory is None:
                    self.opaque("git -C with a computed directory")
                    return
        target = directory if directory is not None else "."
        self.add("path", target, "git")

    def with_dir_option(self, base: str, args: list[str | None], option: str) -> None:
        skip = False
        for index, raw in enumerate(args):
            if skip:
                skip = False
                continue
            if raw == option and index + 1 < len(args):
                skip = True
                value = args[index + 1]
                if value is None:
                    self.opaque(f"{base} {option} with a computed directory")
                else:
                    self.add("path", value, base)
            elif raw is not None and not raw.startswith("-"):
                # tar's operands are archives and members; make's are targets, not paths.
                self._maybe("path", raw, base, force=base == "tar")

    def _maybe(self, kind: AccessKind, raw: str | None, via: str, force: bool = False) -> None:
        if raw is None or raw == "-":
            return
        if force or _looks_like_path(raw):
            self.add(kind, raw, via)


def _text(node: Node) -> str:
    return node.text.decode("utf-8", errors="replace") if node.text is not None else ""


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


def _skip_prefix(base: str, args: list[str | None]) -> list[str | None]:
    rest = list(args)
    while rest and rest[0] is not None and (rest[0].startswith("-") or "=" in rest[0]):
        rest.pop(0)
    if base == "timeout" and rest:
        rest.pop(0)  # the duration
    return rest


def _operands(base: str, args: list[str | None]) -> list[str | None]:
    """Non-option arguments, skipping the values of options known to take one."""
    with_value = OPTIONS_WITH_VALUE.get(base, set())
    operands: list[str | None] = []
    skip = False
    after_dashdash = False
    for raw in args:
        if skip:
            skip = False
            continue
        if raw is None:
            operands.append(None)
            continue
        if after_dashdash:
            operands.append(raw)
        elif raw == "--":
            after_dashdash = True
        elif raw in with_value:
            skip = True
        elif raw.startswith("-") and raw != "-":
            continue
        else:
            operands.append(raw)
    return operands


def _leading_operands(args: list[str | None]) -> list[str | None]:
    leading: list[str | None] = []
    for raw in args:
        if raw is None or raw.startswith(("-", "(", "!")):
            break
        leading.append(raw)
    return leading
