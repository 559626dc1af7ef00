"""A case definition's fingerprint, so two runs can tell whether they judged the same case.

It hashes the parsed case (canonical JSON of the model), not the file's bytes: comments,
key order and formatting do not change it; a changed prompt, assertion or check does.

`judged_digest` is the fingerprint of what is judged, whatever the file's dialect: the case in a
normal form (no id, title, notes or split; no empty field) with each copied fixture as its
workspace path and content, not the place it is kept. A skill-creator `evals.json` and the YAML
`convert` writes from it hold the same one (docs/coming-from-skill-creator.md); `compare` reads
it when both runs recorded it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping

from evaluator.contract.models import Case
from evaluator.contract.titles import fingerprint_title

# What a case's text holds that is not judged: its name, its title, the notes for whoever fixes
# the skill, the split it is listed in (docs/skillopt.md).
_NOT_JUDGED = ("case_id", "title", "notes", "split")


def case_digest(case: Case, *, with_id: bool = True) -> str:
    """`with_id=False`: the definition without its `case_id`, the same for a case renamed and
    otherwise unchanged (how `compare` follows a rename)."""
    fields = case.model_dump(mode="json", by_alias=True)
    # A title made from the prompt keeps the fingerprint of its older cut (contract/titles.py).
    fields["title"] = fingerprint_title(case.title, case.input.user_prompt)
    if not with_id:
        fields.pop("case_id", None)
    if fields.get("needs") is None:
        # Added later: a case that states no needs keeps the digest it always had.
        fields.pop("needs", None)
    setup = fields.get("setup")
    if isinstance(setup, dict) and setup.get("git") is None:
        # Added in session 17: a case without a git setup keeps its digest too.
        setup.pop("git", None)
    canonical = json.dumps(fields, sort_keys=True, ensure_ascii=False)
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def judged_digest(case: Case, fixtures: Mapping[str, str]) -> str:
    """The fingerprint of what `case` judges; `fixtures`: each `copy_fixtures` target's content
    digest (`workspace.provenance.fixture_digest`), which stands for its source."""
    fields = case.model_dump(mode="json", by_alias=True, exclude_none=True)
    for name in _NOT_JUDGED:
        fields.pop(name, None)
    setup = fields.get("setup")
    if isinstance(setup, dict) and setup.get("copy_fixtures"):
        placed = [copy["target"] for copy in setup["copy_fixtures"]]
        setup["copy_fixtures"] = [
            {"target": where, "content": fixtures.get(where)} for where in sorted(placed)
        ]
    canonical = json.dumps(_normal(fields), sort_keys=True, ensure_ascii=False)
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _normal(value: object) -> object:
    """`value` without its empty fields (None, `[]`, `{}`): a dialect that writes an empty
    default out and one that leaves it off are the same case."""
    if isinstance(value, dict):
        kept = {k: _normal(v) for k, v in value.items()}
        return {k: v for k, v in kept.items() if v not in (None, [], {})}
    if isinstance(value, list):
        return [_normal(v) for v in value]
    return value
