"""The evidence bundle: the only thing a judge sees, built fresh in its own read-only directory.

It holds the normalised session (`session.json`, records `msg-1..N`), the final answer, a listing
of the attempt workspace after the run, and copies of the workspace files an assertion names
(backticked in its text or evidence scope). Never the live workspace: a judge reads copies, so
nothing it runs can touch what the agent left, and a symlink the agent planted is listed, not
followed.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path

from evaluator.evidence.records import SessionEvidence
from evaluator.judge.base import path_matches
from evaluator.judge.grading import GradeItem

SESSION_FILE = "session.json"
FINAL_ANSWER_FILE = "final-answer.txt"
LISTING_FILE = "workspace-listing.txt"
FILES_DIR = "workspace-files"

MAX_LISTED = 2000
MAX_NAMED_FILES = 20
MAX_FILE_BYTES = 256 * 1024
BACKTICKED = re.compile(r"`([^`\n]+)`")


@dataclass(frozen=True)
class Bundle:
    path: Path
    evidence_hash: str  # sha256 over every file's relative path and bytes
    files: tuple[str, ...]  # relative paths, sorted
    records: dict[str, dict[str, object]]  # every record of the session by id, for verification


def named_paths(items: list[GradeItem]) -> list[str]:
    """Backticked words in the items that could be workspace paths (`a/b.md`, `*.sql`)."""
    found: list[str] = []
    for item in items:
        for text in (item.text, item.evidence_scope or ""):
            for token in BACKTICKED.findall(text):
                token = token.strip()
                if token and " " not in token and ("/" in token or "." in token):
                    found.append(token.removeprefix("./"))
    return list(dict.fromkeys(found))


# Characters that end or hide a line: a name holding one could forge entries of the listing
# (`notes.txt\nmigrations/0042_add.sql  (512 bytes)` reads as two files).
_LINE_BREAKING = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def shown_name(text: str) -> str:
    """A name (or a symlink's target) the agent chose, on one line of the listing: every
    character that could break or hide the line escaped as in JSON (`\n`, `\u0085`)."""
    return _LINE_BREAKING.sub(lambda m: json.dumps(m.group())[1:-1], text)


def _walk(workspace: Path) -> tuple[list[str], list[str]]:
    """(listing lines, regular files) of the workspace, relative, without following links;
    names on the lines are the agent's text, one line each (`shown_name`)."""
    lines: list[str] = []
    files: list[str] = []
    for root, dirs, names in os.walk(workspace, followlinks=False):
        dirs.sort()
        for name in sorted(dirs) + sorted(names):
            full = Path(root) / name
            relative = str(full.relative_to(workspace))
            try:
                info = full.lstat()
            except OSError:
                continue
            shown = shown_name(relative)
            if stat.S_ISLNK(info.st_mode):
                target = shown_name(os.readlink(full))
                lines.append(f"{shown} -> {target}  (symlink, not followed)")
            elif stat.S_ISDIR(info.st_mode):
                lines.append(f"{shown}/")
            elif stat.S_ISREG(info.st_mode):
                lines.append(f"{shown}  ({info.st_size} bytes)")
                files.append(relative)
    return lines, files


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def build_bundle(
    items: list[GradeItem], evidence: SessionEvidence, workspace: Path, directory: Path
) -> Bundle:
    directory.mkdir(parents=True, exist_ok=False)
    session = evidence.to_json()
    records = {str(r["id"]): r for r in session["records"] if isinstance(r, dict) and "id" in r}
    _write(
        directory / SESSION_FILE,
        json.dumps(session, indent=1, ensure_ascii=False).encode(),
    )
    _write(directory / FINAL_ANSWER_FILE, (evidence.final_answer or "").encode())
    if workspace.is_dir():
        lines, files = _walk(workspace)
        shown = lines[:MAX_LISTED]
        if len(lines) > MAX_LISTED:
            shown.append(f"... {len(lines) - MAX_LISTED} more entries not listed")
        listing = "\n".join(shown) + "\n"
    else:
        lines, files = [], []
        listing = "(the attempt workspace is no longer available; nothing is listed)\n"
    _write(directory / LISTING_FILE, listing.encode())
    copied = 0
    for pattern in named_paths(items):
        for relative in files:
            if copied >= MAX_NAMED_FILES or not path_matches(relative, pattern):
                continue
            target = directory / FILES_DIR / relative
            if target.exists():
                continue
            try:
                with (workspace / relative).open("rb") as handle:
                    data = handle.read(MAX_FILE_BYTES + 1)
            except OSError:
                continue  # unreadable: the listing still shows it exists
            if len(data) > MAX_FILE_BYTES:
                data = data[:MAX_FILE_BYTES] + b"\n[... truncated by agentic-eval]\n"
            _write(target, data)
            copied += 1
    digest = hashlib.sha256()
    names = sorted(str(p.relative_to(directory)) for p in directory.rglob("*") if p.is_file())
    for name in names:
        digest.update(name.encode() + b"\0" + (directory / name).read_bytes() + b"\0")
    _make_read_only(directory)
    return Bundle(directory, digest.hexdigest(), tuple(names), records)


def _make_read_only(directory: Path) -> None:
    # The judge's sandbox is read-only already; this also keeps our own code from changing it.
    for path in sorted(directory.rglob("*"), reverse=True):
        path.chmod(0o555 if path.is_dir() else 0o444)
    directory.chmod(0o555)


def remove_bundle(directory: Path) -> None:
    for path in [directory, *directory.rglob("*")]:
        if path.is_dir() and not path.is_symlink():
            path.chmod(0o755)
    shutil.rmtree(directory, ignore_errors=True)
