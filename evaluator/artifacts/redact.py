"""Secret values never reach `runs/`, in any encoding our artifacts can hold them.

Which values are secrets is `evaluator.credentials`' rule; this module replaces each of them by
`[REDACTED:NAME]`. A secret reaches an artifact raw (stdout, final answer), JSON-escaped once (a
rollout line) or twice (a command inside a function call's `arguments` string), `\\uXXXX`-escaped,
URL-encoded (a URL the agent printed), HTML-escaped (a page), base64-encoded at any alignment in
a longer stream (standard and URL-safe alphabets), in strace's octal or hex escapes (the trace),
and as a file or folder name (the workspace snapshot). Each form is replaced; file names are
renamed with the same placeholder the evidence shows, so re-judging finds the files it cites.
What string matching cannot catch (a secret reversed, split or encrypted) is documented in
docs/security.md.
"""

from __future__ import annotations

import gzip
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import TextIO

from evaluator.credentials import SecretSet, encodings

MIN_SECRET_LENGTH = 4  # shorter values would redact ordinary text
GZIP_MAGIC = b"\x1f\x8b"
BINARY_PROBE = 8192  # a NUL byte in the first bytes marks a file as binary, as git decides


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
                    pairs.setdefault(form, f"[REDACTED:{name}]")
        # Longest first, so a secret that contains another (or its own shorter form) is
        # replaced whole.
        self.pairs = sorted(pairs.items(), key=lambda pair: len(pair[0]), reverse=True)
        # A secret spanning lines (a PEM key) is only found in a file read whole.
        self.multiline = any("\n" in form for form, _ in self.pairs)

    def __bool__(self) -> bool:
        return bool(self.pairs)

    def text(self, value: str) -> str:
        for secret, mark in self.pairs:
            if secret in value:
                value = value.replace(secret, mark)
        return value

    def file(self, path: Path) -> None:
        """Rewrites a file in place, line by line, so large sessions stream; a gzip file is
        rewritten decompressed and compressed again. The rewrite is 0600 like every artifact."""
        if not self.pairs:
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
