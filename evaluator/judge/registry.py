"""Entry judges, asked in order: the first that can decide an entry decides it."""

from __future__ import annotations

from typing import TypeVar

from evaluator.judge.base import EntryJudge

J = TypeVar("J", bound=type)
JUDGES: list[EntryJudge] = []


def register_judge(cls: J) -> J:
    JUDGES.append(cls())
    return cls


def judge_names() -> list[str]:
    return [judge.name for judge in JUDGES]
