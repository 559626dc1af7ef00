"""What each command the evidence can contain does with its arguments, as data.

The shell analysis (`shell.py`) is closed-world: a command that has no entry here (and no
special handler there) makes the session `unverifiable`. Each entry says which options take a
value and what that value is (a path read, written, listed, a directory to work in, program
text, or plain text), and what the operands are. `read` means the content reaches the command's
stdout; `metadata` touches a path without showing its content. docs/evidence-access.md is the
human-readable form of this table; keep the two in step.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from evaluator.vocabulary import AccessKind

# An argument's role: an access kind, or what the analysis must do with a non-path argument.
# `text` is not a path; `dir` is the directory the command works in (operands resolve there);
# `shell`/`python`/`sed`/`awk` are program text in that language; `opaque` hides its effect.
Role = AccessKind | Literal["text", "dir", "shell", "python", "sed", "awk", "opaque"]
PATH_ROLES: frozenset[str] = frozenset({"read", "metadata", "list", "write", "exec", "cwd", "path"})


@dataclass(frozen=True)
class CommandModel:
    operands: Role = "read"
    first: Role | None = None  # the first operand's role (grep PATTERN, chmod MODE, sed SCRIPT)
    first_unless: frozenset[str] = frozenset()  # options that supply `first` instead (grep -e)
    last: Role | None = None  # the last operand's role (cp DEST) when there are two or more
    last_unless: frozenset[str] = frozenset()  # options that name the destination (cp -t)
    short_values: str = ""  # short options that take a value
    long_values: frozenset[str] = frozenset()  # long options that take a value
    roles: Mapping[str, Role] = field(default_factory=dict)  # value role; default `text`
    quiet: frozenset[str] = frozenset()  # flags after which operands are metadata (grep -l)
    default: str | None = None  # operand assumed when none is given (ls → ".")
    summarises: bool = False  # as a pipeline's last stage, shows no content of what it got


def words(text: str) -> tuple[str, ...]:
    """A list of names written as one space-separated string (tables stay readable)."""
    return tuple(text.split())


def _m(
    operands: Role = "read",
    *,
    first: Role | None = None,
    first_unless: str = "",
    last: Role | None = None,
    last_unless: str = "",
    short: str = "",
    long: str = "",
    roles: Mapping[str, Role] | None = None,
    quiet: str = "",
    default: str | None = None,
    summarises: bool = False,
) -> CommandModel:
    return CommandModel(
        operands=operands,
        first=first,
        first_unless=frozenset(first_unless.split()),
        last=last,
        last_unless=frozenset(last_unless.split()),
        short_values=short,
        long_values=frozenset(long.split()),
        roles=dict(roles or {}),
        quiet=frozenset(quiet.split()),
        default=default,
        summarises=summarises,
    )


_TEXT = _m("text")
_WRITE = _m("write")

COMMANDS: dict[str, CommandModel] = {
    # --- show file content -------------------------------------------------------------
    **dict.fromkeys(
        words(
            "cat tac nl less more bat batcat rev expand unexpand pr tsort shuf zcat bzcat xzcat"
            " zless zmore"
        ),
        _m(
            "read",
            short="bswvnlitdr",
            long="--number-format --number-width --number-separator --body-numbering"
            " --tabs --random-source --output",
            roles={"-o": "write", "--output": "write", "--random-source": "read"},
        ),
    ),
    "head": _m("read", short="nc", long="--lines --bytes"),
    "tail": _m("read", short="ncs", long="--lines --bytes --pid --sleep-interval"),
    "xxd": _m("read", short="clsgo", last="write"),
    "od": _m("read", short="AjNSstw", long="--address-radix --skip-bytes --read-bytes --format"),
    "hexdump": _m("read", short="enfsC", roles={"-f": "read"}),
    "strings": _m("read", short="ntTe", long="--bytes --radix --encoding"),
    "cut": _m("read", short="bcdf", long="--bytes --characters --delimiter --fields"),
    "fold": _m("read", short="w", long="--width"),
    "fmt": _m("read", short="wgp", long="--width --goal --prefix"),
    "iconv": _m("read", short="fto", long="--from-code --to-code --output", roles={"-o": "write"}),
    "base64": _m("read", short="w", long="--wrap"),
    "base32": _m("read", short="w", long="--wrap"),
    # util-linux column: -t, -d, -e, -x, -J, -L take no value (`column -t -s /` is a table
    # with `/` as separator, not a read of `/`).
    "column": _m(
        "read",
        short="csoNlRTEWHOnrip",
        long="--separator --output-separator --output-width --table-columns"
        " --table-columns-limit --table-right --table-truncate --table-noextreme --table-wrap"
        " --table-hide --table-order --table-name --tree --tree-id --tree-parent",
    ),
    "paste": _m("read", short="d", long="--delimiters"),
    "comm": _m("read", long="--output-delimiter"),
    "join": _m("read", short="aejot12", long=""),
    "diff": _m(
        "read",
        short="CUIxXSFDL",
        long="--from-file --to-file --exclude-from --label --line-format --ignore-matching-lines"
        " --exclude --starting-file --unified --context --color --palette",
        roles={"--from-file": "read", "--to-file": "read", "--exclude-from": "read", "-X": "read"},
        quiet="-q --brief",
    ),
    "cmp": _m("metadata", short="inb", summarises=True),
    "sort": _m(
        "read",
        short="ktoTSy",
        long="--key --field-separator --output --temporary-directory --buffer-size"
        " --files0-from --parallel --sort --compress-program --random-source",
        roles={
            "-o": "write",
            "--output": "write",
            "-T": "write",
            "--temporary-directory": "write",
            "--files0-from": "read",
            "--random-source": "read",
            "--compress-program": "opaque",
        },
    ),
    "uniq": _m("read", short="fsw", long="--skip-fields --skip-chars --check-chars", last="write"),
    "jq": _m(
        "read",
        first="text",
        first_unless="-f --from-file -n",
        long="--arg --argjson --slurpfile --rawfile --indent --args --jsonargs --from-file",
        short="f",
        roles={"-f": "read", "--from-file": "read", "--slurpfile": "read", "--rawfile": "read"},
    ),
    "yq": _m("read", first="text"),
    "look": _m("read", first="text", short="t"),
    # --- touch without showing content ---------------------------------------------------
    "wc": _m("metadata", summarises=True, long="--files0-from", roles={"--files0-from": "read"}),
    "stat": _m("metadata", short="c", long="--format --printf", summarises=True),
    "file": _m("metadata", short="mfFP", roles={"-m": "read", "-f": "read"}, summarises=True),
    **dict.fromkeys(
        words("md5sum sha1sum sha224sum sha256sum sha384sum sha512sum b2sum cksum sum shasum"),
        _m("metadata", short="la", long="--length --algorithm", summarises=True),
    ),
    "du": _m("metadata", short="dBtX", long="--max-depth --block-size --exclude", summarises=True),
    "df": _m("metadata", short="BtFx", long="--output --type --block-size", summarises=True),
    "realpath": _m("metadata", long="--relative-to --relative-base", summarises=True),
    "readlink": _m("metadata", summarises=True),
    "lsattr": _m("metadata", summarises=True),
    # --- list directories ----------------------------------------------------------------
    **dict.fromkeys(
        words("ls dir vdir"),
        _m(
            "list",
            short="wITF",
            long="--width --ignore --hide --tabsize --format --sort --time --time-style"
            " --color --indicator-style --quoting-style --block-size",
            default=".",
        ),
    ),
    "tree": _m("list", short="LPIo", roles={"-o": "write"}, default="."),
    # --- write ---------------------------------------------------------------------------
    "touch": _m("write", short="rdt", long="--reference --date", roles={"-r": "metadata"}),
    "mkdir": _m("write", short="m", long="--mode --context"),
    "rm": _WRITE,
    "rmdir": _WRITE,
    "unlink": _WRITE,
    "shred": _m("write", short="nsu", long="--iterations --size --random-source"),
    "truncate": _m("write", short="sr", long="--size --reference", roles={"-r": "metadata"}),
    "mkfifo": _m("write", short="m", long="--mode"),
    "tee": _m("write"),
    "chmod": _m(
        "write", first="text", first_unless="--reference", roles={"--reference": "metadata"}
    ),
    "chown": _m(
        "write", first="text", first_unless="--reference", roles={"--reference": "metadata"}
    ),
    "chgrp": _m(
        "write", first="text", first_unless="--reference", roles={"--reference": "metadata"}
    ),
    **dict.fromkeys(
        words("cp install"),
        _m(
            "read",
            last="write",
            last_unless="-t --target-directory",
            short="tSmogb",
            long="--target-directory --suffix --mode --owner --group --backup --reflink"
            " --sparse --preserve --no-preserve --context",
            roles={"-t": "write", "--target-directory": "write"},
        ),
    ),
    "mv": _m(
        "write",
        short="tS",
        long="--target-directory --suffix --backup",
        roles={"-t": "write", "--target-directory": "write"},
    ),
    "rsync": _m(
        "read",
        last="write",
        short="e",
        long="--rsh --exclude --include --exclude-from --include-from --files-from"
        " --rsync-path --backup-dir --temp-dir --log-file --password-file --chmod --filter",
        roles={
            "-e": "opaque",
            "--rsh": "opaque",
            "--rsync-path": "opaque",
            "--exclude-from": "read",
            "--include-from": "read",
            "--files-from": "read",
            "--backup-dir": "write",
            "--temp-dir": "write",
            "--log-file": "write",
            "--password-file": "read",
        },
    ),
    "gzip": _m("write", short="S", long="--suffix"),
    "gunzip": _m("write", short="S", long="--suffix"),
    "bzip2": _WRITE,
    "xz": _WRITE,
    "zip": _m("read", first="write", short="xib", roles={"-b": "write"}),
    # --- no paths ------------------------------------------------------------------------
    **dict.fromkeys(
        words(
            "echo true false : exit return sleep wait pwd basename dirname whoami id uname seq expr"
            " let shift local declare typeset unset shopt ulimit umask yes nproc tty printenv locale"
            " tput clear hash getconf arch logname groups users who uptime free ps kill jobs bg fg"
            " disown getopts cal factor numfmt tr hostname break continue printf set"
        ),
        _TEXT,
    ),
    "date": _m(
        "text",
        short="drf",
        long="--date --reference --file",
        roles={"-r": "metadata", "--reference": "metadata", "-f": "read", "--file": "read"},
    ),
    "which": _TEXT,
    "type": _TEXT,
    "read": _m("text", short="dnNptua", roles={"-u": "text"}),
    "bc": _m("read"),
    # --- fetch ---------------------------------------------------------------------------
    "wget": _m(
        "text",
        short="OoaPiNTtUe",
        long="--output-document --output-file --append-output --directory-prefix --input-file"
        " --tries --timeout --user-agent --header --post-file --body-file --load-cookies"
        " --save-cookies --ca-certificate --certificate --private-key --execute",
        roles={
            "-O": "write",
            "--output-document": "write",
            "-o": "write",
            "--output-file": "write",
            "-a": "write",
            "--append-output": "write",
            "-P": "write",
            "--directory-prefix": "write",
            "-i": "read",
            "--input-file": "read",
            "--post-file": "read",
            "--body-file": "read",
            "--load-cookies": "read",
            "--save-cookies": "write",
            "-e": "opaque",
            "--execute": "opaque",
        },
    ),
    # --- our own CLI, as an evaluator agent runs it (the skill-eval skill) -----------------
    # Operands are subcommands, ids and run directories; the paths it is told to use are
    # its options. What it touches by default (the scratch root, the user's agent home) only the
    # trace sees. An agent home is named by --agent-home (the adapters' short flags for it are
    # not modelled: the analysis cannot tell whether such a home is read or written).
    "agentic-eval": _m(
        "text",
        long="--repo --source-workspace --runs-dir --case-workspace-root --scratch-root"
        " --behaviors --agent-home --workspace --skill --target --suite --case"
        " --run-id --resume --parent-thread --nickname --agent-id --attempts --workers"
        " --timeout --model --agent --judge --judge-model --judge-votes --split",
        roles={
            "--repo": "read",
            "--source-workspace": "read",
            "--behaviors": "read",
            "--skill": "read",
            "--agent-home": "write",
            "--runs-dir": "write",
            "--case-workspace-root": "write",
            "--scratch-root": "write",
            "--workspace": "write",
        },
    ),
}

# Summarising last stages of a pipeline: what reaches the agent is a count or a digest.
SUMMARISING_FLAGS: dict[str, frozenset[str]] = {
    "uniq": frozenset({"-c", "--count"}),
    "grep": frozenset({"-c", "--count", "-q", "--quiet", "--silent", "-l", "-L"}),
}

# Commands that run another command given as their arguments (`timeout 5 cat x`).
PREFIX_COMMANDS: dict[str, CommandModel] = {
    "nohup": _m("text"),
    "time": _m("text", short="fo", roles={"-o": "write", "--output": "write"}),
    "timeout": _m("text", short="sk", long="--signal --kill-after"),  # plus a duration operand
    "nice": _m("text", short="n", long="--adjustment"),
    "stdbuf": _m("text", short="ioe", long="--input --output --error"),
    "setsid": _m("text"),
    "ionice": _m("text", short="cnpt"),
    "command": _m("text"),
    "builtin": _m("text"),
    "exec": _m("text", short="a"),
    "sudo": _m("text", short="ugCDhpUrtT", roles={"-D": "dir"}),
    "doas": _m("text", short="uC", roles={"-C": "read"}),
    "unbuffer": _m("text"),
    "taskset": _m("text"),  # plus a mask operand
}
# `uv run [OPTIONS] COMMAND|SCRIPT.py ...`: the command it runs, in the project's environment.
# uv's own reads and writes (the project's pyproject.toml and .venv, its cache in the agent's
# home) are the tool's housekeeping, like an interpreter reading its standard library.
UV_RUN = _m(
    "text",
    short="pwm",
    long=(
        "--python --with --with-editable --with-requirements --project --directory --env-file"
        " --extra --group --only-group --package --index --index-url --extra-index-url --from"
        " --config-file --cache-dir --script --module"
    ),
    roles={
        "--project": "dir",
        "--directory": "dir",
        "--env-file": "read",
        "--with-requirements": "read",
        "--with-editable": "read",
        "--config-file": "read",
        "--cache-dir": "write",
    },
)
# Prefixes that take one positional operand before the command.
PREFIX_LEADING_OPERANDS = {"timeout": 1, "taskset": 1}

# Environment variables whose value changes which program runs or what it reads: assigning
# them hides the command's real effect.
UNSAFE_VARIABLES = frozenset(
    words(
        "PATH LD_PRELOAD LD_LIBRARY_PATH LD_AUDIT BASH_ENV ENV CDPATH PYTHONPATH PYTHONSTARTUP"
        " PYTHONHOME PYTHONUSERBASE NODE_OPTIONS NODE_PATH PERL5OPT PERL5LIB PERLLIB RUBYOPT RUBYLIB"
        " GIT_DIR GIT_WORK_TREE GIT_CONFIG GIT_CONFIG_GLOBAL GIT_CONFIG_SYSTEM GIT_CONFIG_COUNT"
        " GIT_EXEC_PATH GIT_SSH GIT_SSH_COMMAND GIT_PAGER GIT_EDITOR GIT_ASKPASS GIT_TEMPLATE_DIR"
        " PAGER EDITOR VISUAL PROMPT_COMMAND IFS GLOBIGNORE SHELLOPTS BASHOPTS XDG_CONFIG_HOME"
        " CURL_HOME WGETRC INPUTRC TERMINFO"
    )
)

# `python3 -m MODULE ARGS`: the modules we know, and what their operands are.
PYTHON_MODULES: dict[str, CommandModel] = {
    "json.tool": _m("read", last="write", long="--indent --sort-keys"),
    "py_compile": _m("read"),
    "base64": _m("read"),
    "http.server": _m(
        "text", short="bd", long="--bind --directory --protocol", roles={"-d": "list"}
    ),
    "venv": _m("write", long="--prompt"),
    "tokenize": _m("read"),
    "ast": _m("read"),
    "calendar": _TEXT,
    "this": _TEXT,
    "platform": _TEXT,
    "sysconfig": _TEXT,
    "site": _TEXT,
    "timeit": _TEXT,
}
# Modules that run the workspace's own code (tests, packages): a tree of programs.
PYTHON_TREE_MODULES = frozenset({"pytest", "unittest", "compileall", "doctest"})

SHELLS = frozenset({"bash", "sh", "dash", "zsh", "ksh", "mksh", "ash", "busybox-sh"})
