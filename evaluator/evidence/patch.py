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
