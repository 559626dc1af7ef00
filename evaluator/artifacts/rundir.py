"""The layout of `runs/<run_id>/`, atomic writes into it (temp file + rename), and its lock."""

from __future__ import annotations

import errno
import fcntl
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import IO, Any

from pydantic import BaseModel, ValidationError

from evaluator.artifacts.models import UNFINISHED_STATES, AttemptRecord, CaseResult, Manifest
from evaluator.errors import InputError
from evaluator.safepath import contained
from evaluator.surrogates import surrogate_escape, well_formed


def write_atomic(path: Path, text: str, *, sync: bool = True) -> None:
    """`sync=False`: a file another step copies and syncs later (an attempt's staging area)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            if sync:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def write_bytes_atomic(path: Path, content: bytes, *, sync: bool = True) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(content)
            if sync:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def json_text(payload: Any) -> str:
    """A run directory's JSON file: a file name the agent chose that is not UTF-8 (a lone
    surrogate in Python's hands) is written as the visible text of its escape, which UTF-8 and
    every JSON reader take (red team, round 12b)."""
    if isinstance(payload, BaseModel):
        payload = payload.model_dump(mode="json")
    return json.dumps(well_formed(payload, surrogate_escape), indent=2, ensure_ascii=False) + "\n"


def write_json(path: Path, payload: Any, *, sync: bool = True) -> None:
    write_atomic(path, json_text(payload), sync=sync)


def copy_atomic(source: Path, destination: Path) -> None:
    """Like the other artifacts, a copy is 0600 whatever the source's mode (sessions hold
    everything the agent saw)."""
    destination.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(
        dir=destination.parent, prefix=f".{destination.name}.", suffix=".tmp"
    )
    try:
        with os.fdopen(fd, "wb") as out, source.open("rb") as src:
            shutil.copyfileobj(src, out)
        os.replace(temp, destination)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def write_staged(path: Path, content: bytes) -> None:
    """A file of an attempt's staging area (`save_attempt(staged=True)`), written in place, 0600:
    the area is the attempt's alone and the driver reads it only after the attempt returned, so
    the temporary file and rename that keep a run directory's readers from a half-written file
    buy nothing there (about a third of a small file's cost)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(content)


def copy_staged(source: Path, destination: Path) -> None:
    """`copy_atomic` into an attempt's staging area: in place (see `write_staged`), in the kernel."""
    out = os.open(destination, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
    try:
        with source.open("rb") as src:
            while os.sendfile(out, src.fileno(), None, STAGED_COPY_CHUNK):
                pass
    finally:
        os.close(out)


STAGED_COPY_CHUNK = 8 * 1024 * 1024


# The storage itself failed (full, over quota, read-only, not ours to write): the run cannot go
# on anywhere, so these stop it instead of blocking one attempt after another.
# What other directories an evaluator writes hold at their top (`pipeline/selftest.py`,
# `evaluate/model.py`): named here so a command given one can say what it was given.
SELFTEST_FILE = "selftest.json"
EVALUATION_FILE = "evaluation.json"
MANIFEST_FILE = "manifest.json"


def not_a_run_dir(path: Path) -> InputError:
    """The error for a directory that is not a run directory: what it is instead (a self-test,
    an evaluation, a runs root) and the run directories it holds, so the next command is right."""

    def listed(runs: list[Path]) -> str:
        names = [run.relative_to(path).as_posix() for run in runs]
        shown = ", ".join(names[:4]) + (f" (and {len(names) - 4} more)" if len(names) > 4 else "")
        return f"; give one of its run directories: {shown}" if names else ""

    children = sorted(p.parent for p in path.glob(f"*/{MANIFEST_FILE}"))
    if (path / SELFTEST_FILE).is_file():
        what = f"a self-test directory ({SELFTEST_FILE})"
        runs = children
    elif (path / EVALUATION_FILE).is_file():
        what = f"an evaluation directory ({EVALUATION_FILE})"
        runs = sorted(p.parent for p in path.glob(f"variants/*/run/{MANIFEST_FILE}"))
    elif children:
        what = "a runs root"
        runs = children
    else:
        return InputError(f"not a run directory (no {MANIFEST_FILE})", path=path)
    return InputError(
        f"{what}, not a run directory (a run directory holds {MANIFEST_FILE}){listed(runs)}",
        path=path,
    )


FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS})
DENIED_ERRNOS = frozenset({errno.EACCES, errno.EPERM})


