"""Checks on the workspace as the agent left it: a file exists, a file contains a text, a file's
content matches a pattern."""

from __future__ import annotations

import glob
import hashlib
import os
import re
import stat
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from evaluator.contract.models import (
    WorkspaceFileContainsCheck,
    WorkspaceFileExistsCheck,
    WorkspaceFileMatchesCheck,
)
from evaluator.judge.base import JudgeContext
from evaluator.judge.checks.registry import register_check
from evaluator.judge.verdict import CheckVerdict, blocked, failed, passed
from evaluator.patterns import compile_pattern

# A file over this size is not read: the agent can make one of any size for free (a sparse
# `truncate -s 100G`), and the judge must neither exhaust its memory nor stall on it.
MAX_CONTENT_BYTES = 64 * 1024 * 1024


def _files(context: JudgeContext, pattern: str, exclude: Sequence[str] = ()) -> list[str]:
    """Matching files as workspace paths (also when read from a restored snapshot), without
    those at or below an `exclude` path that are still as the case gave them."""
    root = str(context.file_root)
    matches = glob.glob(str(context.file_root / pattern), recursive=True)
    named = [str(context.workspace) + m[len(root) :] for m in matches if m.startswith(root)]
    kept = []
    for path in named:
        relative = context.relative(path)
        if relative is None:
            continue
        if any(
            relative == gone or relative.startswith(f"{gone.rstrip('/')}/") for gone in exclude
        ) and _as_given(context, path, relative):
            continue
        kept.append(path)
    return sorted(kept)


def _shown(paths: Sequence[str], most: int = 3) -> str:
    """At most `most` paths, then how many more."""
    more = f", and {len(paths) - most} more" if len(paths) > most else ""
    return ", ".join(paths[:most]) + more


def _as_given(context: JudgeContext, path: str, relative: str) -> bool:
    """Whether an excluded file is still the case's input: the file that was there before the
    agent ran, byte for byte (red team, round 11: the agent wrote its output into the given
    `notes.txt`, which a `must_not_have` search skipped by its path). A file the agent
    changed, replaced (a symlink, a FIFO) or made is its own. Without the hashes from before
    the run (`baseline` unknown), the path decides, as it did."""
    if context.baseline is None:
        return True
    before = context.baseline.get(relative)
    on_disk = context.on_disk(path)
    try:
        info = os.lstat(on_disk)
    except OSError:
        return False
    if before is None or not stat.S_ISREG(info.st_mode) or info.st_size > MAX_CONTENT_BYTES:
        return False
    digest = hashlib.sha256()
    try:
        with open(on_disk, "rb") as stream:
            while block := stream.read(1 << 20):
                digest.update(block)
    except OSError:
        return False
    return digest.hexdigest() == before


def _not_workspace_file(context: JudgeContext, path: str) -> str | None:
    """Why a matching name is not a file of the workspace the judge may read, or None. A
    symlink is followed only while it stays inside the workspace: one the agent pointed
    outside would have the evaluator (which runs unconfined) read a file the agent could not,
    its own `/proc/self/environ` included. A FIFO would stall the judge forever."""
    root = context.file_root.resolve()
    try:
        real = Path(context.on_disk(path)).resolve(strict=True)
        info = real.stat()
    except (OSError, RuntimeError):
        return "a symlink that leads nowhere"
    if real != root and root not in real.parents:
        return "a symlink to outside the workspace"
    if not (stat.S_ISREG(info.st_mode) or stat.S_ISDIR(info.st_mode)):
        return "not a regular file (a FIFO, a socket or a device)"
    return None


