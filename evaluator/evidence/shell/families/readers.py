"""Commands that show a file's content, or touch it without showing it (metadata)."""

from __future__ import annotations

from evaluator.evidence.shell.model import model
from evaluator.evidence.shell.registry import table

table(
    {
        # --- show file content -------------------------------------------------------------
        # No option of these takes a value: `cat -n FILE` shows FILE (it was read as -n's value,
        # and `cat -v /outside` was no access at all; red team, docs/isolation.md).
        "cat rev tsort zcat bzcat xzcat zstdcat lz4cat": model("read"),
        "tac": model("read", short="s", long="--separator"),
        "bat batcat": model(
            "read",
            short="lHrm",
            long="--language --highlight-line --line-range --map-syntax --style --theme --tabs"
            " --wrap --terminal-width --diff-context --color --decorations --paging --pager"
            " --italic-text --file-name",
        ),
        "nl less more expand unexpand pr shuf zless zmore": model(
            "read",
            short="bswvnlitdr",
            long="--number-format --number-width --number-separator --body-numbering"
            " --tabs --random-source --output",
            roles={"-o": "write", "--output": "write", "--random-source": "read"},
        ),
        "head": model("read", short="nc", long="--lines --bytes"),
        "tail": model("read", short="ncs", long="--lines --bytes --pid --sleep-interval"),
        "xxd": model("read", short="clsgo", last="write"),
        "od": model(
            "read", short="AjNSstw", long="--address-radix --skip-bytes --read-bytes --format"
        ),
        "hexdump": model("read", short="enfs", roles={"-f": "read"}),
        "strings": model("read", short="ntTe", long="--bytes --radix --encoding"),
        "cut": model("read", short="bcdf", long="--bytes --characters --delimiter --fields"),
        "fold": model("read", short="w", long="--width"),
        "fmt": model("read", short="wgp", long="--width --goal --prefix"),
        "iconv": model(
            "read", short="fto", long="--from-code --to-code --output", roles={"-o": "write"}
        ),
        "base64": model("read", short="w", long="--wrap"),
        "base32": model("read", short="w", long="--wrap"),
        "basenc": model("read", short="w", long="--wrap"),
        # util-linux column: -t, -d, -e, -x, -J, -L take no value (`column -t -s /` is a table
        # with `/` as separator, not a read of `/`).
        "column": model(
            "read",
            short="csoNlRTEWHOnrip",
            long="--separator --output-separator --output-width --table-columns"
            " --table-columns-limit --table-right --table-truncate --table-noextreme --table-wrap"
            " --table-hide --table-order --table-name --tree --tree-id --tree-parent",
        ),
        "paste": model("read", short="d", long="--delimiters"),
        "comm": model("read", long="--output-delimiter"),
        "join": model("read", short="aejot12", long=""),
        "diff": model(
            "read",
            short="CUIxXSFDL",
            long="--from-file --to-file --exclude-from --label --line-format --ignore-matching-lines"
            " --exclude --starting-file --unified --context --color --palette",
            roles={
                "--from-file": "read",
                "--to-file": "read",
                "--exclude-from": "read",
                "-X": "read",
            },
            quiet="-q --brief",
        ),
        "cmp": model("metadata", short="inb", summarises=True),
        "sort": model(
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
        "uniq": model(
            "read",
            short="fsw",
            long="--skip-fields --skip-chars --check-chars",
            last="write",
            summarises_with="-c --count",
        ),
        "jq": model(
            "read",
            first="text",
            first_unless="-f --from-file -n",
            long="--arg --argjson --slurpfile --rawfile --indent --args --jsonargs --from-file",
            short="f",
            roles={"-f": "read", "--from-file": "read", "--slurpfile": "read", "--rawfile": "read"},
        ),
        "yq": model("read", first="text"),
        "look": model("read", first="text", short="t"),
        # --- touch without showing content ---------------------------------------------------
        "wc": model(
            "metadata", summarises=True, long="--files0-from", roles={"--files0-from": "read"}
        ),
        "stat": model("metadata", short="c", long="--format --printf", summarises=True),
        "file": model(
            "metadata", short="mfFP", roles={"-m": "read", "-f": "read"}, summarises=True
        ),
        "md5sum sha1sum sha224sum sha256sum sha384sum sha512sum b2sum cksum sum shasum": model(
            "metadata", short="la", long="--length --algorithm", summarises=True
        ),
        "du": model(
            "metadata", short="dBtX", long="--max-depth --block-size --exclude", summarises=True
        ),
        "df": model("metadata", short="BtFx", long="--output --type --block-size", summarises=True),
        "realpath": model("metadata", long="--relative-to --relative-base", summarises=True),
        "readlink": model("metadata", summarises=True),
        "lsattr": model("metadata", summarises=True),
        "bc": model("read"),
    }
)
