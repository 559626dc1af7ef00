"""A JSON Schema validator that follows a `oneOf`'s discriminator.

pydantic writes a tagged union (a case's checks: 22 branches) as `oneOf` plus an OpenAPI
`discriminator` that JSON Schema validators ignore: `jsonschema` validates every check against
all 22 branches, most of `validate`'s time on a repo of cases. Where each tagged branch fixes
the tag to its own constant (the tag required, `const` its mapping key) and each untagged one
(an operator: `not`, `any_of`) is closed without the tag, a value whose tag names a branch can
match no other one, so validating that branch alone decides the `oneOf` exactly; the
error is the `oneOf` error `jsonschema` gives, its context the chosen branch's errors (the ones
`documents._branch_error` picks from the full context). Any other value (not an object, no tag,
a tag no branch has) and any `oneOf` whose branches do not meet that rule take the standard path.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import jsonschema
from jsonschema.exceptions import ValidationError


def discriminated_validator(schema: dict[str, Any]) -> jsonschema.protocols.Validator:
    """The validator `jsonschema` picks for `schema`, its `oneOf` following the discriminator of
    every tagged union that meets the module's rule."""
    base = jsonschema.validators.validator_for(schema)
    standard_one_of = base.VALIDATORS["oneOf"]
    # id() of each `oneOf` list that qualifies -> (tag property, tag value -> branch index).
    # The schema is held by the validator for its lifetime, so the lists (and ids) stay alive.
    tagged = _tagged_unions(schema)

    def one_of(
        validator: Any, branches: list[Any], instance: Any, parent: dict[str, Any]
    ) -> Iterator[ValidationError]:
        union = tagged.get(id(branches))
        tag = instance.get(union[0]) if union is not None and isinstance(instance, dict) else None
        index = union[1].get(tag) if union is not None and isinstance(tag, str) else None
        if index is None:
            yield from standard_one_of(validator, branches, instance, parent)
            return
        errors = list(validator.descend(instance, branches[index], schema_path=index))
        if errors:
            yield ValidationError(
                f"{instance!r} is not valid under any of the given schemas", context=errors
            )

    # (types-jsonschema leaves `extend` untyped; it returns a validator class like `base`.)
    extended = jsonschema.validators.extend(  # type: ignore[no-untyped-call]
        base, validators={"oneOf": one_of}
    )
    validator: jsonschema.protocols.Validator = extended(schema)
    return validator


def _tagged_unions(schema: dict[str, Any]) -> dict[int, tuple[str, dict[str, int]]]:
    found: dict[int, tuple[str, dict[str, int]]] = {}
    definitions = schema.get("$defs", {})
    for node in _nodes(schema):
        branches = node.get("oneOf")
        discriminator = node.get("discriminator")
        if not isinstance(branches, list) or not isinstance(discriminator, dict):
            continue
        tag = discriminator.get("propertyName")
        mapping = discriminator.get("mapping")
        if not isinstance(tag, str) or not isinstance(mapping, dict):
            continue
        indexes = _branch_indexes(branches, tag, mapping, definitions)
        if indexes is not None:
            found[id(branches)] = (tag, indexes)
    return found


def _branch_indexes(
    branches: list[Any], tag: str, mapping: dict[str, Any], definitions: dict[str, Any]
) -> dict[str, int] | None:
    """Tag value -> index of its branch, when every branch is a `$ref` to a definition that
    either requires `tag` and fixes it to its mapping key alone, or is closed
    (`additionalProperties: false`, no pattern properties) without a `tag` property (an operator such as `not`, which
    no value carrying the tag can match); else None (the standard `oneOf` applies)."""
    refs = [b.get("$ref") if isinstance(b, dict) and len(b) == 1 else None for b in branches]
    if not all(isinstance(ref, str) for ref in refs) or len(set(refs)) != len(refs):
        return None
    tag_of = {ref: value for value, ref in mapping.items()}
    if len(tag_of) != len(mapping) or not set(tag_of) <= set(refs):
        return None
    indexes: dict[str, int] = {}
    for index, ref in enumerate(refs):
        definition = _definition(ref, definitions)
        if definition is None:
            return None
        properties = definition.get("properties", {})
        if ref not in tag_of:
            # Closed to the tag: no property, no pattern that could admit it.
            closed = definition.get("additionalProperties") is False
            if not closed or tag in properties or "patternProperties" in definition:
                return None
            continue
        fixed = properties.get(tag)
        if tag not in definition.get("required", ()) or not isinstance(fixed, dict):
            return None
        if "const" not in fixed or fixed["const"] != tag_of[ref]:
            return None
        indexes[tag_of[ref]] = index
    return indexes


def _definition(ref: object, definitions: dict[str, Any]) -> dict[str, Any] | None:
    name = ref.removeprefix("#/$defs/") if isinstance(ref, str) else ""
    definition = definitions.get(name) if name and name != ref else None
    return definition if isinstance(definition, dict) else None


def _nodes(value: Any) -> Iterator[dict[str, Any]]:
    stack = [value]
    while stack:
        current = stack.pop()
        if isinstance(current, dict):
            yield current
            stack.extend(current.values())
        elif isinstance(current, list):
            stack.extend(current)
