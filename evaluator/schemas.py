"""JSON Schemas of every input file kind and run artifact, generated from the models.

Two committed copies: `schemas/` at the top of the checkout (for readers and other tools) and
`evaluator/data/schemas/` inside the package, which validation reads through `schema_files` (a
leaf: the repo loader must not import the artifact models generated here). `agentic-eval schemas export` rewrites both and
`agentic-eval schemas check` (and a test) fails when either drifts from the models.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from evaluator.artifacts.models import AttemptFile, CaseResult, Manifest
from evaluator.artifacts.trigger_files import KeptTriggerPlan, TriggerAttemptFile, TriggerRunFile
from evaluator.compare.model import Comparison
from evaluator.contract.models import Case, Evaluation, RepoConfig, Rubric, Suite, Target
from evaluator.contract.triggers import TriggerSuite
from evaluator.evaluate.model import EvaluationResult
from evaluator.interop.atif_model import Trajectory
from evaluator.interop.benchmark import Benchmark
from evaluator.interop.skill_creator import Grading
from evaluator.outputs import OUTPUT_MODELS, output_kind
from evaluator.schema_files import packaged_schema_dir, schema_file_name

__all__ = ["SCHEMA_MODELS", "drifted", "export_schemas", "packaged_schema_dir", "schema_file_name"]

SCHEMA_MODELS: dict[str, type[BaseModel]] = {
    "repo-config": RepoConfig,
    "target": Target,
    "suite": Suite,
    "case": Case,
    "rubric": Rubric,
    "evaluation": Evaluation,
    "trigger-suite": TriggerSuite,
    "manifest": Manifest,
    "case-result": CaseResult,
    "attempt": AttemptFile,
    "comparison": Comparison,
    "trigger-attempt": TriggerAttemptFile,  # case-artifacts/<id>/attempts/attempt-NN/trigger.json
    "trigger-run": TriggerRunFile,  # triggers.json
    "trigger-plan": KeptTriggerPlan,  # trigger-plan.json
    "evaluation-result": EvaluationResult,
    # other tools' formats, as we write them (docs/interop.md)
    "skill-creator-grading": Grading,
    "skill-creator-benchmark": Benchmark,
    "atif-trajectory": Trajectory,
    # what each command prints with --json (docs/cli.md), `output-error` when an error stops it
    **{output_kind(command): model for command, model in OUTPUT_MODELS.items()},
}
SCHEMA_BASE_URI = "https://agentic-eval.local/schemas/"


def _name_kinds(node: Any, defs: dict[str, Any]) -> None:
    """Checks are told apart by `kind` or by an operator key (`not:`), so pydantic writes a plain
    `oneOf`; naming each kind's branch lets validation errors name an unknown kind."""
    if isinstance(node, list):
        for item in node:
            _name_kinds(item, defs)
        return
    if not isinstance(node, dict):
        return
    branches = node.get("oneOf")
    if isinstance(branches, list) and "discriminator" not in node:
        mapping = {}
        for branch in branches:
            ref = branch.get("$ref", "") if isinstance(branch, dict) else ""
            kind = defs.get(ref.removeprefix("#/$defs/"), {}).get("properties", {}).get("kind", {})
            if "const" in kind:
                mapping[kind["const"]] = ref
        if mapping:
            node["discriminator"] = {"mapping": mapping, "propertyName": "kind"}
    for value in node.values():
        _name_kinds(value, defs)


def generate_schema(kind: str) -> dict[str, Any]:
    model = SCHEMA_MODELS[kind]
    schema = model.model_json_schema(by_alias=True, mode="validation")
    _name_kinds(schema, schema.get("$defs", {}))
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_BASE_URI + schema_file_name(kind),
        **schema,
    }


def render_schema(kind: str) -> str:
    return json.dumps(generate_schema(kind), indent=2, ensure_ascii=False, sort_keys=False) + "\n"


def export_schemas(directory: Path) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for kind in SCHEMA_MODELS:
        path = directory / schema_file_name(kind)
        path.write_text(render_schema(kind), encoding="utf-8")
        written.append(path)
    return written


def drifted(directory: Path) -> list[str]:
    """Schema kinds whose committed file differs from what the models generate now."""
    stale = []
    for kind in SCHEMA_MODELS:
        path = directory / schema_file_name(kind)
        if not path.is_file() or path.read_text(encoding="utf-8") != render_schema(kind):
            stale.append(kind)
    return stale
