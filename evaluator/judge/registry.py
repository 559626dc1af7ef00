"""Entry judges by name. The order they are asked in is the chain's (`judge/chain.py`), never
the order modules happen to be imported in."""

from __future__ import annotations

from typing import TypeVar

from evaluator.judge.base import EntryJudge

J = TypeVar("J", bound=type)
JUDGES: dict[str, EntryJudge] = {}


def register_judge(cls: J) -> J:
    judge: EntryJudge = cls()
    if judge.name in JUDGES:
        raise ValueError(f"judge {judge.name!r} registered twice")
    JUDGES[judge.name] = judge
    return cls


def get_judge(name: str) -> EntryJudge:
    return JUDGES[name]
