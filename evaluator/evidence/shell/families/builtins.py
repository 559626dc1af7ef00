"""Shell builtins and commands that touch no path: cd and the directory stack, variables
(`export`, `read`, `printf -v`), `eval`, `alias`, `trap`, `test`, and plain text commands."""

from __future__ import annotations

from evaluator.evidence.shell.model import TEXT, model, split_options
from evaluator.evidence.shell.registry import handles, table
from evaluator.evidence.shell.results import HOME_MARK
from evaluator.evidence.shell.text import printf_text
from evaluator.evidence.shell.walker import FILE_TESTS, UNSAFE_VARIABLES, Walker

table(
    {
        "echo true false : exit return sleep wait pwd basename dirname whoami id uname seq expr"
        " let shift local declare typeset unset shopt ulimit umask yes nproc tty printenv locale"
        " tput clear hash getconf arch logname groups users who uptime free ps kill jobs bg fg"
        " disown getopts cal factor numfmt tr hostname break continue set": TEXT,
        "date": model(
            "text",
            short="drf",
            long="--date --reference --file",
            roles={"-r": "metadata", "--reference": "metadata", "-f": "read", "--file": "read"},
        ),
        "which": TEXT,
        "type": TEXT,
    }
)

READ = model("text", short="adinNptu")


@handles("cd", "chdir")
def cd(w: Walker, name: str, args: list[str | None], texts: list[str]) -> None:
    operands = [a for a in args if a is None or not a.startswith("-") or a == "-"]
    target = operands[0] if operands else "~"
    if target is None:
        w.opaque("cd to a computed directory")
        return
    if target == "-":
        if w.oldpwd is None:
            w.opaque("cd - to an unknown directory")
            return
        target = w.oldpwd
    if "CDPATH" in w.vars and not target.startswith(("/", ".", "~")):
        w.opaque("cd with CDPATH set")
        return
    w.add("cwd", target, "cd")
    resolved = w.resolve(target)
    if resolved.startswith(HOME_MARK):
        w.opaque("cd into the home directory, whose path is not known")
        return
    w.oldpwd, w.cwd = w.cwd, resolved


@handles("pushd")
def pushd(w: Walker, name: str, args: list[str | None], texts: list[str]) -> None:
    before = w.cwd
    cd(w, "cd", args, texts)
    w.dirs.append(before)


@handles("popd")
def popd(w: Walker, name: str, args: list[str | None], texts: list[str]) -> None:
    if not w.dirs:
        w.opaque("popd with an unknown directory stack")
        return
    w.cwd = w.dirs.pop()
    w.add("cwd", w.cwd, "popd")


@handles("export")
def export(w: Walker, name: str, args: list[str | None], texts: list[str]) -> None:
    for raw, text in zip(args, texts, strict=True):
        name = (raw or text).split("=", 1)[0]
        if name in UNSAFE_VARIABLES:
            w.opaque(f"export {name}")
        elif raw is not None and "=" in raw:
            key, value = raw.split("=", 1)
            w.vars[key] = value
            if key == "HOME":
                w.home = value
        elif raw is None and "=" in text:
            w.vars[name] = None  # set to something computed


@handles("read", model=READ)
def read(w: Walker, name: str, args: list[str | None], texts: list[str]) -> None:
    """`read NAME...` sets its variables to what it reads: computed (`REPLY` by default)."""
    options, operands = split_options(READ, args, texts)
    names = [raw for raw, _ in operands if raw is not None]
    names += [value for option, value in options if option == "-a" and value is not None]
    for name in names or ["REPLY"]:
        w.vars[name] = None


@handles("printf", model=TEXT)
def printf(w: Walker, name: str, args: list[str | None], texts: list[str]) -> None:
    """`printf -v NAME ...` sets a variable (known when every argument is literal)."""
    if len(args) >= 2 and args[0] == "-v" and args[1] is not None:
        w.vars[args[1]] = printf_text(args[2:])


@handles("eval")
def eval(w: Walker, name: str, args: list[str | None], texts: list[str]) -> None:
    if args and all(a is not None for a in args):
        w.nested(" ".join(a for a in args if a is not None), "eval")
    else:
        w.opaque("eval runs computed text")


@handles("alias")
def alias(w: Walker, name: str, args: list[str | None], texts: list[str]) -> None:
    if args:
        w.opaque("alias defines a command whose effect is not modelled")


@handles("trap")
def trap(w: Walker, name: str, args: list[str | None], texts: list[str]) -> None:
    if args and args[0] not in ("-l", "-p") and args[0] != "-":
        # Only an EXIT trap surely runs; one for a signal (or ERR) runs if it comes.
        signals = [a.upper() if a is not None else "" for a in args[1:]]
        on_exit = bool(signals) and all(s in ("EXIT", "SIGEXIT", "0") for s in signals)
        saved_tail, w.tail = w.tail, False
        w.conditional += not on_exit
        w.role("shell", args[0], texts[0], "trap")
        w.conditional -= not on_exit
        w.tail = saved_tail


@handles("test")
def test(w: Walker, name: str, args: list[str | None], texts: list[str]) -> None:
    for index, raw in enumerate(args):
        if raw in FILE_TESTS and index + 1 < len(args):
            w.path_arg("metadata", args[index + 1], texts[index + 1], "test")
        elif raw in ("-nt", "-ot", "-ef") and 0 < index < len(args) - 1:
            w.path_arg("metadata", args[index - 1], texts[index - 1], "test")
            w.path_arg("metadata", args[index + 1], texts[index + 1], "test")


@handles("[", "[[")
def bracket_test(w: Walker, name: str, args: list[str | None], texts: list[str]) -> None:
    test(w, name, args[:-1] if args and args[-1] in ("]", "]]") else args, texts)
