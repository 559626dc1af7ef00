"""Which paths a piece of Python touches, read from Python's own `ast`, without running it.

Closed-world like the shell analysis: file APIs called with literal paths (or names bound once
to literals, `Path(...) / "x"` joins) become accesses; a file API with a computed argument,
`exec`/`eval`, dynamic imports, path navigation (`.parent`, `Path.home()`) or a subprocess with
computed arguments makes the code opaque. String constants that look like paths outside the
current directory (`/…`, `../…`, `~…`) are reported whatever uses them.

What would call a file API the tables do not show is opaque too: a known function referred to
without a call (`f = open`, `from os import system as s`), a string built at run time
(`chr(47) + "etc"`, a `.decode()`, a `.read()`) given to a function the tables do not know
(`linecache.getline`, `urlopen`), a change to where imports are found (`sys.path.insert`,
`site.addsitedir`), introspection (`__subclasses__`), deserialisers that run code (`pickle`).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from urllib.parse import unquote

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
        " addsitedir addpackage"
    )
)
# `sys` state that decides where `import` finds a module: changing it makes an import load a
# file from another directory (`sys.path.insert(0, "lib"); import helper` runs lib/helper.py).
_IMPORT_STATE = frozenset({"path", "meta_path", "path_hooks", "path_importer_cache", "modules"})
_SUBPROCESS_CALLS = frozenset({"run", "call", "check_call", "check_output", "Popen"})
# Deserialisers that run code (`pickle` calls what the data names) are in this list too.
_OPAQUE_MODULES = frozenset(
    words("ctypes importlib runpy pty code cffi pickle marshal shelve dill cloudpickle")
)
# Introspection that reaches functions no name shows (`().__class__.__base__.__subclasses__()`).
_INTROSPECTION = frozenset(
    words(
        "__subclasses__ __globals__ __builtins__ __code__ __dict__ __getattribute__ __bases__"
        " __base__ __mro__ __class__ __closure__ __func__ __self__ __loader__ __spec__"
    )
)


# Every function the tables above name: one referred to without being called (`f = open`,
# `from os import system as s`, `map(open, names)`) is called later under another name.
_KNOWN_FUNCTIONS = frozenset(
    {"open", *_PATH_FUNCTIONS, *_COPY_FUNCTIONS, *_PATH_CONSTRUCTORS}
    | _OPAQUE_CALLS
    | _SUBPROCESS_CALLS
)
# Calls that build a string at run time (`chr(47) + "etc"`, `b64decode(...).decode()`,
# `"/".join(parts)`, `open("p.txt").read().strip()`): such a string may be any path.
_STRING_BUILDERS = frozenset(
    words(
        "chr str bytes bytearray join format decode b64decode b32decode b16decode a85decode"
        " urlsafe_b64decode fromhex unhexlify replace lower upper strip lstrip rstrip swapcase"
        " translate casefold title capitalize read readline readlines getenv expanduser"
        " expandvars abspath realpath normpath dirname basename relpath fspath"
    )
)
# Functions that take strings and touch no file: a string built at run time may go there.
_STRING_SAFE_CALLS = frozenset(
    words(
        "print len str repr int float bool list tuple set frozenset dict sorted reversed format"
        " isinstance ord chr min max sum any all enumerate zip range abs round hash id type"
        " join split rsplit replace lower upper strip lstrip rstrip startswith endswith encode"
        " decode count find rfind index rindex splitlines partition rpartition zfill ljust"
        " rjust center title capitalize casefold swapcase translate maketrans isdigit isalpha"
        " dumps loads append extend insert update write writelines match search sub subn"
        " findall finditer fullmatch escape b64encode b64decode b32encode b16encode hexlify"
        " unhexlify hex fromhex md5 sha1 sha256 sha512 hexdigest digest Counter defaultdict"
        " OrderedDict namedtuple get setdefault pop remove discard exit quote unquote"
        " urlencode dedent indent wrap fill shorten pformat pprint"
    )
)


@dataclass(frozen=True)
class PyAccess:
    kind: AccessKind
    path: str
    how: str
    # After an exit call earlier in its block (`sys.exit()`, `exit()`, `quit()`, `os._exit()`):
    # the program may not reach it (see `_ends`).
    conditional: bool = False


@dataclass
class PyAnalysis:
    accesses: list[PyAccess] = field(default_factory=list)
    commands: list[list[str] | str] = field(default_factory=list)  # argv lists or shell text
    # Indices of `commands` inside a branch, a loop, a function, a `try`, a short-circuit or a
    # conditional expression, or after an exit call in their block: the program may not reach
    # them.
    guarded: set[int] = field(default_factory=set)
    opaque: list[str] = field(default_factory=list)
    # Top-level modules imported by absolute name: Python looks for them first in the program's
    # own directory, where a file the session wrote shadows the standard library's.
    imports: list[str] = field(default_factory=list)


# `file:/p`, `file:///p`, `file://localhost/p` (any case): what `urlopen`, `curl`, sqlite's URI
# filenames and many programs given a URL open as the file `/p`.
_FILE_URL = re.compile(r"^file:(?://[^/]*)?", re.IGNORECASE)


def file_url_path(text: str) -> str | None:
    """The file a `file:` URL names (percent-escapes decoded), or None for any other text."""
    match = _FILE_URL.match(text)
    return unquote(text[match.end() :]) if match else None


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
        self.sys_names = {"sys"}  # names the `sys` module is imported as
        self.guarded = 0  # inside code that may not run (see `PyAnalysis.guarded`)
        self.after_exit = 0  # after an exit call in an enclosing block (see `_ends`)
        self.built: set[str] = set()  # names bound to a string built at run time
        self.called: set[int] = set()  # ids of the nodes called (`f` in `f(x)`)

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
        self.result.accesses.append(PyAccess(kind, value, how, self.after_exit > 0))

    # ---------------------------------------------------------------- visitors
    def changes_imports(self, targets: list[ast.expr]) -> None:
        if any(_import_state(t, self.sys_names) for t in targets):
            self.result.opaque.append("python changes where modules are imported from")

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self.changes_imports([node.target])
        self.generic_visit(node)

    def builds_string(self, node: ast.AST) -> bool:
        """Whether the expression is a string built at run time (see `_STRING_BUILDERS`)."""
        if self.literal(node) is not None:
            return False
        if isinstance(node, ast.Name):
            return node.id in self.built
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod, ast.Div)):
            return any(
                (isinstance(side, ast.Constant) and isinstance(side.value, str))
                or self.builds_string(side)
                for side in (node.left, node.right)
            )
        if isinstance(node, ast.JoinedStr):
            return True
        if isinstance(node, ast.Subscript):
            value = node.value
            return (
                isinstance(value, ast.Constant) and isinstance(value.value, str)
            ) or self.builds_string(value)
        if isinstance(node, ast.Attribute):
            return node.attr in ("sep", "altsep", "pardir", "curdir", "extsep")
        if isinstance(node, ast.Call):
            return _name(node.func) in _STRING_BUILDERS or (
                isinstance(node.func, ast.Attribute) and self.builds_string(node.func.value)
            )
        return False

    def visit_Assign(self, node: ast.Assign) -> None:
        self.changes_imports(node.targets)
        built = self.builds_string(node.value)
        for target in node.targets:
            if isinstance(target, ast.Name):
                if built:
                    self.built.add(target.id)
                else:
                    self.built.discard(target.id)
        value = self.literal(node.value)
        for target in node.targets:
            if isinstance(target, ast.Name):
                # A name bound twice is no longer a known literal.
                self.bound[target.id] = value if target.id not in self.bound else None
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        self.referred(node, node.id)
        if node.id in _INTROSPECTION:
            self.result.opaque.append(f"python introspection {node.id}")

    def referred(self, node: ast.AST, name: str) -> None:
        if name in _KNOWN_FUNCTIONS and id(node) not in self.called:
            self.result.opaque.append(f"python refers to {name} without calling it")

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.name == "sys" and alias.asname:
                self.sys_names.add(alias.asname)
            self.result.imports.append(alias.name.split(".")[0])
            if alias.name.split(".")[0] in _OPAQUE_MODULES:
                self.result.opaque.append(f"python imports {alias.name}")
        self.generic_visit(node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level == 0 and node.module:
            self.result.imports.append(node.module.split(".")[0])
        if (node.module or "").split(".")[0] in _OPAQUE_MODULES:
            self.result.opaque.append(f"python imports from {node.module}")
        if node.module == "sys" and any(a.name in _IMPORT_STATE for a in node.names):
            self.result.opaque.append("python changes where modules are imported from")
        for alias in node.names:
            if alias.asname and alias.name in _KNOWN_FUNCTIONS:
                self.result.opaque.append(f"python imports {alias.name} as {alias.asname}")
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        if not isinstance(node.value, str):
            return
        text = file_url_path(node.value) or node.value
        if _looks_outside(text):
            self.result.accesses.append(PyAccess("path", text, "literal", self.after_exit > 0))

    def visit_Attribute(self, node: ast.Attribute) -> None:
        self.referred(node, node.attr)
        if node.attr in _INTROSPECTION:
            self.result.opaque.append(f"python introspection .{node.attr}")
        if node.attr in _NAVIGATION:
            self.result.opaque.append(f"python path navigation .{node.attr}")
        if node.attr == "environ":
            self.result.opaque.append("python reads the environment")
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        name = _name(node.func)
        first = node.args[0] if node.args else None
        self.called.add(id(node.func))
        if isinstance(node.func, ast.Attribute):
            self.changes_imports([node.func.value])  # `sys.path.insert(...)`, `.append`, ...
        arguments = [*node.args, *(k.value for k in node.keywords)]
        unknown = name not in _STRING_SAFE_CALLS and name not in _KNOWN_FUNCTIONS
        if unknown and any(self.builds_string(a) for a in arguments):
            # An API the tables do not know (`linecache.getline`, `urlopen`) given a string
            # built at run time: it may be a path anywhere.
            self.result.opaque.append(f"python {name or 'a call'}() given a computed string")
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

    def generic_visit(self, node: ast.AST) -> None:
        # As `ast.NodeVisitor`'s, but a list of statements is read as a block (`block`).
        for _, value in ast.iter_fields(node):
            if isinstance(value, list):
                if value and isinstance(value[0], ast.stmt):
                    self.block(value)
                    continue
                for item in value:
                    if isinstance(item, ast.AST):
                        self.visit(item)
            elif isinstance(value, ast.AST):
                self.visit(value)

    def block(self, statements: list[ast.stmt]) -> None:
        """One block's statements in order: what follows a statement that never completes
        (`raise`, `return`, `break`, `continue`) is never run and not read at all; what follows
        an exit call may not run (`_ends`)."""
        exits = 0
        for statement in statements:
            self.visit(statement)
            end = _ends(statement)
            if end == "never":
                break
            if end == "maybe":
                exits += 1
                self.after_exit += 1
        self.after_exit -= exits

    def guard(self, node: ast.AST) -> None:
        self.guarded += 1
        self.generic_visit(node)
        self.guarded -= 1

    visit_If = visit_For = visit_AsyncFor = visit_While = visit_Try = guard
    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = visit_IfExp = guard
    visit_BoolOp = visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = guard
    visit_Match = visit_With = visit_AsyncWith = visit_ClassDef = guard

    def command(self, command: list[str] | str) -> None:
        if self.guarded or self.after_exit:
            self.result.guarded.add(len(self.result.commands))
        self.result.commands.append(command)

    def subprocess(self, node: ast.Call) -> None:
        first = node.args[0] if node.args else None
        if isinstance(first, ast.List | ast.Tuple):
            argv = [self.literal(e) for e in first.elts]
            if all(a is not None for a in argv):
                self.command([a for a in argv if a is not None])
                return
        elif first is not None:
            text = self.literal(first)
            if text is not None:
                self.command(text)
                return
        self.result.opaque.append("python subprocess with computed arguments")


# Calls that end the program: `sys.exit(...)`, `os._exit(...)` and the `site` builtins `exit()`
# and `quit()`.
_EXIT_CALLS = frozenset({("sys", "exit"), ("os", "_exit"), ("", "exit"), ("", "quit")})


def _ends(statement: ast.stmt) -> str | None:
    """How `statement` keeps the rest of its block from running: "never" when it cannot complete
    (`raise`, `return`, `break`, `continue`: the language's own, nothing can change them); "maybe"
    for an exit call, which the code's text cannot show to be the real one (a `sitecustomize.py`
    on `PYTHONPATH`, a module imported before it, `sys.exit = ...` or a name of the code's own
    make it return); None otherwise. Only the rest of *its* block: an exit inside an `if`, a
    `try` or a function leaves what follows that statement as it was, and a `finally` still
    runs after one (the shell reader's `exit` likewise, `evidence/shell/walker.py`)."""
    if isinstance(statement, ast.Raise | ast.Return | ast.Break | ast.Continue):
        return "never"
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
        func = statement.value.func
        if isinstance(func, ast.Name):
            called = ("", func.id)
        elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            called = (func.value.id, func.attr)
        else:
            return None
        return "maybe" if called in _EXIT_CALLS else None
    return None


def _import_state(node: ast.AST, sys_names: set[str]) -> bool:
    """`sys.path`, `sys.path[0]`, `sys.modules["x"]`, ... (see `_IMPORT_STATE`)."""
    while isinstance(node, ast.Subscript):
        node = node.value
    return (
        isinstance(node, ast.Attribute)
        and node.attr in _IMPORT_STATE
        and isinstance(node.value, ast.Name)
        and node.value.id in sys_names
    )


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
