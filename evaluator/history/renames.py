"""Which recorded case ids are one case renamed, the rule `compare` follows (`renamed_cases`)
applied across a history: a case whose definition, but for its id, is that of a case recorded
only before it continues that case's history under its new id.

The ids of a target that recorded one `definition_digest` are one case renamed when they never
ran side by side: each id's last run comes before the next id's first. Two of them in one run (or
interleaved) cannot be told apart, and pair nothing, as `compare` pairs nothing when two cases
share a definition. Rows recorded without a digest (older runs, other evaluators') name no rename
but follow their id's."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from itertools import pairwise
from typing import Any

# (started_at, run_id): the order the history reads runs in.
RunKey = tuple[str, str]


def renamed_cases(rows: Iterable[Mapping[str, Any]]) -> dict[tuple[str, str], str]:
    """(target, old id) → the id its history continues under, for every rename followed."""
    spans: dict[tuple[str, str], tuple[RunKey, RunKey]] = {}
    sharing: dict[tuple[str, str], set[str]] = {}
    for row in rows:
        target, case = row["target_id"], row["case_id"]
        key: RunKey = (row["started_at"] or "", row["run_id"])
        first, last = spans.get((target, case), (key, key))
        spans[(target, case)] = (min(first, key), max(last, key))
        if row["definition_digest"]:
            sharing.setdefault((target, row["definition_digest"]), set()).add(case)
    successors: dict[tuple[str, str], set[str]] = {}
    for (target, _digest), ids in sharing.items():
        ordered = sorted(ids, key=lambda case: spans[(target, case)])
        in_order = [spans[(target, case)] for case in ordered]
        if len(ordered) < 2 or any(earlier[1] >= later[0] for earlier, later in pairwise(in_order)):
            continue
        for old in ordered[:-1]:
            successors.setdefault((target, old), set()).add(ordered[-1])
    # An id continued under two different ids (through two definitions) is not followed.
    direct = {old: next(iter(new)) for old, new in successors.items() if len(new) == 1}
    followed: dict[tuple[str, str], str] = {}
    for (target, old), new in direct.items():
        # A → B → C (renamed twice, edited between): A's history continues under C. Spans
        # strictly increase along the chain, so it ends.
        while (target, new) in direct:
            new = direct[(target, new)]
        followed[(target, old)] = new
    return followed