def _read(context: JudgeContext, path: str) -> tuple[str | None, str | None]:
    """A workspace file's text, or why it was not read."""
    why = _not_workspace_file(context, path)
    if why is not None:
        return None, why
    real = Path(context.on_disk(path)).resolve()
    try:
        # O_NONBLOCK: should the name have become a FIFO since it was checked, the open
        # returns at once instead of waiting for a writer that never comes.
        descriptor = os.open(real, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as error:
        return None, f"unreadable ({error.strerror})"
    with os.fdopen(descriptor, "rb") as stream:
        info = os.fstat(stream.fileno())
        if not stat.S_ISREG(info.st_mode):
            return None, "not a regular file"
        if info.st_size > MAX_CONTENT_BYTES:
            return None, f"larger than {MAX_CONTENT_BYTES // (1024 * 1024)} MiB, not read"
        data = stream.read(MAX_CONTENT_BYTES + 1)
    if len(data) > MAX_CONTENT_BYTES:
        return None, f"larger than {MAX_CONTENT_BYTES // (1024 * 1024)} MiB, not read"
    return data.decode("utf-8", errors="replace"), None


def _write_refs(context: JudgeContext, pattern: str) -> list[str]:
    return [context.ref(r) for r in context.matching(context.writes(), pattern)]


def session_end(context: JudgeContext) -> list[str]:
    """The session's final answer: what a verdict on the workspace cites when no write of the
    agent touched the file (the session ended there without making it)."""
    return [context.ref(r) for r in context.evidence.of_kind("final_answer")[-1:]]


def _unavailable(kind: str) -> CheckVerdict:
    return blocked(kind, "the attempt workspace is no longer on disk")


@register_check("workspace_file_exists")
def exists(check: WorkspaceFileExistsCheck, context: JudgeContext) -> CheckVerdict:
    if not context.workspace_available:
        return _unavailable("workspace_file_exists")
    matched = _files(context, check.path)
    refused = {f: why for f in matched if (why := _not_workspace_file(context, f)) is not None}
    found = [f for f in matched if f not in refused]
    refs = _write_refs(context, check.path)
    if found:
        names = ", ".join(context.relative(f) or f for f in found)
        return passed(
            "workspace_file_exists",
            f"workspace holds {names}",
            [
                *(refs or session_end(context)),
                *(f"workspace-files:{context.relative(f)}" for f in found),
            ],
        )
    return failed(
        "workspace_file_exists",
        f"no file matching {check.path} in the workspace{_refused(context, refused)}",
        refs or session_end(context),
    )


def _refused(context: JudgeContext, refused: dict[str, str]) -> str:
    if not refused:
        return ""
    named = "; ".join(f"{context.relative(f) or f} is {why}" for f, why in sorted(refused.items()))
    return f" ({named})"


@register_check("workspace_file_contains")
def contains(check: WorkspaceFileContainsCheck, context: JudgeContext) -> CheckVerdict:
    text = check.text

    def found(content: str) -> Iterator[tuple[int, int, str]]:
        start = content.find(text)
        while start >= 0:
            yield start, start + len(text), text
            start = content.find(text, start + 1)

    return _content_check("workspace_file_contains", check.path, repr(text), found, context)


@register_check("workspace_file_matches")
def matches(check: WorkspaceFileMatchesCheck, context: JudgeContext) -> CheckVerdict:
    pattern = compile_pattern(check.pattern)  # RE2: linear in the file, whatever the pattern
    return _content_check(
        "workspace_file_matches",
        check.path,
        f"/{check.pattern}/",
        pattern.spans,
        context,
        exclude=check.exclude,
    )


_PLACEHOLDER = re.compile(r"\[REDACTED:([^\]\n]+)\]")


def _run_placeholders(context: JudgeContext, relative: str, content: str) -> list[tuple[int, int]]:
    """Where, in a restored file, a placeholder may be the run's own (a secret the run's judge
    saw there, which the snapshot no longer holds): each placeholder of a name the run's
    redaction wrote into this file, or any placeholder when that is not recorded. Agent-typed
    look-alikes of other names are ordinary text, as they were in the run."""
    names = context.redacted_names(relative)
    if names is not None and not names:
        return []
    return [
        match.span()
        for match in _PLACEHOLDER.finditer(content)
        if names is None or match.group(1) in names
    ]


def _content_check(
    kind: str,
    glob: str,
    wanted: str,
    find: Callable[[str], Iterator[tuple[int, int, str]]],
    context: JudgeContext,
    exclude: Sequence[str] = (),
) -> CheckVerdict:
    """Passes when a workspace file matching `glob` has content in which `find` finds what is
    `wanted`; blocked when a matching file's content was not kept; fails otherwise. In a
    re-judge, a match counts only clear of the run's own placeholders (it did not touch the
    secret the run saw there, so it was in that file too); a file whose only matches touch one,
    or that has none while holding one, cannot be judged again (the secret may have decided)."""
    if not context.workspace_available:
        return _unavailable(kind)
    # Folders a glob matches hold no content of their own: only files are searched and named.
    files = [
        path
        for path in _files(context, glob, exclude)
        if os.path.islink(context.on_disk(path)) or not os.path.isdir(context.on_disk(path))
    ]
    refs = _write_refs(context, glob)
    if not files:
        # Files the case gave are not searched: saying only "no file" of a workspace that holds
        # them reads as if it were empty.
        given = [
            context.relative(path) or path
            for path in (_files(context, glob) if exclude else [])
            if os.path.islink(context.on_disk(path)) or not os.path.isdir(context.on_disk(path))
        ]
        but = f" but the case's own inputs ({_shown(given)})" if given else ""
        return failed(
            kind, f"no file matching {glob} in the workspace{but}", refs or session_end(context)
        )
    unknown = []
    redacted = []
    refused: dict[str, str] = {}
    for path in files:
        rel = context.relative(path) or path
        if rel in context.without_content:
            unknown.append(path)
            continue
        content, why = _read(context, path)
        if content is None:
            refused[path] = why or "not read"
            continue
        secrets = _run_placeholders(context, rel, content)
        shown = next(
            (
                text
                for start, end, text in find(content)
                if not any(start <= right and left <= end for left, right in secrets)
            ),
            None,
        )
        if shown is not None:
            what = wanted if shown == wanted.strip("'\"") else f"{wanted} ({shown!r})"
            return passed(
                kind,
                f"{rel} contains {what}",
                [*(refs or session_end(context)), f"workspace-files:{rel}"],
            )
        if secrets:
            redacted.append(rel)
    if redacted:
        recorded = context.placeholders is not None
        return blocked(
            kind,
            f"{', '.join(redacted)} held a secret the run saw and its workspace snapshot"
            " replaced by a placeholder"
            + ("" if recorded else " (or text of the agent's: this snapshot does not record which)")
            + f": whether it held {wanted} cannot be judged again without it",
            refs,
        )
    if unknown:
        names = ", ".join(context.relative(f) or f for f in unknown)
        return blocked(
            kind,
            f"the content of {names} was not kept in the workspace snapshot (size limits)",
            refs,
        )
    names = ", ".join(context.relative(f) or f for f in files)
    verb = "does" if len(files) == 1 else "do"
    return failed(
        kind,
        f"{names} {verb} not contain {wanted}{_refused(context, refused)}",
        refs or session_end(context),
    )