def storage_error(exc: BaseException, roots: tuple[Path, ...]) -> OSError | None:
    """The storage OSError behind `exc` (itself or a cause), if any: a full or read-only file
    system anywhere, or a write refused under one of our own `roots`."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, OSError):
            if seen.errno in FULL_ERRNOS:
                return seen
            if seen.errno in DENIED_ERRNOS and seen.filename is not None:
                name = os.path.abspath(os.fsdecode(seen.filename))
                if any(name == str(r) or name.startswith(str(r) + os.sep) for r in roots):
                    return seen
        seen = seen.__cause__ or seen.__context__
    return None


def remove_temp_files(directory: Path) -> int:
    """Removes the `.NAME.*.tmp` files an interrupted write left behind; returns how many."""
    removed = 0
    for path in directory.rglob(".*.tmp"):
        parts = path.relative_to(directory).parts
        if any(parts[i : i + 2] == ("workspace", "files") for i in range(len(parts))):
            continue  # a file the agent made, kept in a workspace snapshot
        try:
            path.unlink()
            removed += 1
        except OSError:
            continue
    return removed


class RunLocked(Exception):
    """Another live evaluator holds the run directory."""

    def __init__(self, path: Path, owner: str) -> None:
        self.owner = owner
        super().__init__(f"run directory {path} is in use by another agentic-eval ({owner})")


class RunLock:
    """An exclusive `flock` on `runs/<run_id>/.lock`. The kernel drops it when its holder exits
    or dies (even by SIGKILL), so a stale lock never blocks: the pid written in the file only
    names the holder in the error, and a file whose pid is gone is simply locked again."""

    name = ".lock"

    def __init__(self, directory: Path) -> None:
        self.path = directory / self.name
        self.handle: IO[str] | None = None

    def acquire(self) -> None:
        handle = self.path.open("a+", encoding="utf-8")
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            owner = handle.read().strip() or "pid unknown"
            handle.close()
            raise RunLocked(self.path.parent, owner) from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"pid {os.getpid()}\n")
        handle.flush()
        self.handle = handle

    def release(self) -> None:
        if self.handle is not None:
            self.handle.close()  # closing the descriptor drops the flock
            self.handle = None


def lock_held(directory: Path) -> bool | None:
    """Whether a live evaluator holds `directory`'s run lock, read from the kernel's table of
    locks (`/proc/locks`) without taking it: a probe that took it, even for a moment, could
    refuse a `--resume` starting then. None where that cannot be told, and for a directory
    without a lock file: another evaluator's run, which may be running by its own means."""
    try:
        stats = (directory / RunLock.name).stat()
        table = Path("/proc/locks").read_text(encoding="ascii")
    except (OSError, ValueError):
        return None
    # Each line: `N: FLOCK ADVISORY WRITE PID MAJOR:MINOR:INODE START END` (major and minor in
    # hex); a waiting request's line starts `N: -> ...` and holds nothing.
    key = f"{os.major(stats.st_dev):02x}:{os.minor(stats.st_dev):02x}:{stats.st_ino}"
    for line in table.splitlines():
        fields = line.split()
        if len(fields) >= 6 and fields[1] == "FLOCK" and fields[5] == key:
            return True
    return False


def unfinished_why(directory: Path, run_id: str, state: str) -> str:
    """The words after "the run is STATE" (and a report's "Run state:"): a closed state as
    written; for a run whose manifest is not closed, whether an evaluator still runs it or none
    does (killed, or its machine went down: interrupted), and what to do."""
    if state in UNFINISHED_STATES and lock_held(directory) is False:
        return (
            f"interrupted ({state} in its manifest, but no evaluator holds it: stopped without"
            f" closing, killed, or its machine went down); `agentic-eval run --resume {run_id}`"
            " finishes it"
        )
    return state


