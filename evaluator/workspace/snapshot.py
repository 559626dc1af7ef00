"""The attempt workspace as the agent left it, kept in the run directory so re-judging works after
the scratch space is gone.

Saved: every file the agent created or changed, and set-up files that cannot be found again,
within size limits. Listed only: the files the workspace received unchanged from the source
workspace (restored from there while their hash still matches), files over the limits, symlinks
and deleted files. `manifest.json` names every file and what became of it, and which redaction placeholders the
run itself wrote into each (`record_placeholders`): text the agent typed can look the same.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

SNAPSHOT_FORMAT = "agentic-eval/workspace-snapshot@1"
MAX_FILE_BYTES = 1024 * 1024
MAX_TOTAL_BYTES = 16 * 1024 * 1024
MAX_LISTED = 10_000
FILES_DIR = "files"
MANIFEST = "manifest.json"
# The manifest's mark that each entry says which placeholders the run wrote into it; a snapshot
# saved before that was recorded has none, and its placeholders cannot be told from the agent's.
PLACEHOLDERS_RECORDED = "placeholders_recorded"

Change = Literal["created", "changed", "unchanged"]
Kept = Literal["saved", "source", "too-large", "over-budget", "symlink", "unreadable"]


@dataclass(frozen=True)
class FileState:
    size: int
    sha256: str


def _digest(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1024 * 1024), b""):
            digest.update(block)
    return digest.hexdigest()


def _walk(root: Path) -> list[tuple[str, Path, os.stat_result]]:
    """Every entry below `root` but directories, with its lstat, by relative path: symlinks
    (to directories too) are listed, never followed. One `scandir` per directory, whose entries
    say which are directories; a directory that cannot be listed is passed over, as `os.walk`
    does."""
    found = []
    pending = [(os.fspath(root), "")]
    while pending:
        directory, prefix = pending.pop()
        try:
            with os.scandir(directory) as listing:
                entries = list(listing)
        except OSError:
            continue
        for entry in entries:
            relative = prefix + entry.name
            if entry.is_dir(follow_symlinks=False):
                pending.append((entry.path, relative + "/"))
                continue
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            found.append((relative, Path(entry.path), info))
    found.sort(key=lambda item: item[0])
    return found


def fingerprint(root: Path) -> dict[str, FileState]:
    """Size and hash of every regular file: the state before the agent starts."""
    states = {}
    for relative, path, info in _walk(root):
        if stat.S_ISREG(info.st_mode):
            try:
                states[relative] = FileState(info.st_size, _digest(path))
            except OSError:
                continue
    return states


# Hashes of source-workspace files, by what would change with their content: every attempt of
# a run compares the same skill files. A file changed in the last `SETTLED_S` seconds is hashed
# each time (a write within the clock's granularity can keep its times: git's "racily clean").
_SOURCE_DIGESTS: dict[tuple[str, int, int, int, int, int], str] = {}
SOURCE_DIGESTS_KEPT = 4096
SETTLED_S = 2.0


def _source_digest(path: Path, info: os.stat_result) -> str:
    key = (str(path), info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
    digest = _SOURCE_DIGESTS.get(key)
    if digest is None:
        digest = _digest(path)
        if max(info.st_mtime_ns, info.st_ctime_ns) < (time.time() - SETTLED_S) * 1e9:
            if len(_SOURCE_DIGESTS) >= SOURCE_DIGESTS_KEPT:
                _SOURCE_DIGESTS.clear()
            _SOURCE_DIGESTS[key] = digest
    return digest


def _from_source(source_workspace: Path, relative: str, state: FileState) -> bool:
    candidate = source_workspace / relative
    try:
        info = candidate.lstat()  # a regular file, not a symlink
        return (
            stat.S_ISREG(info.st_mode)
            and info.st_size == state.size
            and _source_digest(candidate, info) == state.sha256
        )
    except OSError:
        return False


def _manifest_text(manifest: dict[str, Any]) -> str:
    """The manifest as JSON, every non-ASCII character escaped: a name the agent gave a file
    need not be UTF-8 (`printf 'a\\377'`), and Python names it with a lone surrogate
    (`surrogateescape`), which no UTF-8 text can hold but a JSON escape can, exactly, for the
    restore (red team, round 12b: the attempt ended `blocked (environment)`)."""
    return json.dumps(manifest, indent=1, ensure_ascii=True) + "\n"


def save_snapshot(
    workspace: Path,
    baseline: dict[str, FileState],
    destination: Path,
    source_workspace: Path,
    *,
    max_file_bytes: int = MAX_FILE_BYTES,
    max_total_bytes: int = MAX_TOTAL_BYTES,
) -> dict[str, Any]:
    """Writes `destination/files/...` and `destination/manifest.json`; returns the manifest."""
    files_dir = destination / FILES_DIR
    files_dir.mkdir(parents=True, exist_ok=True)
    entries: list[dict[str, Any]] = []
    total = 0
    seen: set[str] = set()
    walked = _walk(workspace)
    # The agent's own files claim the budget first.
    walked.sort(key=lambda item: (item[0] in baseline, item[0]))
    for relative, path, info in walked:
        seen.add(relative)
        entry: dict[str, Any] = {"path": relative, "size": info.st_size}
        if stat.S_ISLNK(info.st_mode):
            entry.update(change="created", kept="symlink", target=os.readlink(path))
            entries.append(entry)
            continue
        if not stat.S_ISREG(info.st_mode):
            continue
        try:
            state = FileState(info.st_size, _digest(path))
        except OSError:
            entry.update(change="changed", kept="unreadable")
            entries.append(entry)
            continue
        before = baseline.get(relative)
        change: Change = (
            "created" if before is None else "unchanged" if before == state else "changed"
        )
        entry["change"] = change
        kept: Kept
        if change == "unchanged" and _from_source(source_workspace, relative, state):
            kept = "source"
            entry["sha256"] = state.sha256
        elif info.st_size > max_file_bytes:
            kept = "too-large"
        elif total + info.st_size > max_total_bytes:
            kept = "over-budget"
        else:
            target = files_dir / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
            total += info.st_size
            kept = "saved"
        entry["kept"] = kept
        entries.append(entry)
    deleted = sorted(set(baseline) - seen)
    entries.sort(key=lambda e: e["path"])
    manifest = {
        "format": SNAPSHOT_FORMAT,
        "workspace": str(workspace),
        "limits": {"max_file_bytes": max_file_bytes, "max_total_bytes": max_total_bytes},
        "saved_bytes": total,
        "file_count": len(entries),
        "files": entries[:MAX_LISTED],
        "files_not_listed": max(0, len(entries) - MAX_LISTED),
        "deleted": deleted[:MAX_LISTED],
    }
    temp = destination / f".{MANIFEST}.tmp"
    temp.write_text(_manifest_text(manifest), encoding="utf-8")
    os.replace(temp, destination / MANIFEST)
    return manifest


class PlaceholderCounter(Protocol):
    """What redaction will write (`artifacts/redact.Redactor`): placeholders by name."""

    def count(self, value: str) -> Mapping[str, int]: ...

    def file_count(self, path: Path) -> Mapping[str, int]: ...


def record_placeholders(snapshot: Path, redactor: PlaceholderCounter) -> None:
    """Writes into the manifest, before `redactor` rewrites the snapshot, how many placeholders
    it will write into each saved file's content and each listed path, by the name each shows
    (never a value). Added to what an earlier pass recorded: a second pass finds no secret left
    where the first replaced them. A snapshot recorded with no secret at all still says so."""
    path = snapshot / MANIFEST
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    for entry in manifest.get("files") or []:
        relative = str(entry.get("path") or "")
        in_content: dict[str, int] = {}
        saved = snapshot / FILES_DIR / relative
        if entry.get("kept") == "saved" and ".." not in Path(relative).parts:
            try:
                if saved.is_file() and not saved.is_symlink():
                    in_content = dict(redactor.file_count(saved))
            except OSError:
                pass
        for key, counts in (
            ("placeholders", in_content),
            ("path_placeholders", redactor.count(relative)),
        ):
            if counts:
                merged = dict(entry.get(key) or {})
                for name, count in counts.items():
                    merged[name] = int(merged.get(name) or 0) + count
                entry[key] = merged
    manifest[PLACEHOLDERS_RECORDED] = True
    temp = snapshot / f".{MANIFEST}.tmp"
    temp.write_text(_manifest_text(manifest), encoding="utf-8")
    os.replace(temp, path)


@dataclass(frozen=True)
class Placeholders:
    """The redaction placeholders (`[REDACTED:NAME]`) the run wrote into a restored snapshot,
    by workspace-relative path: name -> how many, in the file's content and in its path. Only
    these stand for a secret; any other placeholder text is the agent's own."""

    content: dict[str, dict[str, int]]
    path: dict[str, dict[str, int]]

    def in_content(self, relative: str) -> set[str]:
        return {name for name, n in self.content.get(relative, {}).items() if n > 0}

    def in_path(self, relative: str) -> set[str]:
        return {name for name, n in self.path.get(relative, {}).items() if n > 0}


