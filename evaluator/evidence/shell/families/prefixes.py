"""Commands that run another command given as their arguments (`timeout 5 cat x`, `env -C d
cmd`, `sudo cmd`), and xargs, whose commands come from its input."""

from __future__ import annotations

from evaluator.evidence.shell.model import leading_options, model
from evaluator.evidence.shell.registry import handles, model_of
from evaluator.evidence.shell.text import quote
from evaluator.evidence.shell.walker import UNSAFE_VARIABLES, Walker

PREFIXES = {
    "nohup": model("text"),
    "time": model("text", short="fo", roles={"-o": "write", "--output": "write"}),
    "timeout": model("text", short="sk", long="--signal --kill-after"),  # plus a duration operand
    "nice": model("text", short="n", long="--adjustment"),
    "stdbuf": model("text", short="ioe", long="--input --output --error"),
    "setsid": model("text"),
    "ionice": model("text", short="cnpt"),
    "command": model("text"),
    "builtin": model("text"),
    "exec": model("text", short="a"),
    "sudo": model("text", short="ugCDhpUrtT", roles={"-D": "dir"}),
    "doas": model("text", short="uC", roles={"-C": "read"}),
    "unbuffer": model("text"),
    "taskset": model("text"),  # plus a mask operand
}
# Prefixes that take one positional operand before the command.
PREFIX_LEADING_OPERANDS = {"timeout": 1, "taskset": 1}


def prefix(w: Walker, base: str, args: list[str | None], texts: list[str]) -> None:
    entry = model_of(base)
    assert entry is not None
    if base in ("command", "builtin") and args and args[0] in ("-v", "-V"):
        return
    options, rest = leading_options(entry, args, texts)
    for option, value in options:
        role = entry.roles.get(option, "text")
        if role == "dir" and value is not None:
            w.add("cwd", value, f"{base} {option}")
            saved = w.cwd
            w.cwd = w.resolve(value)
            w.run_rest(rest[PREFIX_LEADING_OPERANDS.get(base, 0) :], base)
            w.cwd = saved
            return
        w.role(role, value, str(value), f"{base} {option}")
    if base == "sudo" and any(o in ("-s", "-i") for o, _ in options):
        w.opaque("sudo -s/-i runs a shell")
        return
    w.run_rest(rest[PREFIX_LEADING_OPERANDS.get(base, 0) :], base)


for _name, _model in PREFIXES.items():
    handles(_name, model=_model)(prefix)


@handles("env")
def env(w: Walker, name: str, args: list[str | None], texts: list[str]) -> None:
    index = 0
    saved = w.cwd
    while index < len(args):
        raw = args[index]
        if raw is None:
            w.opaque("env with a computed argument")
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
                w.opaque("env --chdir to a computed directory")
                return
            w.add("cwd", value, "env --chdir")
            w.cwd = w.resolve(value)
        elif raw in ("-S", "--split-string") or raw.startswith(("--split-string=", "-S")):
            if raw in ("-S", "--split-string"):
                value = args[index + 1] if index + 1 < len(args) else None
                index += 2
            else:
                value = raw.split("=", 1)[1] if raw.startswith("--") else raw[2:]
                index += 1
            if value is None:
                w.opaque("env -S with computed text")
                return
            rest_words = list(args[index:])
            w.nested(
                value + "".join(" " + quote(word) for word in rest_words if word is not None),
                "env -S",
            )
            w.cwd = saved
            return
        elif raw.startswith("-"):
            index += 1
        elif "=" in raw:
            name = raw.split("=", 1)[0]
            if name in UNSAFE_VARIABLES:
                w.opaque(f"env sets {name}")
            w.note_startup_variable(name)
            index += 1
        else:
            break
    if index < len(args):
        w.apply(args[index] or "", args[index + 1 :], texts[index + 1 :])
    w.cwd = saved


@handles("xargs")
def xargs(w: Walker, name: str, args: list[str | None], texts: list[str]) -> None:
    w.opaque("xargs builds commands from its input")
