"""Interpreters: shells, Python, node, perl, ruby, php, `source`, `script -c`, pytest. Program
text they are given inline or on stdin is analysed in its language where we can; a script file
they run is reported (`ScriptRun`) so the normaliser can follow what the session wrote there."""

from __future__ import annotations

import posixpath
import re
import sys

from evaluator.evidence.shell.model import TEXT, model, split_options, words
from evaluator.evidence.shell.registry import handles, handles_pattern
from evaluator.evidence.shell.results import ProgramLanguage, ScriptRun
from evaluator.evidence.shell.text import looks_like_path
from evaluator.evidence.shell.walker import Walker

SHELLS = frozenset({"bash", "sh", "dash", "zsh", "ksh", "mksh", "ash", "busybox-sh"})
# `python3 -m MODULE ARGS`: the modules we know, and what their operands are.
PYTHON_MODULES = {
    "json.tool": model("read", last="write", long="--indent --sort-keys"),
    "py_compile": model("read"),
    "base64": model("read"),
    "http.server": model(
        "text", short="bd", long="--bind --directory --protocol", roles={"-d": "list"}
    ),
    "venv": model("write", long="--prompt"),
    "tokenize": model("read"),
    "ast": model("read"),
    "calendar": TEXT,
    "this": TEXT,
    "platform": TEXT,
    "sysconfig": TEXT,
    "site": TEXT,
    "timeit": TEXT,
}
# Modules that run the workspace's own code (tests, packages): a tree of programs.
PYTHON_TREE_MODULES = frozenset({"pytest", "unittest", "compileall", "doctest"})
SCRIPT = model(
    "write",
    short="cEIOBTm",
    long="--command --echo --log-in --log-out --log-io --log-timing --logging-format",
)
_INFO_FLAGS = frozenset(words("--version -V --help -h -v"))


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


@handles(*sorted(SHELLS))
def shell(w: Walker, base: str, args: list[str | None], texts: list[str]) -> None:
    if args[:1] and args[0] in _INFO_FLAGS:
        return
    index = 0
    command_mode = False
    noexec = False  # `-n`, `-o noexec`: the shell reads the program and runs nothing
    while index < len(args):
        raw = args[index]
        if raw is None:
            w.opaque(f"{base}: computed argument {texts[index]}")
            return
        if raw == "--":
            index += 1
            break
        if raw in ("-o", "+o", "-O", "+O"):
            noexec = noexec or (raw == "-o" and args[index + 1 : index + 2] == ["noexec"])
            index += 2
            continue
        if raw in ("--rcfile", "--init-file"):
            w.opaque(f"{base} {raw} sources a file")
            index += 2
            continue
        if raw.startswith("--"):
            index += 1
            continue
        if raw.startswith(("-", "+")) and len(raw) > 1:
            command_mode = command_mode or "c" in raw[1:]
            noexec = noexec or (raw.startswith("-") and "n" in raw[1:])
            if "s" in raw[1:] and not command_mode:
                index += 1
                stdin_program(w, base, "shell")
                return
            index += 1
            continue
        break
    operands = args[index:]
    # Still analysed for what it names (isolation), but none of its commands ran.
    w.conditional += noexec
    _shell_operands(w, base, operands, texts[index:], command_mode, noexec)
    w.conditional -= noexec


def _shell_operands(
    w: Walker,
    base: str,
    operands: list[str | None],
    texts: list[str],
    command_mode: bool,
    noexec: bool,
) -> None:
    if command_mode:
        if not operands:
            w.opaque(f"{base} -c without text")
            return
        w.role("shell", operands[0], texts[0], f"{base} -c")
        return
    if not operands:
        stdin_program(w, base, "shell")
        return
    script = operands[0]
    if script is None:
        w.opaque(f"{base}: computed script {texts[0]}")
        return
    if noexec:
        w.add("read", script, f"{base} -n")
        return
    w.add("exec", script, base)
    w.result.runs.append(ScriptRun(w.resolve(script), "shell", base))
    w.guess_paths(operands[1:], base)


@handles("python", "python3")
def python_command(w: Walker, base: str, args: list[str | None], texts: list[str]) -> None:
    if args[:1] and args[0] in _INFO_FLAGS:
        return
    index = 0
    while index < len(args):
        raw = args[index]
        if raw is None:
            w.opaque(f"{base}: computed argument {texts[index]}")
            return
        if raw == "-":
            stdin_program(w, base, "python")
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
                        w.role("python", value, str(value), f"{base} -c")
                        w.guess_paths(rest, base)
                    else:
                        python_module(w, base, value, rest, rest_texts)
                    return
                if letter in "XWQ":
                    index += 0 if letters[position + 1 :] else 1
                    break
            index += 1
            continue
        w.add("exec", raw, base)
        w.result.runs.append(ScriptRun(w.resolve(raw), "python", base))
        w.guess_paths(args[index + 1 :], base)
        return
    stdin_program(w, base, "python")


