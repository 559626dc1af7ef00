"""The project's `.gitignore` entry for `runs/`, written by `init`.

Every run leaves megabytes of artifacts (sessions, snapshots, reports) under `runs/` beside
where the user runs `agentic-eval`; a new user who commits the project commits them too. `init`
adds one anchored line and never rewrites what the user wrote.
"""

from __future__ import annotations

from pathlib import Path

RUNS_LINE = "/runs/"
COMMENT = "# agentic-eval's run directories (agentic-eval init)"

# The lines that already ignore the whole of `runs/` beside the `.gitignore` (git's pattern
# rules: a name without a slash inside also matches deeper folders, which ignores it too).
_IGNORES_RUNS = {"runs", "runs/", "/runs", "/runs/", "runs/*", "/runs/*", "runs/**", "/runs/**"}


def ignores_runs(text: str) -> bool:
    """Whether a `.gitignore`'s text ignores `runs/` (and no later line takes it back)."""
    ignored = False
    for raw in text.splitlines():
        line = raw.strip()
        if line in _IGNORES_RUNS:
            ignored = True
        elif line.startswith("!") and line[1:].rstrip("/*") in ("runs", "/runs"):
            ignored = False
    return ignored


def ignore_runs(directory: Path) -> str:
    """Makes `directory/.gitignore` ignore `runs/`: writes the file when there is none, else
    appends the line (the user's lines stay as they are). Returns what it did, in one line."""
    path = directory / ".gitignore"
    if path.is_symlink() or (path.exists() and not path.is_file()):
        return f"note: {path} is not a plain file: add {RUNS_LINE} to it yourself"
    if not path.exists():
        path.write_text(f"{COMMENT}\n{RUNS_LINE}\n", encoding="utf-8")
        return f"wrote {path} ignoring {RUNS_LINE} (the run directories)"
    text = path.read_text(encoding="utf-8", errors="replace")
    if ignores_runs(text):
        return f"{path} already ignores runs/"
    separator = "" if not text or text.endswith("\n") else "\n"
    with path.open("a", encoding="utf-8") as handle:
        handle.write(f"{separator}{COMMENT}\n{RUNS_LINE}\n")
    return f"added {RUNS_LINE} to {path} (the run directories)"
