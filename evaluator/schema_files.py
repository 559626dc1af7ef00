"""The committed JSON Schemas that validation reads, from inside the package.

A leaf on purpose: loading a schema needs no model, so a stage that validates input files (the
repo loader) does not pull in the later stages whose models the schemas were generated from
(`evaluator.schemas` generates them and is used by the developer commands only).
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from evaluator.errors import EnvironmentProblem

PACKAGE_SCHEMAS = ("evaluator.data", "schemas")


def schema_file_name(kind: str) -> str:
    return f"{kind}.schema.json"


def packaged_schema_dir() -> Path | None:
    """`evaluator/data/schemas/` as a directory (always one in a checkout or an unpacked wheel)."""
    candidate = Path(str(resources.files(PACKAGE_SCHEMAS[0]).joinpath(PACKAGE_SCHEMAS[1])))
    return candidate if candidate.is_dir() else None


@cache
def load_schema(kind: str) -> dict[str, Any]:
    package, folder = PACKAGE_SCHEMAS
    packaged = resources.files(package).joinpath(folder).joinpath(schema_file_name(kind))
    if not packaged.is_file():
        raise EnvironmentProblem(
            f"the installed package lacks its JSON Schema {schema_file_name(kind)}; reinstall"
            " agentic-eval (the wheel ships evaluator/data/schemas/)"
        )
    loaded: dict[str, Any] = json.loads(packaged.read_text(encoding="utf-8"))
    return loaded
