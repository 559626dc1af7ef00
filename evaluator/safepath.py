"""The one rule for names and paths that come from untrusted eval-repo input.

Ids (target, suite, case, run) become directory and file names, so they must be plain names:
`ID_PATTERN` is checked at `validate`, and `contained` proves, again at the moment a path is
built, that every path the evaluator writes from an id or a declared relative path stays under
its root. Both are needed: validation gives the author a located error, `contained` guards every
caller that forgot to validate.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

# Starts with a letter or digit (so never `.`, `..` or a hidden name); no `/`, `\`, spaces or
# control characters; short enough for every file system.
ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$"
_ID = re.compile(ID_PATTERN)


class UnsafePath(ValueError):
    """A name or declared path would land outside its root (absolute, `..`, a symlink...)."""


def id_problem(value: str) -> str | None:
    """Why `value` is not a valid id, or None when it is."""
    if _ID.fullmatch(value):
        return None
    return (
        f"{value!r} is not a valid id: use letters, digits, '.', '_' and '-',"
        " starting with a letter or digit (at most 128 characters)"
    )


def relative_problem(value: str) -> str | None:
    """Why `value` is not a safe relative path, or None when it is."""
    if not value.strip():
        return "is empty"
    if "\x00" in value or "\n" in value:
        return "must not contain control characters"
    posix = PurePosixPath(value)
    if posix.is_absolute() or value.startswith("~"):
        return "must be a relative path"
    if ".." in posix.parts:
        return "must not contain '..'"
    return None


def contained(root: Path, *parts: str) -> Path:
    """`root/parts...`, proven to stay under `root`: no part may be absolute, hold `..` or pass
    through a symlink. Then the result resolves inside the resolved root: each piece below
    `root` is a plain name that is no symlink, so resolving it only appends that name (no
    `resolve()` needed, which would walk every component of both paths again)."""
    current = root
    for part in parts:
        why = relative_problem(part)
        if why:
            raise UnsafePath(f"{part!r} {why}")
        for piece in PurePosixPath(part).parts:
            if piece in ("", "."):
                continue
            current = current / piece
            if current.is_symlink():
                raise UnsafePath(f"{part!r} goes through the symlink {current}")
    return current


def is_inside(path: Path, root: Path) -> bool:
    """Whether `path`, with every symlink resolved, lies under `root` (or is `root`)."""
    resolved_root = root.resolve()
    resolved = path.resolve()
    return resolved == resolved_root or resolved_root in resolved.parents
