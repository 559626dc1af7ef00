"""Secret values never reach `runs/`, in any encoding our artifacts can hold them.

Which values are secrets is `evaluator.credentials`' rule; this module replaces each of them by
`[REDACTED:NAME]`. A secret reaches an artifact raw (stdout, final answer), JSON-escaped once (a
rollout line) or twice (a command inside a function call's `arguments` string), `\\uXXXX`-escaped,
URL-encoded (a URL the agent printed), HTML-escaped (a page), base64-encoded at any alignment in
a longer stream (standard and URL-safe alphabets), in strace's octal or hex escapes (the trace),
and as a file or folder name (the workspace snapshot). Each form is replaced; file names are
renamed with the same placeholder the evidence shows, so re-judging finds the files it cites.
A secret cut short where a text was truncated (`sk-proj-Q8vN...`, or `...Rt1Yb6` at the start
of a kept tail) is replaced too: its part beside the ellipsis, from `MIN_CUT_PART` characters.
Git's compressed objects in a saved workspace (a key the agent committed) are inflated: a loose
object holding a secret is rewritten with it replaced, a pack holding one is replaced whole by
a note naming the placeholder.
What string matching cannot catch (a secret reversed, split or encrypted) is documented in
docs/security.md.
"""

from __future__ import annotations

import gzip
import os
import re
import tempfile
import zlib
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import TextIO

from evaluator.credentials import SecretSet, encodings
from evaluator.gitobjects import (
    PACK_HEADER_BYTES,
    git_object_kind,
    pack_object_count,
    pack_stream_start,
)

MARK_OPEN = "[REDACTED:"  # a placeholder is `[REDACTED:NAME]`
MIN_SECRET_LENGTH = 4  # shorter values would redact ordinary text
GZIP_MAGIC = b"\x1f\x8b"
BINARY_PROBE = 8192  # a NUL byte in the first bytes marks a file as binary, as git decides
# The shortest part of a secret, beside an ellipsis, that is replaced (a text truncated in the
# middle of a secret: a verdict's last output line, a command shown in a few words).
MIN_CUT_PART = 6
_ELLIPSIS = r"(?:\.\.\.|\u2026)"
# What a git object may inflate to here (a snapshot keeps files of 1 MiB at most): beyond it,
# the file is replaced, not searched.
MAX_INFLATED_BYTES = 64 << 20


def write_bytes_atomic(path: Path, data: bytes) -> None:
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


