"""Read one eval-repo YAML file: jsonschema against `schemas/`, then the typed model."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Generic, TypeVar

import jsonschema
from jsonschema.exceptions import ValidationError as SchemaError
from jsonschema.exceptions import best_match
from pydantic import BaseModel

from evaluator.contract.models import (
    OPERATORS,
    Case,
    Evaluation,
    RepoConfig,
    Rubric,
    Suite,
    Target,
    unknown_fields,
)
from evaluator.contract.parse import (
    colon_hint,
    misspelt_required,
    misspelt_required_message,
    parse_document,
    type_name,
    unknown_key_message,
)
from evaluator.contract.triggers import TriggerSuite
from evaluator.errors import InputError
from evaluator.repo.schema_validator import discriminated_validator
from evaluator.safepath import id_problem
from evaluator.schema_files import load_schema
from evaluator.yamlsource import PathKey, YamlDocument, load_yaml

ModelT = TypeVar("ModelT", bound=BaseModel)
# The eval-repo file kinds, each validated against its committed schema, then its model.
INPUT_MODELS: dict[str, type[BaseModel]] = {
    "repo-config": RepoConfig,
    "target": Target,
    "suite": Suite,
    "case": Case,
    "rubric": Rubric,
    "evaluation": Evaluation,
    "trigger-suite": TriggerSuite,
}


@dataclass
class Diagnostics:
    errors: list[InputError] = field(default_factory=list)
    warnings: list[InputError] = field(default_factory=list)

    def error(self, problem: InputError) -> None:
        self.errors.append(problem)

    def warn(self, problem: InputError) -> None:
        self.warnings.append(problem)

    def extend(self, other: Diagnostics) -> None:
        self.errors.extend(other.errors)
        self.warnings.extend(other.warnings)


@dataclass
class Loaded(Generic[ModelT]):
    path: Path
    doc: YamlDocument
    model: ModelT


@cache
def _validator(kind: str) -> jsonschema.protocols.Validator:
    return discriminated_validator(load_schema(kind))


def _describe(error: SchemaError) -> tuple[PathKey, str, bool]:
    """The error's place, its message, and whether it is located at a key (not a value)."""
    path: PathKey = tuple(error.absolute_path)
    validator = error.validator
    if validator == "required":
        missing = error.message.split("'")[1] if "'" in error.message else "?"
        known = error.schema.get("properties", {}) if isinstance(error.schema, dict) else {}
        present = error.instance if isinstance(error.instance, dict) else {}
        stray = misspelt_required(missing, present, known)
        if stray is not None:
            return (*path, stray), misspelt_required_message(stray, missing), True
        return (*path, missing), "required field is missing", False
    path, message = _describe_value(error, path)
    return path, message, validator == "additionalProperties"


def number_text_hint(error: SchemaError) -> str:
    """For a number written so that YAML reads text (`1e12`: YAML 1.1 takes an exponent only
    with a dot and a sign, `1.0e+12`; or quoted, `"300"`): the text, and how to write it."""
    expected = error.validator_value
    wanted = set(expected) if isinstance(expected, list) else {expected}
    if not wanted & {"number", "integer"} or not isinstance(error.instance, str):
        return ""
    try:
        float(error.instance)
    except ValueError:
        return ""
    return (
        f" ({error.instance!r} is text to YAML: write the number unquoted, an exponent with a"
        " dot and a sign, 1.0e+3)"
    )


def _describe_value(error: SchemaError, path: PathKey) -> tuple[PathKey, str]:
    validator = error.validator
    if validator == "type":
        expected = error.validator_value
        expected_text = " or ".join(expected) if isinstance(expected, list) else str(expected)
        hint = colon_hint(error.instance) if expected == "string" else number_text_hint(error)
        return path, f"expected {expected_text}, got {type_name(error.instance)}{hint}"
    if validator == "minLength":
        return path, "must not be empty"
    if validator == "minItems":
        return path, "must not be an empty list"
    if validator in ("enum", "const"):
        value = error.validator_value
        allowed = list(value) if validator == "enum" and isinstance(value, list) else [value]
        return path, f"must be one of {', '.join(map(str, allowed))} (got {error.instance!r})"
    if validator == "discriminator":
        return path, error.message
    if validator == "additionalProperties":
        allowed = error.schema.get("properties", {}) if isinstance(error.schema, dict) else {}
        extras = (
            sorted(set(error.instance) - set(allowed)) if isinstance(error.instance, dict) else []
        )
        if extras:
            return (*path, extras[0]), unknown_key_message(str(extras[0]), allowed)
        return path, error.message
    if validator == "pattern" and isinstance(error.instance, str):
        return path, id_problem(error.instance) or error.message
    if validator in ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"):
        return path, f"{error.instance!r} is out of range ({validator} {error.validator_value})"
    message = error.message if len(error.message) < 160 else error.message[:157] + "..."
    return path, message


