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


def misspelt_required(missing: str, present: Iterable[object], known: Iterable[str]) -> str | None:
    """The key of the mapping that is a near miss of a required key it lacks (`asserts` for
    `assert`), when that key is itself unknown: the typo is what to show, at its own line,
    rather than the missing key at the mapping's start."""
    known_set = set(known)
    strays = sorted(k for k in present if isinstance(k, str) and k not in known_set)
    close = difflib.get_close_matches(missing, strays, n=1, cutoff=0.6)
    return close[0] if close else None


def misspelt_required_message(stray: str, missing: str) -> str:
    return f"unknown field {stray!r} (did you mean {missing!r}?): {missing!r} is required"


def colon_hint(found: object) -> str:
    """A text written unquoted with `: ` inside (``mentions `Linted: ok`.``) is a one-key mapping
    to YAML: say so, and how to keep it a string (empty for any other value)."""
    if not isinstance(found, dict) or len(found) != 1:
        return ""
    key, value = next(iter(found.items()))
    text = f"{key}: {value}" if value is not None else f"{key}:"
    shown = text if len(text) <= 80 else text[:77] + "..."
    return f" (YAML read {shown!r} as a mapping at its ': '; put the whole text in quotes)"


def _message(error: dict[str, object], known_keys: Iterable[str]) -> str:
    kind = error.get("type")
    msg = str(error.get("msg", "invalid value"))
    if kind == "string_type":
        return msg + colon_hint(error.get("input"))
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
    raw = exc.errors()
    extras = {
        _clean_loc(tuple(e["loc"])) for e in raw if e.get("type") == "extra_forbidden" and e["loc"]
    }
    merged: set[PathKey] = set()
    errors: list[InputError] = []
    for error in raw:
        key = _clean_loc(tuple(error["loc"]))
        if error.get("type") == "missing" and key and isinstance(key[-1], str):
            parent = key[:-1]
            siblings = [
                k[-1] for k in extras if k[:-1] == parent and (*parent, k[-1]) not in merged
            ]
            stray = misspelt_required(key[-1], siblings, ())
            if stray is not None:
                merged.add((*parent, stray))
                errors.append(
                    doc.key_error((*parent, stray), misspelt_required_message(stray, key[-1]))
                )
                continue
        if key in merged:
            continue
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
