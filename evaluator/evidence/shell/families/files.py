"""Commands that create, change or remove files in place: touch, mkdir, rm, chmod, tee, mktemp,
ln, dd."""

from __future__ import annotations

import posixpath

from evaluator.evidence.shell.model import WRITE, model, split_options
from evaluator.evidence.shell.registry import handles, table
from evaluator.evidence.shell.results import ContentWrite
from evaluator.evidence.shell.walker import Walker

table(
    {
        # --- write ---------------------------------------------------------------------------
        "touch": model("write", short="rdt", long="--reference --date", roles={"-r": "metadata"}),
        "mkdir": model("write", short="m", long="--mode --context"),
        "rm": WRITE,
        "rmdir": WRITE,
        "unlink": WRITE,
        "shred": model("write", short="nsu", long="--iterations --size --random-source"),
        "truncate": model("write", short="sr", long="--size --reference", roles={"-r": "metadata"}),
        "mkfifo": model("write", short="m", long="--mode"),
        # mknod NAME TYPE [MAJOR MINOR]: the name is made, the rest is text.
        "mknod": model("text", first="write", short="m", long="--mode --context"),
        "chmod": model(
            "write", first="text", first_unless="--reference", roles={"--reference": "metadata"}
        ),
        "chown": model(
            "write", first="text", first_unless="--reference", roles={"--reference": "metadata"}
        ),
        "chgrp": model(
            "write", first="text", first_unless="--reference", roles={"--reference": "metadata"}
        ),
    }
)

TEE = model("write")
MKTEMP = model("write", short="p", long="--tmpdir --suffix")
LN = model("write", short="tS", long="--target-directory --suffix")


@handles("tee", model=TEE)
def tee(w: Walker, name: str, args: list[str | None], texts: list[str]) -> None:
    options, operands = split_options(TEE, args, texts)
    append = any(o in ("-a", "--append") for o, _ in options)
    for raw, text in operands:
        w.path_arg("write", raw, text, "tee")
        if raw is not None and not raw.startswith("/dev/"):
            w.result.contents.append(ContentWrite(w.resolve(raw), w.stdin_text, append))


@handles("mktemp", model=MKTEMP)
def mktemp(w: Walker, name: str, args: list[str | None], texts: list[str]) -> None:
    options, operands = split_options(MKTEMP, args, texts)
    directory: str | None = None
    use_tmpdir = not operands
    for option, value in options:
        if option in ("-p", "--tmpdir"):
            directory = value if value else None
            use_tmpdir = True
        elif option == "-t":
            use_tmpdir = True
    if use_tmpdir and directory is None:
        env = w.env
        directory = env.get("TMPDIR") if "TMPDIR" in env else w.vars.get("TMPDIR", "/tmp")
    if directory is None and use_tmpdir:
        w.opaque("mktemp in a computed TMPDIR")
        return
    template = operands[0][0] if operands else "tmp.XXXXXXXXXX"
    if template is None:
        w.opaque("mktemp with a computed template")
        return
    path = posixpath.join(directory, template) if use_tmpdir and directory else template
    w.add("write", path.replace("X", "?"), "mktemp")


@handles("ln", model=LN)
def ln(w: Walker, name: str, args: list[str | None], texts: list[str]) -> None:
    options, operands = split_options(LN, args, texts)
    names = {o for o, _ in options}
    symbolic = bool(names & {"-s", "--symbolic"})
    directory = next((v for o, v in options if o in ("-t", "--target-directory")), None)
    if any(raw is None for raw, _ in operands):
        w.opaque("ln with a computed path")
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
        link_path = w.resolve(link)
        w.add("write", link, "ln")
        if symbolic:
            # A symbolic link's target is resolved from the link's directory when used.
            resolved = w.resolve(target, posixpath.dirname(link_path))
            w.result.symlinks.append((link_path, resolved))
            w.add("metadata", target, "ln -s target", posixpath.dirname(link_path))
        else:
            w.add("write", target, "ln (hard link)")


@handles("dd")
def dd(w: Walker, name: str, args: list[str | None], texts: list[str]) -> None:
    for raw, text in zip(args, texts, strict=True):
        if raw is None:
            w.opaque(f"dd: computed operand {text}")
        elif raw.startswith("if="):
            w.add("read", raw[3:], "dd")
        elif raw.startswith("of="):
            w.add("write", raw[3:], "dd")
            w.result.contents.append(ContentWrite(w.resolve(raw[3:]), None))
