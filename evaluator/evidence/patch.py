"""Paths named by an apply_patch envelope (`*** Add/Update/Delete File:` and `*** Move to:`)."""

from __future__ import annotations

import re

_HEADER = re.compile(r"^\*\*\* (Add File|Update File|Delete File|Move to): (.+?)\s*$", re.MULTILINE)


def patch_paths(patch: str) -> tuple[list[tuple[str, str]], list[str]]:
    paths = [(m.group(1), m.group(2)) for m in _HEADER.finditer(patch)]
    problems = []
    if "*** Begin Patch" in patch and not paths:
        problems.append("apply_patch envelope without file headers")
    return paths, problems


def patch_contents(patch: str) -> list[tuple[str, str | None]]:
    """Each file a patch writes, with its new content when the patch shows it whole.

    `Add File` bodies are the file (`+` lines); an `Update File` or `Move to` result depends on
    the old content, so it is unknown (None); a deleted file has no content left (None).
    """
    written: list[tuple[str, str | None]] = []
    current: str | None = None
    body: list[str] = []
    adding = False

    def close() -> None:
        if current is not None:
            written.append((current, "".join(body) if adding else None))

    for line in patch.splitlines(keepends=True):
        header = _HEADER.match(line.rstrip("\n"))
        if header:
            operation, path = header.group(1), header.group(2)
            if operation == "Move to":
                written.append((path, None))
                continue
            close()
            current, body, adding = path, [], operation == "Add File"
        elif line.startswith("*** "):
            close()
            current = None
        elif adding and line.startswith("+"):
            body.append(line[1:])
    close()
    return written
