"""Commands that search file content: grep and its variants, rg, ag, ack."""

from __future__ import annotations

from dataclasses import replace

from evaluator.evidence.shell.model import model, split_options
from evaluator.evidence.shell.registry import handles
from evaluator.evidence.shell.walker import Walker
from evaluator.vocabulary import AccessKind

GREP = model(
    "read",
    first="text",
    first_unless="-e --regexp -f --file",
    short="efmABCd",
    long="--regexp --file --max-count --after-context --before-context --context --include"
    " --exclude --exclude-dir --exclude-from --label --color --colour --devices --directories"
    " --binary-files",
    roles={"-f": "read", "--file": "read", "--exclude-from": "read"},
    quiet="-l -L -c -q --count --quiet --silent --files-with-matches --files-without-match",
    summarises_with="-c --count -q --quiet --silent -l -L",
)
# egrep and fgrep read their arguments as grep does; only `grep`'s counting flags were ever
# taken as summarising a pipeline, and verdicts stay as they were.
GREP_VARIANTS = replace(GREP, summarises_with=frozenset())
RG = model(
    short="efgtTmABCMjE",
    long="--regexp --file --glob --iglob --type --type-not --max-count --after-context"
    " --before-context --context --max-columns --threads --encoding --pre --pre-glob"
    " --ignore-file --type-add --max-depth --sort --sortr --color --colors --replace -r",
    roles={"-f": "read", "--file": "read", "--ignore-file": "read"},
    quiet="-l -c -q --count --quiet --files-with-matches --files-without-match --count-matches",
)


@handles("egrep", "fgrep", model=GREP_VARIANTS)
@handles("grep", model=GREP)
def grep(w: Walker, name: str, args: list[str | None], texts: list[str]) -> None:
    options = w.modelled("grep", GREP, args, texts)
    recursive = any(o in ("-r", "-R", "--recursive", "--dereference-recursive") for o, _ in options)
    _, operands = split_options(GREP, args, texts)
    pattern_given = any(o in ("-e", "-f", "--regexp", "--file") for o, _ in options)
    files = operands if pattern_given else operands[1:]
    if recursive and not files:
        quiet = any(o in GREP.quiet for o, _ in options)
        w.add("metadata" if quiet else "read", ".", "grep -r")


@handles("rg", "ag", "ack", model=RG)
def rg(w: Walker, name: str, args: list[str | None], texts: list[str]) -> None:
    options, operands = split_options(RG, args, texts)
    names = {o for o, _ in options}
    if names & {"--pre", "--pre-glob"}:
        w.opaque("rg --pre runs a command on every file")
    for option, value in options:
        if option in RG.roles:
            w.role(RG.roles[option], value, str(value), f"rg {option}")
    pattern_given = bool(names & {"-e", "--regexp", "-f", "--file"})
    files = operands if pattern_given else operands[1:]
    if "--files" in names:
        files = operands
    kind: AccessKind = "metadata" if names & RG.quiet else "read"
    if "--files" in names:
        kind = "list"
    for raw, text in files or [(".", ".")]:
        w.path_arg(kind, raw, text, "rg")
