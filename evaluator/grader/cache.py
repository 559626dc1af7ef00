"""Judge replies on disk, keyed by what produced them, so re-judging a saved run asks no model.

The key is (backend, model, prompt hash, evidence hash, answer-schema hash): the same question
about the same evidence gets the same reply. Only replies are cached; a timeout or an outage is
asked again next time.
"""

from __future__ import annotations

import hashlib
import json
import os
import uuid
from pathlib import Path
from typing import Any


def cache_key(
    *, backend: str, model: str, prompt_hash: str, evidence_hash: str, schema_hash: str
) -> str:
    identity = {
        "backend": backend,
        "model": model,
        "prompt": prompt_hash,
        "evidence": evidence_hash,
        "schema": schema_hash,
    }
    return hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()


class ReplyCache:
    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def _path(self, key: str) -> Path:
        return self.directory / f"{key}.json"

    def get(self, key: str) -> str | None:
        try:
            data: Any = json.loads(self._path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        raw = data.get("raw") if isinstance(data, dict) else None
        return raw if isinstance(raw, str) else None

    def put(self, key: str, raw: str, about: dict[str, str]) -> None:
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            temp = self.directory / f".{key}.{uuid.uuid4().hex[:8]}.tmp"
            temp.write_text(
                json.dumps({"key": key, **about, "raw": raw}, indent=1), encoding="utf-8"
            )
            os.replace(temp, self._path(key))
        except OSError:
            return  # a cache that cannot be written only costs a model call next time