class RunDir:
    def __init__(self, path: Path) -> None:
        self.path = path

    @property
    def run_id(self) -> str:
        return self.path.name

    manifest_name = "manifest.json"

    @property
    def manifest_path(self) -> Path:
        return self.path / self.manifest_name

    def case_result_path(self, case_id: str) -> Path:
        return contained(self.path, "case-results", f"{case_id}.json")

    def case_artifacts(self, case_id: str) -> Path:
        return contained(self.path, "case-artifacts", case_id)

    def attempt_artifacts(self, case_id: str, attempt: int) -> Path:
        return self.case_artifacts(case_id) / "attempts" / f"attempt-{attempt:02d}"

    def attempt_ref_prefix(self, case_id: str, attempt: int) -> str:
        return f"case-artifacts/{case_id}/attempts/attempt-{attempt:02d}/accepted-session.json"

    def case_ref_prefix(self, case_id: str) -> str:
        return f"case-artifacts/{case_id}/accepted-session.json"

    def lock(self) -> RunLock:
        lock = RunLock(self.path)
        lock.acquire()
        return lock

    def write_manifest(self, manifest: Manifest) -> None:
        write_json(self.manifest_path, manifest)

    def read_manifest(self) -> Manifest:
        try:
            return Manifest.model_validate_json(self.manifest_path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise not_a_run_dir(self.path) from None
        except ValidationError as exc:
            raise InputError(
                f"unreadable manifest: {exc.errors()[0]['msg']}", path=self.manifest_path
            ) from None

    def write_case_result(self, result: CaseResult) -> None:
        write_json(self.case_result_path(result.case_id), result)

    def finished_case_ids(self) -> set[str]:
        directory = self.path / "case-results"
        return {p.stem for p in directory.glob("*.json")} if directory.is_dir() else set()

    def read_case_results(self, order: list[str] | None = None) -> list[CaseResult]:
        results = {}
        for path in sorted((self.path / "case-results").glob("*.json")):
            try:
                results[path.stem] = CaseResult.model_validate_json(
                    path.read_text(encoding="utf-8")
                )
            except ValidationError as exc:
                raise InputError(
                    f"unreadable case result: {exc.errors()[0]['msg']}", path=path
                ) from None
        if order is None:
            return list(results.values())
        return [results[c] for c in order if c in results]

    def attempt_records(self, case_id: str) -> list[AttemptRecord]:
        """The saved `attempt.json` of every attempt of a case, as records."""
        records = []
        known = set(AttemptRecord.model_fields)
        for path in sorted(
            (self.case_artifacts(case_id) / "attempts").glob("attempt-*/attempt.json")
        ):
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
                records.append(
                    AttemptRecord.model_validate({k: v for k, v in data.items() if k in known})
                )
            except (OSError, ValueError):
                continue
        return records

    # Attempts started while the run's scratch was in memory (evaluator/workspace/memory.py):
    # a run killed before recording them leaves nothing else of them, so a resume lists them
    # from here. Removed when the run closes, whatever its state.
    IN_FLIGHT_DIR = ".in-flight"

    def note_in_flight(self, case_id: str, attempt: int) -> None:
        folder = self.path / self.IN_FLIGHT_DIR / case_id
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{attempt:02d}").touch()

    def noted_in_flight(self, case_id: str) -> list[int]:
        """The attempts of `case_id` noted in flight, recorded since or not."""
        folder = self.path / self.IN_FLIGHT_DIR / case_id
        return sorted(int(p.name) for p in folder.glob("[0-9]*") if p.name.isdigit())

    def forget_in_flight(self) -> None:
        shutil.rmtree(self.path / self.IN_FLIGHT_DIR, ignore_errors=True)

    def max_attempt(self, case_id: str) -> int:
        attempts = self.case_artifacts(case_id) / "attempts"
        numbers = [
            int(p.name.split("-")[1]) for p in attempts.glob("attempt-*") if p.name[8:].isdigit()
        ]
        return max(numbers, default=0)