class Redactor:
    def __init__(self, secrets: Mapping[str, str]) -> None:
        pairs: dict[str, str] = {}
        for name, value in secrets.items():
            if len(value) < MIN_SECRET_LENGTH:
                continue
            for form in encodings(value):
                if len(form) >= MIN_SECRET_LENGTH:
                    pairs.setdefault(form, f"{MARK_OPEN}{name}]")
        # Longest first, so a secret that contains another (or its own shorter form) is
        # replaced whole.
        self.pairs = sorted(pairs.items(), key=lambda pair: len(pair[0]), reverse=True)
        # A secret spanning lines (a PEM key) is only found in a file read whole.
        self.multiline = any("\n" in form for form, _ in self.pairs)
        self.cut = [
            (form[:MIN_CUT_PART], form[-MIN_CUT_PART:], _cut_pattern(form), mark)
            for form, mark in self.pairs
            if len(form) > MIN_CUT_PART
        ]

    def __bool__(self) -> bool:
        return bool(self.pairs)

    def text(self, value: str) -> str:
        for secret, mark in self.pairs:
            if secret in value:
                value = value.replace(secret, mark)
        if "..." in value or "\u2026" in value:
            for head, tail, pattern, mark in self.cut:
                if head in value or tail in value:  # cheap: most texts hold neither
                    value = pattern.sub(mark, value)
        return value

    def count(self, value: str) -> Counter[str]:
        """How many placeholders `text(value)` writes, by the name each shows: the same
        replacements in the same order, counted (an agent may type a placeholder itself; only
        these stand for a secret)."""
        counts: Counter[str] = Counter()
        for secret, mark in self.pairs:
            found = value.count(secret)
            if found:
                counts[mark[len(MARK_OPEN) : -1]] += found
                value = value.replace(secret, "\0")
        if "..." in value or "\u2026" in value:
            for head, tail, pattern, mark in self.cut:
                if head in value or tail in value:
                    value, found = pattern.subn("\0", value)
                    if found:
                        counts[mark[len(MARK_OPEN) : -1]] += found
        return counts

    def file_count(self, path: Path) -> Counter[str]:
        """How many placeholders redacting the file writes where `workspace_file_*` and
        `workspace_env_value` look: its bytes as text and, for a git object, each object
        inflated. Read whole: a snapshot keeps files of 1 MiB at most."""
        if not self.pairs:
            return Counter()
        data = path.read_bytes()
        counts = self.count(data.decode("utf-8", "surrogateescape"))
        kind = git_object_kind(path)
        if kind is not None:
            try:
                streams = _inflated_objects(data, kind == "pack") or []
            except (IndexError, zlib.error, OverflowError):
                streams = []
            for stream in streams:
                counts.update(self.count(stream.decode("utf-8", "surrogateescape")))
        return counts

    def file(self, path: Path) -> None:
        """Rewrites a file in place, line by line, so large sessions stream; a gzip file is
        rewritten decompressed and compressed again. The rewrite is 0600 like every artifact."""
        if not self.pairs:
            return
        kind = git_object_kind(path)
        if kind is not None:
            self._git_object(path, kind)
            return
        with path.open("rb") as probe:
            head = probe.read(BINARY_PROBE)
        compressed = head.startswith(GZIP_MAGIC)
        if not compressed and b"\0" in head:
            self._binary_file(path)
            return
        fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        os.close(fd)
        try:
            if compressed:
                with (
                    gzip.open(path, "rt", encoding="utf-8", errors="surrogateescape") as src,
                    gzip.open(
                        temp, "wt", encoding="utf-8", errors="surrogateescape", compresslevel=1
                    ) as out,
                ):
                    self._copy(src, out)
            else:
                with (
                    open(temp, "w", encoding="utf-8", errors="surrogateescape") as out,
                    path.open(encoding="utf-8", errors="surrogateescape") as src,
                ):
                    self._copy(src, out)
            os.replace(temp, path)
        except (OSError, EOFError, gzip.BadGzipFile):
            Path(temp).unlink(missing_ok=True)
            if not compressed:
                raise
            # Not a readable gzip after all (a file that merely starts with its magic): as text.
            self._file_as_text(path)
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise

    def _git_object(self, path: Path, kind: str) -> None:
        data = path.read_bytes()
        try:
            streams = _inflated_objects(data, kind == "pack")
        except (IndexError, zlib.error, OverflowError):
            streams = None
        if streams is None:
            if kind == "pack":  # cannot be read as git's: its bytes like any binary file's
                self._binary_file(path)
                return
            streams = []
        marks = [self.text(s.decode("utf-8", "surrogateescape")) for s in streams]
        found = [
            m
            for m, s in zip(marks, streams, strict=True)
            if m.encode("utf-8", "surrogateescape") != s
        ]
        if not found and streams:
            self._binary_file(path)
            return
        if kind == "loose" and found:
            write_bytes_atomic(path, zlib.compress(found[0].encode("utf-8", "surrogateescape")))
            return
        names = sorted(set(re.findall(r"\[REDACTED:[^\]]+\]", "".join(found))))
        note = "git objects withheld: they held " + (", ".join(names) or "too much to read")
        write_bytes_atomic(path, (note + "\n").encode("utf-8"))

    def _binary_file(self, path: Path) -> None:
        """A binary file (a database, an image) keeps its layout: each secret's bytes are masked
        by as many `*`, so lengths and offsets inside the file stay valid."""
        data = path.read_bytes()
        masked = data
        for secret, _ in self.pairs:
            encoded = secret.encode("utf-8", errors="surrogateescape")
            if encoded in masked:
                masked = masked.replace(encoded, b"*" * len(encoded))
        if masked != data:
            write_bytes_atomic(path, masked)

    def _file_as_text(self, path: Path) -> None:
        fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        try:
            with (
                os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape") as out,
                path.open(encoding="utf-8", errors="surrogateescape") as src,
            ):
                self._copy(src, out)
            os.replace(temp, path)
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise

    def _copy(self, src: TextIO, out: TextIO) -> None:
        if self.multiline:
            out.write(self.text(src.read()))
            return
        for line in src:
            out.write(self.text(line))

    def tree(self, directory: Path) -> None:
        """Every file's content, then every file and folder name (deepest first, so a renamed
        folder's children are already done)."""
        if not self.pairs:
            return
        paths = sorted(directory.rglob("*"), key=lambda p: len(p.parts), reverse=True)
        for path in paths:
            if path.is_file() and not path.is_symlink():
                self.file(path)
        for path in paths:
            renamed = self.text(path.name).replace("/", "_")
            if renamed != path.name:
                target = path.with_name(renamed)
                number = 2
                while target.exists() or target.is_symlink():  # never overwrite what is kept
                    target = path.with_name(f"{renamed}.{number}")
                    number += 1
                path.rename(target)


def _cut_pattern(form: str) -> re.Pattern[str]:
    """A part of `form` cut short at an ellipsis: a prefix before one, a suffix after one."""
    lengths = range(len(form) - 1, MIN_CUT_PART - 1, -1)
    prefixes = "|".join(re.escape(form[:n]) for n in lengths)
    suffixes = "|".join(re.escape(form[-n:]) for n in lengths)
    return re.compile(
        f"(?:{prefixes})(?={_ELLIPSIS})|(?<=\\.\\.\\.)(?:{suffixes})|(?<=\u2026)(?:{suffixes})"
    )


def _inflated_objects(data: bytes, pack: bool) -> list[bytes] | None:
    """Each object's inflated bytes (a delta's as stored); None when past the limit."""
    budget = MAX_INFLATED_BYTES
    starts = [0]
    if pack:
        try:
            count = pack_object_count(data)
        except ValueError as error:
            raise zlib.error(str(error)) from error
        position, starts = PACK_HEADER_BYTES, []
        for _ in range(count):
            position = pack_stream_start(data, position)
            inflater = zlib.decompressobj()
            out = inflater.decompress(data[position:], budget + 1)
            if len(out) > budget or not inflater.eof:
                return None
            starts.append(position)
            position = len(data) - len(inflater.unused_data)
    objects: list[bytes] = []
    for start in starts:
        inflater = zlib.decompressobj()
        out = inflater.decompress(data[start:], budget + 1)
        budget -= len(out)
        if budget < 0 or not inflater.eof:
            return None
        objects.append(out)
    return objects


class LiveRedactor:
    """A redactor over a `SecretSet` that may still grow (the trace is redacted while the agent
    runs, and the runner adds its environment's secrets just before it starts)."""

    def __init__(self, secrets: SecretSet) -> None:
        self._secrets = secrets
        self._version = -1
        self._redactor = Redactor({})

    def current(self) -> Redactor:
        if self._version != self._secrets.version:
            self._version = self._secrets.version
            self._redactor = Redactor(self._secrets.values())
        return self._redactor

    def text(self, value: str) -> str:
        return self.current().text(value)
