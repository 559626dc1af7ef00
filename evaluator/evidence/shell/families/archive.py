"""Archives and compressors: tar, zip, unzip, and gzip, bzip2, xz, zstd, lz4 with their
decompressing names."""

from __future__ import annotations

import re
from dataclasses import dataclass

from evaluator.evidence.shell.model import CommandModel, model, split_options
from evaluator.evidence.shell.registry import handles, table
from evaluator.evidence.shell.results import ContentWrite
from evaluator.evidence.shell.walker import Walker

table(
    {
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


@dataclass(frozen=True)
class Compressor:
    model: CommandModel
    suffixes: tuple[str, ...]  # what it appends, then what else it strips when decompressing
    decompresses: bool = False  # by its name (`gunzip`)
    keeps: bool = False  # the source stays unless `--rm` (zstd, lz4)
    output_operand: bool = False  # a second operand names the output (lz4 IN OUT)


GZIP = model("read", short="S", long="--suffix")
BZIP2 = model("read")
XZ = model(
    "read",
    short="SFCTM",
    long="--suffix --format --check --threads --memlimit --memlimit-compress"
    " --memlimit-decompress --block-size --block-list --files --files0 --filters",
    roles={"--files": "read", "--files0": "read"},
)
ZSTD = model(
    "read",
    short="oDTB",
    long="--format --memory --patch-from --filelist --output-dir-flat --output-dir-mirror --dict",
    roles={
        "-o": "write",
        "-D": "read",
        "--dict": "read",
        "--patch-from": "read",
        "--filelist": "read",
        "--output-dir-flat": "write",
        "--output-dir-mirror": "write",
    },
)
LZ4 = model("read", short="B")
GZ = (".gz", ".tgz", ".z", ".Z", "-gz", "-z", "_z", ".taz")
COMPRESSORS: dict[str, Compressor] = {
    "gzip": Compressor(GZIP, GZ),
    "gunzip": Compressor(GZIP, GZ, decompresses=True),
    "bzip2": Compressor(BZIP2, (".bz2", ".bz", ".tbz2", ".tbz")),
    "bunzip2": Compressor(BZIP2, (".bz2", ".bz", ".tbz2", ".tbz"), decompresses=True),
    "xz": Compressor(XZ, (".xz", ".txz", ".lzma", ".tlz")),
    "unxz": Compressor(XZ, (".xz", ".txz", ".lzma", ".tlz"), decompresses=True),
    "zstd": Compressor(ZSTD, (".zst", ".tzst"), keeps=True),
    "unzstd": Compressor(ZSTD, (".zst", ".tzst"), decompresses=True, keeps=True),
    "lz4": Compressor(LZ4, (".lz4",), keeps=True, output_operand=True),
    "unlz4": Compressor(LZ4, (".lz4",), decompresses=True, keeps=True, output_operand=True),
}
TO_STDOUT = {"-c", "--stdout", "--to-stdout"}
DECOMPRESS = {"-d", "--decompress", "--uncompress"}
INSPECT = {"-t", "--test", "-l", "--list"}
KEEP = {"-k", "--keep"}


def _output_name(source: str, tool: Compressor, decompress: bool, suffix: str | None) -> str | None:
    """The file the tool writes for `source`: the suffix added, or stripped (`.tgz` → `.tar`);
    None when a decompressor would refuse the name (no suffix it knows)."""
    if not decompress:
        return source + (suffix or tool.suffixes[0])
    for known in (suffix, *tool.suffixes) if suffix else tool.suffixes:
        if known and len(source) > len(known) and source.endswith(known):
            stem = source[: -len(known)]
            return stem + ".tar" if known.startswith(".t") else stem
    return None


def compressor(w: Walker, name: str, args: list[str | None], texts: list[str]) -> None:
    """Every source is read: to stdout with `-c` (transformed, yet it hands the file to the
    agent), or into a new file, a copy (`gzip -k X`, then `zcat X.gz`, is `cat X`). Without
    `-c` the tool writes the output name and, unless kept, removes the source (`gzip X`
    replaces X by X.gz). lz4 with no output name writes to stdout when stdout is not a
    terminal, as in an agent's shell: its source is read either way."""
    tool = COMPRESSORS[name]
    options, operands = split_options(tool.model, args, texts)
    names = {o for o, _ in options}
    for option, value in options:
        role = tool.model.roles.get(option)
        if role is not None:
            w.role(role, value, str(value), f"{name} {option}")
    inspect = bool(names & INSPECT)
    to_stdout = bool(names & TO_STDOUT)
    decompress = tool.decompresses or bool(names & DECOMPRESS)
    keep = bool(names & KEEP) or (tool.keeps and "--rm" not in names)
    suffix = next((v for o, v in options if o in ("-S", "--suffix")), None)
    named_output: tuple[str | None, str] | None = None
    if tool.output_operand and len(operands) == 2 and "-m" not in names and not to_stdout:
        named_output = operands.pop()
    writes = not inspect and not to_stdout and "-o" not in names
    for raw, text in operands:
        w.path_arg("metadata" if inspect else "read", raw, text, name)
        if not writes or raw is None or raw == "-":
            continue
        if names & {"-r", "--recursive"}:
            # The files under the folder are replaced: the folder's write covers them.
            w.path_arg("write", raw, text, name)
            w.result.contents.append(ContentWrite(w.resolve(raw), None))
            continue
        output = named_output[0] if named_output else _output_name(raw, tool, decompress, suffix)
        if output is None:
            continue  # a name the decompressor refuses: nothing is written
        if not keep:
            w.path_arg("write", raw, text, name)
            w.result.contents.append(ContentWrite(w.resolve(raw), None, removed=True))
        w.path_arg("write", output, output, name)
        w.result.contents.append(ContentWrite(w.resolve(output), None))


for _name, _tool in COMPRESSORS.items():
    handles(_name, model=_tool.model)(compressor)
