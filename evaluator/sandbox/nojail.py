"""`none`: the agent runs as a plain child process (only the agent CLI's own sandbox applies)."""

from __future__ import annotations

from evaluator.sandbox.base import Jail, JailSpec
from evaluator.sandbox.registry import register_jail


@register_jail("none")
class NoJail(Jail):
    def unavailable(self) -> str | None:
        return None

    def wrap(self, argv: list[str], spec: JailSpec) -> list[str]:
        return list(argv)
