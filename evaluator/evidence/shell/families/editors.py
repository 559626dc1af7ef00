"""Editors and program-text commands over files: sed, awk and its variants, patch."""

from __future__ import annotations

import re

from evaluator.evidence.shell.model import model, split_options
from evaluator.evidence.shell.registry import handles
from evaluator.evidence.shell.results import ContentWrite
from evaluator.evidence.shell.walker import Walker

SED = model(short="efl", long="--expression --file --line-length")
AWK = model(short="FvfiElW", long="--field-separator --assign --file --include --load --exec")
PATCH = model(
    "write",
    short="pdioDrBzFVY",
    long="--strip --directory --input --output --reject-file --backup --suffix --fuzz",
)


@handles("sed", model=SED)
def sed(w: Walker, name: str, args: list[str | None], texts: list[str]) -> None:
    options, operands = split_options(SED, args, texts)
    names = {o for o, _ in options}
    in_place = any(o == "-i" or o.startswith("--in-place") for o in names)
    scripts = [v for o, v in options if o in ("-e", "--expression")]
    for option, value in options:
        if option in ("-f", "--file"):
            w.path_arg("read", value, str(value), "sed -f")
            w.opaque("sed script read from a file")
    if not scripts and not names & {"-f", "--file"} and operands:
        scripts.append(operands.pop(0)[0])
    for script in scripts:
        w.role("sed", script, str(script), "sed")
    for raw, text in operands:
        w.path_arg("write" if in_place else "read", raw, text, "sed")
        if in_place and raw is not None:
            w.result.contents.append(ContentWrite(w.resolve(raw), None))


@handles("awk", "gawk", "mawk", "nawk", model=AWK)
def awk(w: Walker, name: str, args: list[str | None], texts: list[str]) -> None:
    options, operands = split_options(AWK, args, texts)
    names = {o for o, _ in options}
    for option, value in options:
        if option in ("-f", "--file", "-i", "--include", "-l", "--load", "-E", "--exec"):
            w.path_arg("read", value, str(value), f"awk {option}")
            w.opaque("awk program read from a file")
    if not names & {"-f", "--file", "-E", "--exec"} and operands:
        raw, text = operands.pop(0)
        w.role("awk", raw, text, "awk")
    for raw, text in operands:
        if raw is not None and re.match(r"^[A-Za-z_]\w*=", raw):
            continue  # a variable assignment operand
        w.path_arg("read", raw, text, "awk")


@handles("patch", model=PATCH)
def patch(w: Walker, name: str, args: list[str | None], texts: list[str]) -> None:
    options, operands = split_options(PATCH, args, texts)
    directory = w.cwd
    for option, value in options:
        if option in ("-d", "--directory"):
            w.path_arg("cwd", value, str(value), "patch -d")
            if value is not None:
                directory = w.resolve(value)
        elif option in ("-i", "--input"):
            w.path_arg("read", value, str(value), "patch -i")
        elif option in ("-o", "--output", "-r", "--reject-file"):
            w.path_arg("write", value, str(value), f"patch {option}")
    for raw, text in operands[:1]:
        w.path_arg("write", raw, text, "patch", directory)
    for raw, text in operands[1:2]:
        w.path_arg("read", raw, text, "patch", directory)
    if not operands:
        # The files come from the patch's own headers, which are not shown here.
        w.opaque("patch writes the files its input names")
