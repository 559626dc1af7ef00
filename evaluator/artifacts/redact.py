"""Secret values (variables a case marks secret, model credentials) never reach `runs/`."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from pathlib import Path

MIN_SECRET_LENGTH = 4  # shorter values would redact ordinary text


class Redactor:
    def __init__(self, secrets: Mapping[str, str]) -> None:
        pairs = [
            (value, f"[REDACTED:{name}]")
            for name, value in secrets.items()
            if len(value) >= MIN_SECRET_LENGTH
        ]
        # Longest first, so a secret that contains another is replaced whole.
        self.pairs = sorted(pairs, key=lambda pair: len(pair[0]), reverse=True)

    def __bool__(self) -> bool:
        return bool(self.pairs)

    def text(self, value: str) -> str:
        for secret, mark in self.pairs:
            value = value.replace(secret, mark)
        return value

    def file(self, path: Path) -> None:
        """Rewrites a file in place, line by line, so large sessions stream."""
        if not self.pairs:
            return
        fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        try:
            with (
                os.fdopen(fd, "w", encoding="utf-8") as out,
                path.open(encoding="utf-8", errors="surrogateescape") as src,
            ):
                for line in src:
                    out.write(self.text(line))
            os.replace(temp, path)
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise

    def tree(self, directory: Path) -> None:
        for path in sorted(directory.rglob("*")):
            if path.is_file():
                self.file(path)
