"""Fetching URLs: curl and wget (URLs are text; files they read or write are paths)."""

from __future__ import annotations

import posixpath
import re

from evaluator.evidence.shell.model import model, split_options
from evaluator.evidence.shell.registry import handles, table
from evaluator.evidence.shell.walker import Walker

table(
    {
        "wget": model(
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
    }
)

CURL = model(
    "text",
    short="oXHdFuAeTKbcrmwxEDyYzC",
    long="--output --request --header --data --data-binary --data-raw --data-urlencode --json"
    " --form --user --user-agent --referer --upload-file --config --cookie --cookie-jar --range"
    " --max-time --write-out --proxy --cert --key --cacert --capath --dump-header --trace"
    " --trace-ascii --stderr --output-dir --connect-timeout --retry --url",
    roles={
        "-o": "write",
        "--output": "write",
        "-T": "read",
        "--upload-file": "read",
        "-K": "read",
        "--config": "read",
        "-c": "write",
        "--cookie-jar": "write",
        "-D": "write",
        "--dump-header": "write",
        "--trace": "write",
        "--trace-ascii": "write",
        "--stderr": "write",
        "--output-dir": "write",
        "--cacert": "read",
        "--cert": "read",
        "--key": "read",
        "--capath": "read",
        "-E": "read",
        "-d": "text",
        "--data": "text",
        "--data-binary": "text",
        "--data-urlencode": "text",
        "--json": "text",
        "-F": "text",
        "--form": "text",
        "-b": "text",
        "--cookie": "text",
        "--url": "text",
    },
)


@handles("curl", model=CURL)
def curl(w: Walker, name: str, args: list[str | None], texts: list[str]) -> None:
    options, operands = split_options(CURL, args, texts)
    for option, value in options:
        if option in CURL.roles:
            role = CURL.roles[option]
            if (
                value is not None
                and option in ("-d", "--data", "--data-binary", "--data-urlencode", "--json")
                and "@" in value
            ):
                w.path_arg("read", value.split("@", 1)[1], value, f"curl {option}")
            elif option in ("-b", "--cookie") and value is not None and "=" not in value:
                # Without `=` the value is a file to read the cookies from.
                w.path_arg("read", value, value, f"curl {option}")
            elif (value is not None and option in ("-F", "--form") and "=@" in value) or (
                value or ""
            ).startswith("@"):
                w.path_arg(
                    "read",
                    (value or "").split("@", 1)[1].split(";")[0],
                    str(value),
                    f"curl {option}",
                )
            elif option not in (
                "-d",
                "--data",
                "--data-binary",
                "--data-urlencode",
                "--json",
                "-F",
                "--form",
            ):
                w.role(role, value, str(value), f"curl {option}")
        elif option in ("-O", "--remote-name", "-J"):
            for raw, _ in operands:
                if raw is not None:
                    w.add("write", posixpath.basename(raw.split("?")[0]) or ".", "curl -O")
    for raw, text in operands:
        if raw is None:
            w.opaque(f"curl of a computed URL {text}")
        elif raw.lower().startswith("file:"):
            w.add(
                "read",
                re.sub(r"^file:(//[^/]*)?", "", raw, flags=re.IGNORECASE) or "/",
                "curl file://",
            )
        elif "://" not in raw and not re.match(r"^[\w.-]+(:\d+)?(/|$)", raw):
            w.opaque(f"curl of an unclear URL {raw}")
