"""Which paths a piece of Python touches, read from Python's own `ast`, without running it.

Closed-world like the shell analysis: file APIs called with literal paths (or names bound once
to literals, `Path(...) / "x"` joins) become accesses; a file API with a computed argument,
`exec`/`eval`, dynamic imports, path navigation (`.parent`, `Path.home()`) or a subprocess with
computed arguments makes the code opaque. String constants that look like paths outside the
current directory (`/…`, `../…`, `~…`) are reported whatever uses them.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from evaluator.vocabulary import AccessKind


def words(text: str) -> tuple[str, ...]:
    """A list of names written as one space-separated string (tables stay readable)."""
    return tuple(text.split())


# Functions (by their last name, whatever module they come from) whose first argument is a path.
_PATH_FUNCTIONS: dict[str, AccessKind] = {
    **dict.fromkeys(
        words("listdir scandir walk iglob glob fwalk"),
        "list",
    ),
    **dict.fromkeys(
        words(
            "stat lstat exists isfile isdir islink getsize getmtime getatime getctime access"
            " samefile readlink lexists"
        ),
        "metadata",
    ),
    **dict.fromkeys(
        words(
            "remove unlink rmdir removedirs mkdir makedirs rename renames replace chmod chown"
            " lchown utime truncate rmtree mkfifo mknod"
        ),
        "write",
    ),
    **dict.fromkeys(words("FileIO fdopen loadtxt load_workbook read_csv"), "read"),
    "chdir": "cwd",
}
# Two-path functions: source read, destination written.
_COPY_FUNCTIONS = frozenset(
    words("copy copy2 copyfile copytree move copymode copystat symlink link")
)
_PATH_CONSTRUCTORS = frozenset({"Path", "PurePath", "PosixPath", "PurePosixPath"})
_PATH_METHODS: dict[str, AccessKind] = {
    **dict.fromkeys(words("read_text read_bytes open"), "read"),
    **dict.fromkeys(
        words(
            "write_text write_bytes touch mkdir unlink rmdir rename replace chmod symlink_to"
            " hardlink_to link_to"
        ),
        "write",
    ),
    **dict.fromkeys(words("iterdir glob rglob walk"), "list"),
    **dict.fromkeys(
        words("exists is_file is_dir is_symlink stat lstat samefile owner group"), "metadata"
    ),
}
_NAVIGATION = frozenset({"parent", "parents", "home", "cwd", "expanduser", "readlink", "anchor"})
_OPAQUE_CALLS = frozenset(
    words(
        "exec eval compile __import__ import_module run_path run_module execv execve execvp"
        " execvpe execl execle execlp spawnv spawnl spawnvp posix_spawn startfile"
        " load_source SourceFileLoader system popen getoutput getstatusoutput"
    )
)
_SUBPROCESS_CALLS = frozenset({"run", "call", "check_call", "check_output", "Popen"})
_OPAQUE_MODULES = frozenset({"ctypes", "importlib", "runpy", "pty", "code", "cffi"})


@dataclass(frozen=True)
class PyAccess:
    kind: AccessKind
    path: str
    how: str


@dataclass
class PyAnalysis:
    accesses: list[PyAccess] = field(default_factory=list)
    commands: list[list[str] | str] = field(default_factory=list)  # argv lists or shell text
    opaque: list[str] = field(default_factory=list)
    # Top-level modules imported by absolute name: Python looks for them first in the program's
    # own directory, where a file the session wrote shadows the standard library's.
    imports: list[str] = field(default_factory=list)


def _looks_outside(text: str) -> bool:
    return (
        len(text) > 1
        and "\n" not in text
        and " " not in text
        and (text.startswith(("/", "~")) or text.startswith("..") or "/../" in text)
    )


class _Scanner(ast.NodeVisitor):
    def __init__(self, result: PyAnalysis) -> None:
        self.result = result
        self.bound: dict[str, str | None] = {}  # names bound to literal paths (None: rebound)

    # ---------------------------------------------------------------- constants
    def literal(self, node: ast.AST) -> str | None:
        """The string value of a literal path expression, or None when computed."""
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.JoinedStr):
            parts = [self.literal(v) for v in node.values]
            return None if any(p is None for p in parts) else "".join(p or "" for p in parts)
        if isinstance(node, ast.FormattedValue):
            return self.literal(node.value)
        if isinstance(node, ast.Name):
            return self.bound.get(node.id)
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Div)):
            left, right = self.literal(node.left), self.literal(node.right)
            if left is None or right is None:
                return None
            return f"{left}/{right}" if isinstance(node.op, ast.Div) else left + right
        if isinstance(node, ast.Call) and _name(node.func) in _PATH_CONSTRUCTORS:
            if not node.args:
                return "."
            parts = [self.literal(a) for a in node.args]
            return None if any(p is None for p in parts) else "/".join(p or "" for p in parts)
        if isinstance(node, ast.Call) and _name(node.func) == "join" and node.args:
            parts = [self.literal(a) for a in node.args]
            return None if any(p is None for p in parts) else "/".join(p or "" for p in parts)
        return None

    def add(self, kind: AccessKind, node: ast.AST | None, how: str) -> None:
        if node is None:
            return
        value = self.literal(node)
        if value is None:
            self.result.opaque.append(f"python {how}() with a computed path")
            return
        self.result.accesses.append(PyAccess(kind, value, how))

    # ---------------------------------------------------------------- visitors
    def visit_Assign(self, node: ast.Assign) -> None:
        value = self.literal(node.value)
        for target in node.targets:
            if isinstance(target, ast.Name):
                # A name bound twice is no longer a known literal.
                self.bound[target.id] = value if target.id not in self.bound else None
        self.generic_visit(node)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self.result.imports.append(alias.name.split(".")[0])
            if alias.name.split(".")[0] in _OPAQUE_MODULES:
                self.result.opaque.append(f"python imports {alias.name}")
        self.generic_visit(node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level == 0 and node.module:
            self.result.imports.append(node.module.split(".")[0])
        if (node.module or "").split(".")[0] in _OPAQUE_MODULES:
            self.result.opaque.append(f"python imports from {node.module}")
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, str) and _looks_outside(node.value):
            self.result.accesses.append(PyAccess("path", node.value, "literal"))

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr in _NAVIGATION:
            self.result.opaque.append(f"python path navigation .{node.attr}")
        if node.attr == "environ":
            self.result.opaque.append("python reads the environment")
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        name = _name(node.func)
        first = node.args[0] if node.args else None
        if name in _OPAQUE_CALLS:
            self.result.opaque.append(f"python {name}() runs code or commands not shown")
        elif name in ("getattr", "setattr", "globals", "locals", "vars") and not all(
            isinstance(a, ast.Constant) for a in node.args[1:2]
        ):
            self.result.opaque.append(f"python {name}() with a computed name")
        elif name == "open" and first is not None:
            self.add(_open_kind(node), first, "open")
        elif name in _SUBPROCESS_CALLS:
            self.subprocess(node)
        elif name in _PATH_FUNCTIONS and first is not None:
            self.add(_PATH_FUNCTIONS[name], first, name)
        elif name in ("listdir", "scandir", "getcwd") and isinstance(node.func, ast.Attribute):
            self.add("list", ast.Constant("."), name)
        elif name in _COPY_FUNCTIONS and len(node.args) >= 2:
            self.add("metadata" if name in ("symlink", "link") else "read", node.args[0], name)
            self.add("write", node.args[1], name)
        elif name in _PATH_CONSTRUCTORS:
            for arg in node.args:
                if self.literal(arg) is None:
                    self.result.opaque.append(f"python {name}() with a computed path")
                    break
        if isinstance(node.func, ast.Attribute) and node.func.attr in _PATH_METHODS:
            receiver = node.func.value
            if self.pathlike(receiver):
                kind = _PATH_METHODS[node.func.attr]
                if node.func.attr == "open":
                    kind = _open_kind(node, mode_index=0)
                self.add(kind, receiver, node.func.attr)
        self.generic_visit(node)

    def pathlike(self, node: ast.AST) -> bool:
        """A receiver that is a path: a name bound by assignment, a join, or `Path(...)`."""
        if isinstance(node, ast.Name):
            return node.id in self.bound
        return isinstance(node, ast.BinOp) or (
            isinstance(node, ast.Call) and _name(node.func) in _PATH_CONSTRUCTORS
        )

    def subprocess(self, node: ast.Call) -> None:
        first = node.args[0] if node.args else None
        if isinstance(first, ast.List | ast.Tuple):
            argv = [self.literal(e) for e in first.elts]
            if all(a is not None for a in argv):
                self.result.commands.append([a for a in argv if a is not None])
                return
        elif first is not None:
            text = self.literal(first)
            if text is not None:
                self.result.commands.append(text)
                return
        self.result.opaque.append("python subprocess with computed arguments")


def _name(func: ast.AST) -> str:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""


def _open_kind(node: ast.Call, mode_index: int = 1) -> AccessKind:
    mode_node = node.args[mode_index] if len(node.args) > mode_index else None
    for keyword in node.keywords:
        if keyword.arg == "mode":
            mode_node = keyword.value
    if mode_node is None:
        return "read"
    if isinstance(mode_node, ast.Constant) and isinstance(mode_node.value, str):
        return "write" if any(c in mode_node.value for c in "wax+") else "read"
    return "write"


def analyze_python(source: str) -> PyAnalysis:
    result = PyAnalysis()
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        result.opaque.append("python code that does not parse")
        return result
    _Scanner(result).visit(tree)
    return result