@dataclass
class RestoredWorkspace:
    root: Path
    # Files the workspace held whose content the snapshot could not give back (too large, or
    # the source workspace changed since): present as empty placeholders, so their existence
    # is still judged, never their content.
    without_content: set[str]
    # The placeholders the run wrote; None: a snapshot saved before they were recorded (or the
    # workspace itself, still on disk, which holds none).
    placeholders: Placeholders | None = None


def has_snapshot(snapshot: Path) -> bool:
    return (snapshot / MANIFEST).is_file()


def restore_snapshot(snapshot: Path, source_workspace: Path, into: Path) -> RestoredWorkspace:
    manifest = json.loads((snapshot / MANIFEST).read_text(encoding="utf-8"))
    missing: set[str] = set()
    content: dict[str, dict[str, int]] = {}
    in_path: dict[str, dict[str, int]] = {}
    for entry in manifest.get("files") or []:
        relative = str(entry.get("path") or "")
        parts = Path(relative).parts
        if not relative or Path(relative).is_absolute() or ".." in parts:
            continue  # never write outside `into`, whatever the manifest says
        for key, record in (("placeholders", content), ("path_placeholders", in_path)):
            counts = entry.get(key)
            if isinstance(counts, dict):
                record[relative] = {str(k): int(v) for k, v in counts.items() if isinstance(v, int)}
        kept = entry.get("kept")
        if kept == "symlink":
            continue
        target = into / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        saved = snapshot / FILES_DIR / relative
        state = FileState(int(entry.get("size") or 0), str(entry.get("sha256") or ""))
        if kept == "saved" and saved.is_file() and not saved.is_symlink():
            shutil.copyfile(saved, target)
        elif kept == "source" and _from_source(source_workspace, relative, state):
            shutil.copyfile(source_workspace / relative, target)
        else:
            target.write_bytes(b"")
            missing.add(relative)
    recorded = manifest.get(PLACEHOLDERS_RECORDED) is True
    return RestoredWorkspace(into, missing, Placeholders(content, in_path) if recorded else None)


def unchanged_digests(snapshot: Path, root: Path) -> dict[str, str]:
    """The files the snapshot lists as unchanged by the session, with their sha256 as they are
    under `root` (the workspace, or its restored copy): what the workspace held before the agent
    ran, as far as a saved run still knows it. A file not listed is taken for the session's."""
    try:
        manifest = json.loads((snapshot / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    digests: dict[str, str] = {}
    for entry in manifest.get("files") or []:
        relative = str(entry.get("path") or "")
        parts = Path(relative).parts
        if entry.get("change") != "unchanged" or not relative or ".." in parts:
            continue
        path = root / relative
        try:
            if path.is_symlink() or Path(relative).is_absolute():
                continue
            digests[relative] = _digest(path)
        except OSError:
            continue
    return digests
