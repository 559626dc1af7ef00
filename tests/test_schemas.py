"""The committed JSON Schemas match the models, and validate real files with plain jsonschema."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import jsonschema
import yaml

from evaluator.schemas import SCHEMA_MODELS, drifted, export_schemas, schema_file_name
from tests.conftest import ROOT

SCHEMAS = ROOT / "schemas"


def test_committed_schemas_match_the_models() -> None:
    assert drifted(SCHEMAS) == [], "run `agentic-eval schemas export` and commit schemas/"


def test_drift_is_detected(tmp_path: Path) -> None:
    copy = tmp_path / "schemas"
    shutil.copytree(SCHEMAS, copy)
    case_schema = copy / schema_file_name("case")
    data = json.loads(case_schema.read_text())
    data["required"] = ["case_id"]
    case_schema.write_text(json.dumps(data))
    (copy / schema_file_name("suite")).unlink()
    assert drifted(copy) == ["suite", "case"]
    export_schemas(copy)
    assert drifted(copy) == []


def test_every_file_kind_has_a_committed_schema() -> None:
    assert sorted(p.name for p in SCHEMAS.glob("*.schema.json")) == sorted(
        schema_file_name(kind) for kind in SCHEMA_MODELS
    )


def test_demo_files_validate_with_plain_jsonschema() -> None:
    validators: dict[str, jsonschema.protocols.Validator] = {}

    def check(kind: str, path: Path) -> None:
        # what jsonschema.validate does, with each schema checked once rather than per file
        if kind not in validators:
            schema = json.loads((SCHEMAS / schema_file_name(kind)).read_text())
            validator_class = jsonschema.validators.validator_for(schema)
            validator_class.check_schema(schema)
            validators[kind] = validator_class(schema)
        validators[kind].validate(yaml.safe_load(path.read_text()))

    target_dir = ROOT / "agentic-evals/targets/db-migrations"
    check("target", target_dir / "target.yaml")
    suites = list(target_dir.glob("cases/*/suite.yaml"))
    assert len(suites) == 3
    for suite in suites:
        check("suite", suite)
        for case in suite.parent.glob("*.yaml"):
            if case.name != "suite.yaml":
                check("case", case)
    upstream = ROOT / "tests/fixtures/upstream/agentic-evals"
    check("rubric", upstream / "rubrics/answer-quality.yaml")
    check("evaluation", upstream / "evaluations/ab/skill-v1-vs-v2.yaml")


def test_schema_rejects_what_the_models_reject() -> None:
    schema = json.loads((SCHEMAS / schema_file_name("case")).read_text())
    bad = {"case_id": "x", "title": "t", "input": {"user_prompt": ""}, "assert": {}}
    errors = list(jsonschema.Draft202012Validator(schema).iter_errors(bad))
    assert [list(e.path) for e in errors] == [["input", "user_prompt"]]


def test_trigger_run_artifacts_validate_with_plain_jsonschema() -> None:
    """`trigger.json` and `triggers.json` written by real trigger runs (Codex against the
    scripted model: a prompt that fired, one left undecided, a suspect run) match their
    schemas; the pipeline writes both through the same models."""
    artifacts = ROOT / "tests/fixtures/trigger-run/artifacts"
    kinds = {"trigger.json": "trigger-attempt", "triggers.json": "trigger-run"}
    checked = []
    for path in sorted(artifacts.glob("*.json")):
        kind = kinds[path.name.split(".", 1)[1]]
        schema = json.loads((SCHEMAS / schema_file_name(kind)).read_text())
        jsonschema.Draft202012Validator.check_schema(schema)
        jsonschema.Draft202012Validator(schema).validate(json.loads(path.read_text()))
        checked.append(kind)
    assert sorted(checked) == ["trigger-attempt"] * 2 + ["trigger-run"] * 2
    schema = json.loads((SCHEMAS / schema_file_name("trigger-run")).read_text())
    broken = json.loads((artifacts / "suspect.triggers.json").read_text())
    broken["suspect"]["kind"] = "some-fired"
    broken["over_prompts"]["f1"] = "high"
    errors = list(jsonschema.Draft202012Validator(schema).iter_errors(broken))
    # (a wrong suspect kind fails the `anyOf` of the flag and null, so it is named at `suspect`)
    assert sorted(list(e.path) for e in errors) == [["over_prompts", "f1"], ["suspect"]]
