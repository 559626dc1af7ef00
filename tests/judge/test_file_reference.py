"""docs/file-reference.md documents every key of every file kind and every check kind, with an
example the models accept; it is generated from the models and must not drift."""

from __future__ import annotations

from evaluator.contract.models import OPERATORS
from evaluator.contract.reference import (
    CHECK_EXAMPLES,
    MEANINGS,
    check_kind,
    documented_models,
    leaf_check_models,
    meaning,
    render,
    validate_example,
)
from tests.conftest import ROOT


def test_every_key_has_a_meaning() -> None:
    missing = [
        f"{model.__name__}.{name}"
        for model in documented_models()
        for name in model.model_fields
        if name != "kind" and not meaning(model, name)
    ]
    assert missing == []


def test_no_meaning_names_a_field_that_does_not_exist() -> None:
    fields = {f"{m.__name__}.{n}" for m in documented_models() for n in m.model_fields}
    assert set(MEANINGS) - fields == set()


def test_every_check_kind_has_an_example_the_models_accept() -> None:
    kinds = {check_kind(m) for m in leaf_check_models()} | set(OPERATORS)
    assert set(CHECK_EXAMPLES) == kinds
    for example in CHECK_EXAMPLES.values():
        validate_example(example)


def test_the_committed_page_is_what_the_models_generate() -> None:
    page = (ROOT / "docs/file-reference.md").read_text()
    assert page == render(), "run `agentic-eval schemas export`"
    for kind in CHECK_EXAMPLES:
        assert f"### `{kind}`" in page
