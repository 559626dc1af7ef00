"""Secret values (variables a case marks secret, credentials inside declared values, model
credentials) never reach `runs/`, in any encoding our artifacts can hold them.

A secret reaches an artifact raw (stdout, final answer), JSON-escaped once (a rollout line) or
twice (a command inside a function call's `arguments` string), `\\uXXXX`-escaped, or URL-encoded
(a URL the agent printed). Each form is replaced. What string matching cannot catch (the agent
re-encoding a secret: base64, reversed, split) is documented in docs/security.md.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import quote, quote_plus, unquote

MIN_SECRET_LENGTH = 4  # shorter values would redact ordinary text


def encodings(value: str) -> list[str]:
    """Every form of `value` our artifacts can contain, raw first."""
    forms = [value]
    for raw in (value, unquote(value)):
        forms.append(raw)
        once = [json.dumps(raw, ensure_ascii=ascii_only)[1:-1] for ascii_only in (False, True)]
        forms += once
        forms += [
            json.dumps(single, ensure_ascii=ascii_only)[1:-1]
            for single in once
            for ascii_only in (False, True)
        ]
        forms.append(quote(raw, safe=""))
        forms.append(quote_plus(raw, safe=""))
    unique: list[str] = []
    for form in forms:
        if form not in unique:
            unique.append(form)
    return unique


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

    def __bool__(self) -> bool:
        return bool(self.pairs)

    def text(self, value: str) -> str:
        for secret, mark in self.pairs:
            value = value.replace(secret, mark)
        return value

    def file(self, path: Path) -> None:
        """Rewrites a file in place, line by line, so large sessions stream. The rewrite is
        0600 like every artifact."""
        if not self.pairs:
            return
        fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        try:
            with (
                os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape") as out,
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
            if path.is_file() and not path.is_symlink():
                self.file(path)
