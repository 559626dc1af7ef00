"""The command families. Each module registers its commands in the registry when imported;
this list is the whole closed world of handled commands."""

from evaluator.evidence.shell.families import (
    archive,
    builds,
    builtins,
    copymove,
    editors,
    files,
    git,
    interpreters,
    listing,
    native,
    network,
    ourcli,
    prefixes,
    readers,
    search,
)

__all__ = [
    "archive",
    "builds",
    "builtins",
    "copymove",
    "editors",
    "files",
    "git",
    "interpreters",
    "listing",
    "native",
    "network",
    "ourcli",
    "prefixes",
    "readers",
    "search",
]
