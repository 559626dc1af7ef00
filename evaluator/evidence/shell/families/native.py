"""Native build tools: the C and C++ compiler drivers (`gcc`, `cc`, `clang`, ...) and the
binutils that read a binary (`nm`, `objdump`, `readelf`, `size`).

A compiler reads its sources and the folders it is told to search, and writes its output; what
it runs itself (cc1, as, ld from its own installation) is the tool's housekeeping, like an
interpreter's standard library. Whatever lets the command line name a program to run, options
read from a file, or a path the driver passes on unseen (`-B`, `-wrapper`, `-fplugin=`,
`-specs=`, `-Wl,...`, `-Xlinker`, `@file`) is opaque, and so is any option not listed here. The
program it builds is code the session made: running it later is not understood
(`ContentWrite` with no content)."""

from __future__ import annotations

import posixpath

from evaluator.evidence.shell.model import Role, model, split_options, words
from evaluator.evidence.shell.registry import handles, handles_pattern
from evaluator.evidence.shell.results import ContentWrite
from evaluator.evidence.shell.walker import Walker

COMPILERS = ("gcc", "cc", "c++", "g++", "clang", "clang++", "c89", "c99")
# Versioned and cross drivers: gcc-12, clang-17, x86_64-linux-gnu-gcc, aarch64-linux-gnu-g++-13.
handles_pattern(r"([a-z0-9_]+-)*(gcc|g\+\+|clang|clang\+\+)(-[0-9.]+)?", "gcc")

# Options whose value is the next word, and what the value is.
SEPARATE: dict[str, Role] = {
    "-o": "write",
    "-I": "read",
    "-L": "read",
    "-isystem": "read",
    "-iquote": "read",
    "-idirafter": "read",
    "-isysroot": "read",
    "--sysroot": "read",
    "-include": "read",
    "-imacros": "read",
    "-include-pch": "read",
    "-T": "read",
    "-MF": "write",
    "-aux-info": "write",
    "-MT": "text",
    "-MQ": "text",
    "-x": "text",
    "-D": "text",
    "-U": "text",
    "-l": "text",
    "-u": "text",
    "-z": "text",
    "-e": "text",
    "--param": "text",
    "-target": "text",
    "--target": "text",
    "-arch": "text",
}
# Those that also take their value in the same word (`-Iinclude`, `-oapp`, `-DNDEBUG`, `-lm`),
# longest first so `-MF` is not read as `-M` with a value.
ATTACHED = ("-MF", "-MT", "-MQ", "-I", "-L", "-D", "-U", "-l", "-o", "-x", "-T")
# Options that take no value and name no path.
FLAGS = frozenset(
    words(
        "-c -S -E -v -w -s -g -p -pg -pipe -pthread -shared -static -static-pie -static-libgcc"
        " -static-libstdc++ -rdynamic -pie -no-pie -nostdlib -nostdinc -nostdinc++ -nostartfiles"
        " -nodefaultlibs -undef -ansi -P -C -CC -H -M -MM -MD -MMD -MP -MG -trigraphs -r -Q"
        " -traditional-cpp -pedantic -pedantic-errors -time --version --help -dumpversion"
        " -dumpmachine -dumpfullversion -fsyntax-only"
    )
)
# Prefixes of option families that take no path: optimisation, debug level, language standard,
# machine, warnings (but `-Wl,` and its kin, below), preprocessor dumps, the driver's queries.
FLAG_PREFIXES = ("-O", "-g", "-std=", "--std=", "-m", "-W", "-d", "-print-")
# `-f...=VALUE` options whose value names no file; any other `-f` option with a value is opaque.
F_TEXT_VALUES = frozenset(
    words(
        "sanitize no-sanitize sanitize-recover no-sanitize-recover visibility diagnostics-color"
        " message-length max-errors template-depth constexpr-depth abi-version fp-contract"
        " cf-protection lto exec-charset input-charset wide-exec-charset diagnostics-format"
        " tabstop trivial-auto-var-init strict-flex-arrays zero-call-used-regs openmp-version"
        " stack-protector stack-clash-protection"
    )
)
# Options that make the driver run a program, read options from a file, or pass words on to
# another tool (the linker, the assembler) whose paths are not modelled.
RUNS_OR_PASSES = (
    "-B",
    "-wrapper",
    "-specs",
    "--specs",
    "-fplugin",
    "-save-temps",
    "-mllvm",
    "-dumpdir",
    "-dumpbase",
)
PASS_ON = ("-Xlinker", "-Xassembler", "-Xpreprocessor", "-Xclang")


