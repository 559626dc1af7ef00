"""How a check's path or glob matches a workspace-relative path: one rule for the judge (what
the agent touched) and for `validate` (what the workspace can contain)."""

from __future__ import annotations

import fnmatch


def path_matches(relative: str, pattern: str) -> bool:
    """Workspace-relative match. A pattern naming a skill path (`.agents/...`) must match from
    the workspace root; a shorter one (`references/x.md`, as upstream criteria write it) may
    match at any depth."""
    pattern = pattern.removeprefix("./")
    if fnmatch.fnmatchcase(relative, pattern):
        return True
    return not pattern.startswith(".agents/") and fnmatch.fnmatchcase(relative, f"*/{pattern}")
