"""Turn pydantic validation errors on YAML documents into located one-line input errors."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from evaluator.errors import InputError
from evaluator.yamlsource import PathKey, YamlDocument

ModelT = TypeVar("ModelT", bound=BaseModel)


def _clean_loc(loc: tuple[int | str, ...]) -> PathKey:
    # Pydantic inserts union-member and validator names into locations; keep only data keys.
    out: list[str | int] = []
    for part in loc:
        if isinstance(part, str) and (part.startswith("function-") or "[" in part):
            continue
        out.append(part)
    return tuple(out)


def did_you_mean(word: str, known: Iterable[str]) -> str:
    """` (did you mean 'x'?)` for the closest known key, or nothing when none is close."""
    close = difflib.get_close_matches(word, sorted(set(known)), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def unknown_key_message(key: str, known: Iterable[str]) -> str:
    return f"unknown field {key!r}{did_you_mean(key, known)}"


def _message(error: dict[str, object], known_keys: Iterable[str]) -> str:
    kind = error.get("type")
    msg = str(error.get("msg", "invalid value"))
    if kind == "missing":
        return "required field is missing"
    if kind == "extra_forbidden":
        loc = error.get("loc")
        key = loc[-1] if isinstance(loc, tuple) and loc else "?"
        return unknown_key_message(str(key), known_keys)
    return msg.removeprefix("Value error, ")


def validation_error_to_input_error(
    exc: ValidationError, doc: YamlDocument, known_keys: Iterable[str] = ()
) -> InputError:
    """The first error, located; pydantic orders errors by field order, which reads naturally."""
    return validation_errors(exc, doc, known_keys)[0]


def validation_errors(
    exc: ValidationError, doc: YamlDocument, known_keys: Iterable[str] = ()
) -> list[InputError]:
    """`known_keys`: the vocabulary an unknown key is compared with for a did-you-mean."""
    known = list(known_keys)
    errors: list[InputError] = []
    for error in exc.errors():
        key = _clean_loc(tuple(error["loc"]))
        if error.get("type") == "extra_forbidden":
            errors.append(doc.key_error(key, _message(dict(error), known)))
        else:
            errors.append(doc.error(key, _message(dict(error), known)))
    return errors


def parse_document(model: type[ModelT], doc: YamlDocument) -> ModelT:
    if not isinstance(doc.data, dict):
        raise doc.error((), f"expected a mapping at the top of the file, got {type_name(doc.data)}")
    try:
        return model.model_validate(doc.data)
    except ValidationError as exc:
        raise validation_error_to_input_error(exc, doc) from None


def type_name(value: object) -> str:
    if value is None:
        return "nothing"
    return {
        list: "a list",
        str: "a string",
        int: "a number",
        float: "a number",
        bool: "a boolean",
    }.get(type(value), type(value).__name__)
