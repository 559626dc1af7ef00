"""Stable train/val/test splits: a case keeps its split however the suite grows."""

from __future__ import annotations

import hashlib

from evaluator.contract.models import SplitSettings
from evaluator.plan.selection import Selection
from evaluator.repo import LoadedCase
from evaluator.vocabulary import Split

BUCKETS = 10_000


def case_split(case: LoadedCase, settings: SplitSettings) -> Split:
    """The case's explicit `split:`, else a hash bucket of `<target>/<suite>/<case>` and the seed.

    Each case is hashed on its own (unlike a seeded shuffle of the whole list), so adding or
    removing a case never moves another one."""
    if case.case.split is not None:
        return case.case.split
    key = f"{settings.seed}:{case.target_id}/{case.suite_id}/{case.case_id}"
    bucket = int(hashlib.sha256(key.encode("utf-8")).hexdigest(), 16) % BUCKETS
    if bucket < round(settings.val_fraction * BUCKETS):
        return "val"
    if bucket < round((settings.val_fraction + settings.test_fraction) * BUCKETS):
        return "test"
    return "train"


def filter_split(selection: Selection, split: Split | None, settings: SplitSettings) -> Selection:
    """The selection narrowed to one split (None keeps every case)."""
    if split is None:
        return selection
    cases = [c for c in selection.cases if case_split(c, settings) == split]
    suites = [s for s in selection.suite_ids if any(c.suite_id == s for c in cases)]
    return Selection(selection.target, suites, cases, selection.explicit_case_ids)
