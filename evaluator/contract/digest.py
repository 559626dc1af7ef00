"""A case definition's fingerprint, so two runs can tell whether they judged the same case.

It hashes the parsed case (canonical JSON of the model), not the file's bytes: comments,
key order and formatting do not change it; a changed prompt, assertion or check does.
"""

from __future__ import annotations

import hashlib
import json

from evaluator.contract.models import Case
from evaluator.contract.titles import fingerprint_title


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
