"""Check registry: each check kind of the case schema has exactly one implementation."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from evaluator.judge.base import JudgeContext
from evaluator.judge.verdict import CheckVerdict

CheckFn = Callable[[Any, JudgeContext], CheckVerdict]
F = TypeVar("F", bound=CheckFn)
CHECKS: dict[str, CheckFn] = {}


def register_check(kind: str) -> Callable[[F], F]:
    def decorate(fn: F) -> F:
        if kind in CHECKS:
            raise ValueError(f"check {kind!r} registered twice")
        CHECKS[kind] = fn
        return fn

    return decorate
