"""The spill line of a record is its `to_json()`, key order included, whichever fields a call
site passes and in whichever order (the spill builds it from the values it was given: a
differential test against the general `to_json`)."""

from __future__ import annotations

import json
import random
from dataclasses import fields

from evaluator.evidence.records import EvidenceRecord, SessionEvidence
from evaluator.vocabulary import RECORD_KINDS

OPTIONAL = [f.name for f in fields(EvidenceRecord) if f.name not in ("id", "kind", "line")]
VALUES: list[object] = [None, "", "x", "/w/a b", "é\u2028", 0, 7, True, False, 1.5, (1, "a")]


def test_every_field_but_the_head_defaults_to_none() -> None:
    # What the spill's shortcut rests on: a field not passed is None.
    record = EvidenceRecord(id="msg-1", kind="tool_call", line=1)
    assert all(getattr(record, name) is None for name in OPTIONAL)


def test_the_spilled_lines_are_each_records_to_json_in_order() -> None:
    rng = random.Random(24)
    evidence = SessionEvidence(session_path="s.jsonl")
    made: list[EvidenceRecord] = []
    for line in range(1, 2000):
        names = rng.sample(OPTIONAL, rng.randrange(len(OPTIONAL) + 1))
        if rng.random() < 0.5:
            names.sort(key=OPTIONAL.index)  # in field order, as most call sites pass them
        values = {name: rng.choice(VALUES) for name in names}
        kind = rng.choice([k for k in RECORD_KINDS if k not in ("tool_call", "tool_result")])
        if kind == "command_observed":
            continue  # written from memory when read back, not spilled
        made.append(evidence.add(kind, line, **values))
    assert evidence._spill is not None
    spilled = [json.loads(raw) for raw in evidence._spill.lines()]
    for record, line in zip(made, spilled, strict=True):
        expected = json.loads(json.dumps(record.to_json()))  # a tuple reads back as a list
        assert list(line.items()) == list(expected.items())