@handles(*COMPILERS)
def compiler(w: Walker, name: str, args: list[str | None], texts: list[str]) -> None:
    inputs: list[str] = []
    output: str | None = None
    stages: set[str] = set()
    index = 0
    while index < len(args):
        raw, text = args[index], texts[index] if index < len(texts) else str(args[index])
        index += 1
        if raw is None:
            w.opaque(f"{name}: computed argument {text}")
            continue
        if raw.startswith("@"):
            w.path_arg("read", raw[1:], text[1:], f"{name} @file")
            w.opaque(f"{name} reads more options from {raw[1:]}")
            continue
        if raw == "-" or not raw.startswith("-"):
            if raw != "-":
                w.add("read", raw, name)
            inputs.append(raw)  # stdin too: it is built into the same default output
            continue
        if raw in PASS_ON or raw.startswith(("-Wl,", "-Wa,", "-Wp,")):
            index += 1 if raw in PASS_ON else 0
            w.opaque(f"{name} {raw} passes words to another tool")
            continue
        if raw.startswith(RUNS_OR_PASSES):
            w.opaque(f"{name} {raw} runs a program or reads options the command does not show")
            continue
        if raw in SEPARATE:
            value = args[index] if index < len(args) else None
            value_text = texts[index] if index < len(texts) else ""
            index += 1
            role = SEPARATE[raw]
            w.role(role, value, value_text, f"{name} {raw}")
            if raw == "-o":
                output = value
            continue
        if raw in FLAGS:
            if raw in ("-c", "-S", "-E", "-M", "-MM", "-MD", "-MMD", "-fsyntax-only"):
                stages.add(raw)
            continue
        attached = next((o for o in ATTACHED if raw.startswith(o) and len(raw) > len(o)), None)
        if attached is not None:
            value = raw[len(attached) :]
            w.role(SEPARATE[attached], value, value, f"{name} {attached}")
            if attached == "-o":
                output = value
            continue
        if raw.startswith("-f"):
            option, has_value, _ = raw[2:].partition("=")
            if has_value and option not in F_TEXT_VALUES:
                w.opaque(f"{name} {raw}: an option value that may name a file")
            continue
        if raw.startswith(FLAG_PREFIXES):
            continue
        w.opaque(f"{name} option {raw} is not modelled")
    _outputs(w, name, inputs, output, stages)


def _outputs(w: Walker, name: str, inputs: list[str], output: str | None, stages: set[str]) -> None:
    """What the driver writes: `-o`'s file, else `a.out` (linking), `<source>.o` (`-c`) or
    `<source>.s` (`-S`) in the working directory; `-E`, `-M`, `-MM` print to stdout."""
    if stages & {"-MD", "-MMD"}:
        # the dependency file beside the output, or in the working directory
        base = output if output not in (None, "-") else (inputs[0] if inputs else None)
        if base is not None:
            stem = posixpath.splitext(base if output else posixpath.basename(base))[0]
            w.add("write", stem + ".d", name)
    if output is not None:
        if output != "-":
            w.result.contents.append(ContentWrite(w.resolve(output), None))
        return
    if not inputs or stages & {"-E", "-M", "-MM", "-fsyntax-only"}:
        return
    if "-c" in stages or "-S" in stages:
        suffix = ".s" if "-S" in stages else ".o"
        names = [posixpath.splitext(posixpath.basename(i))[0] + suffix for i in inputs]
    else:
        names = ["a.out"]
    for made in names:
        w.add("write", made, name)
        w.result.contents.append(ContentWrite(w.resolve(made), None))


# --- the binutils that read a binary ---------------------------------------------------------

NM = model(short="ft", long="--format --radix --target --ifunc-chars --unicode", default="a.out")
SIZE = model(long="--format --radix --target", default="a.out")
OBJDUMP = model(
    short="bjmMI",
    long=(
        "--target --architecture --section --disassembler-options --include --start-address"
        " --stop-address --adjust-vma --insn-width --dwarf-depth --dwarf-start"
    ),
    roles={"-I": "read", "--include": "read"},
    default="a.out",
)
READELF = model(
    short="xpR",
    long="--hex-dump --string-dump --relocated-dump --dwarf-depth --dwarf-start --sym-base",
)
# What makes these read files the command line does not name: a plugin, source files or debug
# files whose names are inside the binary.
_NAMED_INSIDE = {
    "nm": ("--plugin",),
    "size": (),
    "objdump": (
        "--plugin",
        "-S",
        "--source",
        "--source-comment",
        "-l",
        "--line-numbers",
        "--prefix",
        "--prefix-strip",
        "-W",
        "--dwarf",
        "-g",
        "--debugging",
        "-e",
        "--debugging-tags",
    ),
    "readelf": ("-w", "--debug-dump", "--dwarf"),
}


@handles("nm", model=NM)
@handles("size", model=SIZE)
@handles("objdump", model=OBJDUMP)
@handles("readelf", model=READELF)
def binary_reader(w: Walker, name: str, args: list[str | None], texts: list[str]) -> None:
    for raw in args:
        if raw is not None and raw.startswith("@"):
            w.opaque(f"{name} reads more options from {raw[1:]}")
            return
    entry = {"nm": NM, "size": SIZE, "objdump": OBJDUMP, "readelf": READELF}[name]
    options, _ = split_options(entry, args, texts)
    for option, _value in options:
        bare = option.split("=", 1)[0]
        if bare in _NAMED_INSIDE[name] or (
            not bare.startswith("--") and any(f"-{c}" in _NAMED_INSIDE[name] for c in bare[1:])
        ):
            w.opaque(f"{name} {option} reads files whose names are inside the binary")
            return
    w.modelled(name, entry, args, texts)
