"""Commands that list directories or walk trees: ls, tree, find, fd."""

from __future__ import annotations

import posixpath

from evaluator.evidence.shell.model import model, split_options, words
from evaluator.evidence.shell.registry import handles, table
from evaluator.evidence.shell.walker import Walker

table(
    {
        "ls dir vdir": model(
            "list",
            short="wITF",
            long="--width --ignore --hide --tabsize --format --sort --time --time-style"
            " --color --indicator-style --quoting-style --block-size",
            default=".",
        ),
        "tree": model("list", short="LPIo", roles={"-o": "write"}, default="."),
    }
)

FD = model(
    "list",
    short="etdExXSoj",
    long="--extension --type --max-depth --exclude --exec --exec-batch --size --owner --threads",
)
_FIND_VALUE_OPTIONS = frozenset(
    words(
        "-name -iname -path -ipath -regex -iregex -type -xtype -maxdepth -mindepth -size -mtime -mmin"
        " -atime -amin -ctime -cmin -user -group -perm -printf -wholename -iwholename -lname"
        " -ilname -uid -gid -inum -links -used -context -regextype -files0-from"
    )
)


@handles("find")
def find(w: Walker, name: str, args: list[str | None], texts: list[str]) -> None:
    roots: list[str] = []
    index = 0
    while index < len(args) and args[index] in ("-H", "-L", "-P", "-O0", "-O1", "-O2", "-O3"):
        index += 1
    while index < len(args):
        raw = args[index]
        if raw is None:
            w.opaque(f"find: computed path {texts[index]}")
            return
        if raw.startswith(("-", "(", "!", ")")) or raw == ",":
            break
        roots.append(raw)
        index += 1
    roots = roots or ["."]
    for root in roots:
        w.add("list", root, "find")
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
                    w.opaque("find -exec runs a computed command")
                    break
                # Run once per match (or per batch): with no match, never.
                w.conditional += 1
                w.apply(words[0], words[1:], [w or "" for w in words[1:]])
                w.conditional -= 1
            index = end + 1
            continue
        if raw in ("-fprint", "-fprint0", "-fprintf", "-fls"):
            if index + 1 < len(args):
                w.path_arg("write", args[index + 1], texts[index + 1], f"find {raw}")
            index += 3 if raw == "-fprintf" else 2
            continue
        if raw in ("-newer", "-anewer", "-cnewer", "-samefile") or (raw or "").startswith("-newer"):
            if index + 1 < len(args):
                w.path_arg("metadata", args[index + 1], texts[index + 1], f"find {raw}")
            index += 2
            continue
        if raw == "-delete":
            for root in roots:
                w.add("write", root, "find -delete")
        if raw in _FIND_VALUE_OPTIONS:
            index += 2
            continue
        if raw is None:
            w.opaque("find: computed expression")
        index += 1


@handles("fd", model=FD)
def fd(w: Walker, name: str, args: list[str | None], texts: list[str]) -> None:
    options, operands = split_options(FD, args, texts)
    if any(o in ("-x", "--exec", "-X", "--exec-batch") for o, _ in options):
        w.opaque("fd --exec runs commands on what it finds")
    for raw, text in operands[1:] or [(".", ".")]:
        w.path_arg("list", raw, text, "fd")
