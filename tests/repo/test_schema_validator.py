"""The discriminator-following validator: the same verdict and the same located errors as
`jsonschema`'s own on a case's checks, each kind valid, broken and disguised, but for a value of
the wrong type inside a check (named at its field now, where the operators' branches made it an
"unknown field 'kind'"); the fast path taken for every check union of the case schema."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from evaluator.repo import documents
from evaluator.repo.documents import Diagnostics, load_document
from evaluator.repo.schema_validator import _tagged_unions, discriminated_validator
from evaluator.schema_files import load_schema

CASE_SCHEMA = load_schema("case")
CHECKS = CASE_SCHEMA["$defs"]["AssertionEntry"]["properties"]["checks"]["items"]
KINDS: dict[str, dict[str, Any]] = {
    tag: CASE_SCHEMA["$defs"][ref.removeprefix("#/$defs/")]
    for tag, ref in CHECKS["discriminator"]["mapping"].items()
}
SAMPLE = {"string": "x", "integer": 0, "number": 0.5, "boolean": True, "array": [], "object": {}}


def sample(definition: dict[str, Any]) -> Any:
    for option in [definition, *definition.get("anyOf", [])]:
        if "const" in option:
            return option["const"]
        if "enum" in option:
            return option["enum"][0]
        if option.get("type") in SAMPLE:
            return SAMPLE[option["type"]]
    return "x"


def minimal(kind: str) -> dict[str, Any]:
    """A check of `kind` with each required field of its schema given a value of its type."""
    definition = KINDS[kind]
    return {name: sample(definition["properties"][name]) for name in definition["required"]}


def broken(kind: str) -> list[dict[str, Any]]:
    check = minimal(kind)
    others = [k for k in check if k != "kind"]
    variants = [
        {**check, "colour": "red"},
        {**check, "kind": kind.upper()},
        {k: v for k, v in check.items() if k != "kind"},
        {**check, "kind": 3},
        {**check, "kind": [kind]},
        {"not": check, "kind": kind},
        {"not": {**check, "colour": 1}},
        {"any_of": [check, {**check, "kind": "nope"}]},
        {"all_of": [{"not": {k: v for k, v in check.items() if k != "kind"}}]},
    ]
    if others:
        variants.append({k: v for k, v in check.items() if k != others[0]})
    return variants


def case_with(checks: list[Any]) -> dict[str, Any]:
    return {
        "case_id": "schema-probe",
        "title": "Probe",
        "input": {"user_prompt": "Do it."},
        "assert": {"required": [{"description": "Probe.", "checks": checks}]},
    }


def messages(path: Path) -> list[str]:
    diagnostics = Diagnostics()
    load_document(path, "case", diagnostics)
    return [str(e) for e in diagnostics.errors]


DOCUMENTS: list[tuple[str, list[Any]]] = [
    ("every kind, minimal", [minimal(kind) for kind in KINDS]),
    *((f"{kind}, broken", broken(kind)) for kind in KINDS),
    ("not objects", ["file_read", 3, None, [{"kind": "file_read"}]]),
]


@pytest.mark.parametrize(("name", "checks"), DOCUMENTS, ids=[name for name, _ in DOCUMENTS])
def test_the_same_errors_as_jsonschema_alone(
    name: str, checks: list[Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "case.yaml"
    path.write_text(yaml.safe_dump(case_with(checks), sort_keys=False), encoding="utf-8")
    fast = messages(path)
    standard = jsonschema.validators.validator_for(CASE_SCHEMA)(CASE_SCHEMA)
    monkeypatch.setattr(documents, "_validator", lambda kind: standard)
    assert fast == messages(path)
    if name != "every kind, minimal":
        assert fast, "a broken check must be reported"


def test_a_value_of_the_wrong_type_in_a_check_is_named_at_its_field(tmp_path: Path) -> None:
    # `jsonschema` alone weighed the operator branches' complaints with the check's own and
    # named the tag: "checks[0].kind: unknown field 'kind'".
    path = tmp_path / "case.yaml"
    check = {"kind": "final_answer_contains", "text": {"Result": "3 passed"}}
    path.write_text(yaml.safe_dump(case_with([check]), sort_keys=False), encoding="utf-8")
    (message,) = messages(path)
    assert "checks[0].text: expected string, got dict" in message
    assert "put the whole text in quotes" in message


def test_every_check_union_of_the_case_schema_follows_its_discriminator() -> None:
    unions = _tagged_unions(CASE_SCHEMA)
    # The assertion entry's checks and the operators' `not`, `any_of`, `all_of`.
    assert len(unions) == 4
    assert all(tag == "kind" and set(indexes) == set(KINDS) for tag, indexes in unions.values())


def test_a_union_whose_branch_leaves_the_tag_open_takes_the_standard_path() -> None:
    schema: dict[str, Any] = {
        "$defs": {
            "A": {
                "type": "object",
                "properties": {"kind": {"const": "a"}},
                "required": ["kind"],
            },
            # Open: `{"kind": "a"}` matches it too, so the `oneOf` fails on two matches.
            "B": {"type": "object", "properties": {"b": {"type": "string"}}},
        },
        "oneOf": [{"$ref": "#/$defs/A"}, {"$ref": "#/$defs/B"}],
        "discriminator": {"propertyName": "kind", "mapping": {"a": "#/$defs/A"}},
    }
    assert _tagged_unions(schema) == {}
    assert not discriminated_validator(schema).is_valid({"kind": "a"})
    # Closed, but a pattern admits the tag: `{"kind": "a"}` still matches it.
    schema["$defs"]["B"] |= {"additionalProperties": False, "patternProperties": {"^k": {}}}
    assert _tagged_unions(schema) == {}
    assert not discriminated_validator(schema).is_valid({"kind": "a"})
    # Closed without it: the branch the tag names decides alone.
    del schema["$defs"]["B"]["patternProperties"]
    assert list(_tagged_unions(schema).values()) == [("kind", {"a": 0})]
    assert discriminated_validator(schema).is_valid({"kind": "a"})
