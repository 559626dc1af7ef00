"""Which attempts may run at the same time: only attempts that were given the same skill.

The variants of an evaluation run through one executor. Two attempts running at once on one
host share what the jail does not separate: the network namespace (loopback), the kernel's
other shared state. A with-skill attempt can then hand the skill to a no-skill one, and the
baseline need not show it: a program of its own listens, takes the skill and uses it silently
(red team 16; round 15 closed only the baseline that connects out, or prints what it got). Two
versions of a skill are the same case: an attempt of one can hand its SKILL.md to an attempt
of the other, which is then measured with both (red team 17). No layer can see every such
channel; keeping attempts given different skills apart in time closes them all. The queue's
order (the variants interleaved, so that drift hits each alike) is kept in turns of at most
`workers` attempts of one kind: a turn ends when its attempts have ended. With one kind of
attempt only (a plain run, an A/A pair of the same skill) nothing changes.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

T = TypeVar("T")


class Turns(Generic[T]):
    """`kind_of(item)`: the item's kind, the skill its attempt is given (items of one kind may
    run together; any two kinds never do)."""

    def __init__(self, workers: int, kind_of: Callable[[T], Hashable]) -> None:
        self.workers = max(1, workers)
        self.kind_of = kind_of
        self.kind: Hashable = None  # the kind of the attempts running now
        self.started = 0  # attempts started in this turn

    def take(self, waiting: deque[T], running: int) -> T | None:
        """The next item to start, taken out of `waiting`; None while it must wait for the
        running attempts to end (`running`: how many run now)."""
        if not waiting or running >= self.workers:
            return None
        if running == 0:
            self.kind, self.started = self.kind_of(waiting[0]), 0
        other_waits = any(self.kind_of(item) != self.kind for item in waiting)
        if other_waits and self.started >= self.workers:
            return None  # the other kind's turn, once these have ended
        for index, item in enumerate(waiting):
            if self.kind_of(item) == self.kind:
                del waiting[index]
                self.started += 1
                return item
        return None