def _branch_error(error: SchemaError) -> SchemaError:
    """The most telling error inside an anyOf/oneOf: the branch the value was meant for."""
    context = list(error.context or [])
    discriminator = error.schema.get("discriminator") if isinstance(error.schema, dict) else None
    # A `not`/`any_of`/`all_of` operator has no `kind`; the telling errors are inside it.
    operator = isinstance(error.instance, dict) and bool(set(OPERATORS) & error.instance.keys())
    if operator:
        inside = [e for e in context if e.relative_path and e.relative_path[0] in OPERATORS]
        context = inside or context
    if discriminator and isinstance(error.instance, dict) and not operator:
        prop = discriminator.get("propertyName", "kind")
        value = error.instance.get(prop)
        allowed = sorted(discriminator.get("mapping", {}))
        if value not in allowed:
            return SchemaError(
                f"must be one of {', '.join(allowed)} (got {value!r})",
                validator="discriminator",
                path=[*error.path, prop],
                instance=value,
            )
        wrong_branches = {
            e.relative_schema_path[0]
            for e in context
            if e.validator == "const" and list(e.relative_path) == [prop]
        }
        context = [e for e in context if e.relative_schema_path[0] not in wrong_branches]
    # A branch that failed only on the value's type (e.g. `null` in Optional) tells nothing.
    telling = [e for e in context if not (e.validator == "type" and not list(e.relative_path))]
    chosen = best_match(telling or context)
    return chosen if chosen is not None else error


def _schema_errors(kind: str, doc: YamlDocument) -> list[InputError]:
    found: list[InputError] = []
    named: set[PathKey] = set()
    for error in sorted(
        # A `required` error first: it names a misspelt key better than `additionalProperties`.
        _validator(kind).iter_errors(doc.data),
        key=lambda e: (list(map(str, e.path)), e.validator != "required"),
    ):
        while error.context:
            inner = _branch_error(error)
            if inner is error:
                break
            error = inner
        path, message, at_key = _describe(error)
        if at_key and path in named:
            continue  # a misspelt required key, already named with what it should be
        if at_key:
            named.add(path)
            found.append(doc.key_error(path, message))
        else:
            found.append(doc.error(path, message))
    return found


FREE_FORM_SETUP = (
    "a free-form setup fact this evaluator cannot reproduce: each attempt of the case is blocked"
    " (environment) without starting the agent; state the workspace with `write_files`,"
    " `remove_paths` or `copy_fixtures` to have it run"
)
# How close an unknown `setup` key must be to a known one to be its typo (`copy_fixture`,
# `docs_index_presnt`: 0.96, 0.97) rather than a fact of its own (`changes_file_present` is 0.68
# from `docs_index_present`, and no misspelling of it).
SETUP_TYPO_CUTOFF = 0.85


def near_miss(key: object, known: Iterable[str]) -> bool:
    return bool(
        isinstance(key, str)
        and difflib.get_close_matches(key, sorted(set(known)), n=1, cutoff=SETUP_TYPO_CUTOFF)
    )


def load_document(
    path: Path, kind: str, diagnostics: Diagnostics, *, lenient: bool = False
) -> Loaded[Any] | None:
    """Loads and validates one file; problems go to `diagnostics`, None if it is unusable.

    A key outside the known shape is an error (with a did-you-mean), a warning under `lenient`
    (repos written for other evaluators). In a case's `setup` a key of its own (the public
    contract's free-form facts) is a warning and blocks the case's attempts at run time; a
    near miss of a known key, or an unknown key inside one of ours, is an error."""
    model_type = INPUT_MODELS[kind]
    try:
        doc = load_yaml(path)
    except InputError as exc:
        diagnostics.error(exc)
        return None
    if not isinstance(doc.data, dict):
        diagnostics.error(
            doc.error((), f"expected a mapping at the top of the file, got {type_name(doc.data)}")
        )
        return None
    problems = _schema_errors(kind, doc)
    if problems:
        for problem in problems:
            diagnostics.error(problem)
        return None
    try:
        model = parse_document(model_type, doc)
    except InputError as exc:
        diagnostics.error(exc)
        return None
    for key, known in unknown_fields(model):
        message = unknown_key_message(str(key[-1]), known)
        if kind == "case" and len(key) == 2 and key[0] == "setup" and not near_miss(key[1], known):
            # The public contract's `setup` is free-form (boolean facts about the workspace):
            # the case loads, and each attempt records the fact as not reproduced, so no agent
            # is started and the case is blocked (environment), never judged on a wrong setup.
            diagnostics.warn(doc.key_error(key, FREE_FORM_SETUP))
        elif kind == "case" and key[:1] == ("setup",):
            diagnostics.error(
                doc.key_error(key, f"{message}: this evaluator cannot apply that setup")
            )
        elif lenient:
            diagnostics.warn(doc.key_error(key, f"{message}; ignored (--lenient)"))
        else:
            diagnostics.error(doc.key_error(key, f"{message} (--lenient makes it a warning)"))
    return Loaded(path=path, doc=doc, model=model)