handles_pattern(r"python[0-9.]*", "python")


def python_module(
    w: Walker, base: str, module: str | None, args: list[str | None], texts: list[str]
) -> None:
    if module is None:
        w.opaque(f"{base} -m with a computed module")
    elif module in PYTHON_MODULES:
        w.modelled(f"{base} -m {module}", PYTHON_MODULES[module], args, texts)
    elif module in PYTHON_TREE_MODULES:
        pytest(w, "pytest", args, texts)
    elif module in ("pip",):
        w.opaque("pip installs or runs code outside the workspace")
    else:
        # `-m` looks in the working directory first: a skill's `python -m scripts.tool`
        # runs scripts/tool.py there. It may as well be an installed module, whose effect
        # is unknown, so the construct stays opaque (the trace can still vouch for it).
        if (
            re.fullmatch(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*", module)
            and module.split(".")[0] not in sys.stdlib_module_names
        ):
            w.add("exec", module.replace(".", "/") + ".py", f"{base} -m {module}")
        w.opaque(f"{base} -m {module}: module not modelled")
        w.guess_paths(args, f"{base} -m {module}")


@handles("pytest")
def pytest(w: Walker, name: str, args: list[str | None], texts: list[str]) -> None:
    for raw in args:
        # `--basetemp=DIR`, `--rootdir=DIR`, `-o cache_dir=DIR`: a directory it writes or reads.
        _, has_value, value = (raw or "").partition("=")
        if has_value and looks_like_path(value):
            w.add("path", value, "pytest option", guess=True)
    operands = [
        (a, t) for a, t in zip(args, texts, strict=True) if a is None or not a.startswith("-")
    ]
    for raw, text in operands or [(".", ".")]:
        w.path_arg("read", raw, text, "pytest")
        if raw is not None:
            w.result.runs.append(
                ScriptRun(w.resolve(raw.split("::")[0]), "python", "pytest", tree=True)
            )


@handles("node", "nodejs", "deno")
def node(w: Walker, name: str, args: list[str | None], texts: list[str]) -> None:
    interpreter(
        w,
        "node",
        args,
        texts,
        code_flags="ep",
        long_code={"--eval", "--print"},
        value_flags="r",
        long_values={"--require", "--import", "--loader", "--input-type"},
    )


@handles("perl", "ruby", "php")
def perl(w: Walker, name: str, args: list[str | None], texts: list[str]) -> None:
    interpreter(
        w,
        "perl",
        args,
        texts,
        code_flags="eE",
        long_code=set(),
        value_flags="IMmx",
        long_values=set(),
    )


def interpreter(
    w: Walker,
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
            w.opaque(f"{base}: computed argument {texts[index]}")
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
                w.opaque(f"{base} {raw} runs inline code whose paths cannot be known")
            for rest in args[index + 2 :]:
                if rest is not None and looks_like_path(rest):
                    w.add("read", rest, base)
            return
        if raw in long_values or (raw[:2] in {f"-{c}" for c in value_flags} and len(raw) == 2):
            index += 2
            continue
        if raw.startswith("-"):
            index += 1
            continue
        w.add("exec", raw, base)
        w.result.runs.append(ScriptRun(w.resolve(raw), "unknown", base))
        w.guess_paths(args[index + 1 :], base)
        return
    stdin_program(w, base, "unknown")


def stdin_program(w: Walker, base: str, language: ProgramLanguage) -> None:
    """A program read from stdin: analysed when the stdin text is known."""
    if w.stdin_text is not None:
        if language == "shell":
            w.nested(w.stdin_text, base)
        elif language == "python":
            w.python(w.stdin_text, base)
        else:
            w.opaque(f"{base} runs code from stdin whose paths cannot be known")
    elif w.stdin_file is not None:
        # `cat s.sh | bash`, `bash < s.sh`: the file is the program.
        w.result.runs.append(ScriptRun(w.stdin_file, language, f"{base} < file"))
    else:
        w.opaque(f"{base} runs code from stdin that is not shown")


@handles("source", ".")
def source(w: Walker, name: str, args: list[str | None], texts: list[str]) -> None:
    if args and args[0] is not None:
        w.add("exec", args[0], name)
        w.result.runs.append(ScriptRun(w.resolve(args[0]), "shell", name))
    else:
        w.opaque(f"{name} of a computed path")


@handles("script", model=SCRIPT)
def script(w: Walker, name: str, args: list[str | None], texts: list[str]) -> None:
    options, operands = split_options(SCRIPT, args, texts)
    for option, value in options:
        if option in ("-c", "--command"):
            w.role("shell", value, str(value), "script -c")
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
            w.path_arg("write", value, str(value), f"script {option}")
    for raw, text in operands or [("typescript", "typescript")]:
        w.path_arg("write", raw, text, "script")


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
