"""Archives and compressors: tar, zip, unzip, gzip, gunzip, bzip2, xz."""

from __future__ import annotations

import re

from evaluator.evidence.shell.model import WRITE, model, split_options
from evaluator.evidence.shell.registry import handles, table
from evaluator.evidence.shell.results import ContentWrite
from evaluator.evidence.shell.walker import Walker

table(
    {
        "gzip": model("write", short="S", long="--suffix"),
        "gunzip": model("write", short="S", long="--suffix"),
        "bzip2": WRITE,
        "xz": WRITE,
        "zip": model("read", first="write", short="xib", roles={"-b": "write"}),
    }
)

TAR = model(
    short="fCTXIFbgKLNV",
    long="--file --directory --files-from --exclude-from --exclude --transform --to-command"
    " --use-compress-program --owner --group --mode --mtime --strip-components"
    " --checkpoint-action --info-script --new-volume-script --rsh-command --rmt-command --format"
    " --label",
)
UNZIP = model(short="dxP")


@handles("tar", model=TAR)
def tar(w: Walker, name: str, args: list[str | None], texts: list[str]) -> None:
    words = list(args)
    if (
        words
        and words[0] is not None
        and not words[0].startswith("-")
        and re.fullmatch(r"[A-Za-z]+", words[0])
    ):
        words[0] = "-" + words[0]  # old-style `tar xzf a.tar`
    options, operands = split_options(TAR, words, texts)
    names = {o for o, _ in options}
    for option in names & {
        "--to-command",
        "--use-compress-program",
        "-I",
        "--info-script",
        "-F",
        "--new-volume-script",
        "--checkpoint-action",
        "--rsh-command",
        "--rmt-command",
    }:
        w.opaque(f"tar {option} runs a command")
    directory = w.cwd
    for option, value in options:
        if option in ("-C", "--directory"):
            if value is None:
                w.opaque("tar -C with a computed directory")
                return
            w.add("cwd", value, f"tar {option}", directory)
            directory = w.resolve(value, directory)
    create = bool(names & {"-c", "--create", "-r", "--append", "-u", "--update"})
    extract = bool(names & {"-x", "--extract", "--get"})
    for option, value in options:
        if option in ("-f", "--file"):
            w.path_arg("write" if create else "read", value, str(value), f"tar {option}")
        elif option in ("-T", "--files-from", "-X", "--exclude-from"):
            w.path_arg("read", value, str(value), f"tar {option}")
    for raw, text in operands:
        w.path_arg(
            "read" if create else "write" if extract else "metadata",
            raw,
            text,
            "tar",
            directory,
        )
    if extract:
        w.add("write", directory, "tar extract into")
        w.result.contents.append(ContentWrite(directory, None))


@handles("unzip", model=UNZIP)
def unzip(w: Walker, name: str, args: list[str | None], texts: list[str]) -> None:
    options, operands = split_options(UNZIP, args, texts)
    directory = next((v for o, v in options if o == "-d"), ".")
    if operands:
        raw, text = operands[0]
        w.path_arg("read", raw, text, "unzip")
    listing = any(o in ("-l", "-v", "-t", "-Z") for o, _ in options)
    to_stdout = any(o in ("-p", "-c") for o, _ in options)
    if not listing and not to_stdout:
        w.path_arg("write", directory, str(directory), "unzip -d")
        if directory is not None:
            w.result.contents.append(ContentWrite(w.resolve(directory), None))
