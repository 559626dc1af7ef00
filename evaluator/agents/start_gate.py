"""At most one agent CLI starting per two cores at a time, more while the CPU has room.

An agent's start-up is a burst of CPU (Codex: its native binary, its state database, the OS
probes it runs; Claude Code and Gemini CLI: node loading a large bundle) before its first model
request, after which it mostly waits on the model. Attempts that start together on fewer cores
than agents share those cores, and every one of them reaches its first request late; when the
attempts are alike they then stay in step, finish together and start the next wave together
again (docs/benchmarks.md, "Parallel runs"). The gate lets `slots` agents be in their start-up
at once (half the usable cores, at least one: the other half stays with the agents already past
their start-up, whose tool calls and exits would otherwise queue behind it), and one more at a
time, up to one per core, while no task has waited for a CPU since the last start
(`QUIET_WINDOW_S`, the kernel's CPU pressure): a run's first wave, where nothing else needs the
cores, starts twice as fast on two cores. An agent holds a slot from its spawn until its first
output (every supported CLI writes its first event when it has started), its exit, or
`HOLD_MAX_S`, whichever comes first. With no more workers than slots the gate never makes an
attempt wait.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable

HOLD_MAX_S = 5.0  # an agent silent this long after its spawn no longer counts as starting
POLL_S = 0.005
# One more start beyond `slots` once no task has waited for a CPU for this long since the last
# start (a start's own first CPU use comes within a few milliseconds of its spawn).
QUIET_WINDOW_S = 0.02
QUIET_STALL_US = 200  # waiting for a CPU in the window below this (1% of it) is no pressure
CPU_PRESSURE = "/proc/pressure/cpu"


def usable_cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def default_slots() -> int:
    """Half the usable cores, at least one: on two cores one slot gave 1.16x of the physical
    limit at 8 workers against 1.19x for one per core, 15 interleaved rounds in two runs
    (docs/benchmarks.md, "sixteenth session")."""
    return max(1, usable_cores() // 2)


def cpu_stall_us() -> int | None:
    """Microseconds, since boot, in which at least one task was ready to run and waited for a
    CPU (pressure stall information: `some total`); None where the kernel does not keep it."""
    try:
        with open(CPU_PRESSURE, "rb") as pressure:
            some = pressure.readline()
        return int(some.rsplit(b"total=", 1)[1])
    except (OSError, IndexError, ValueError):
        return None


class StartGate:
    """A counting gate over agent start-ups: `slots` at once, and up to `most` while the CPU
    has room (`stall_us` is how it tells: `cpu_stall_us`)."""

    def __init__(
        self,
        slots: int,
        most: int | None = None,
        stall_us: Callable[[], int | None] = cpu_stall_us,
    ) -> None:
        self.slots = slots
        self.most = max(slots, most if most is not None else slots)
        self._stall_us = stall_us
        self._starting = 0
        self._changed = threading.Condition()
        # (when, stall) where the current quiet window began; None: it begins at the next look.
        self._quiet_since: tuple[float, int] | None = None

    def enter(self) -> None:
        with self._changed:
            while not self._may_start():
                self._changed.wait(POLL_S)
            self._starting += 1
            self._quiet_since = None

    def _may_start(self) -> bool:
        if self._starting < self.slots:
            return True
        return self._starting < self.most and self._cpu_quiet()

    def _cpu_quiet(self) -> bool:
        """No task has waited for a CPU for `QUIET_WINDOW_S`, all of it after the last start."""
        stall = self._stall_us()
        if stall is None:
            return False
        now = time.monotonic()
        if self._quiet_since is None or stall - self._quiet_since[1] > QUIET_STALL_US:
            self._quiet_since = (now, stall)
            return False
        return now - self._quiet_since[0] >= QUIET_WINDOW_S

    def leave_when_started(self, started: Callable[[], bool]) -> None:
        """Gives the slot back, from a watcher thread, once `started()` holds (the agent wrote
        its first output or exited), `HOLD_MAX_S` has passed since now, or `started()` cannot
        tell (an OSError: the output gone): the gate only paces starts, it never stops one."""
        deadline = time.monotonic() + HOLD_MAX_S

        def watch() -> None:
            try:
                while time.monotonic() < deadline and not started():
                    time.sleep(POLL_S)
            except OSError:
                pass
            finally:
                self.leave()

        threading.Thread(target=watch, name="agent-start-gate", daemon=True).start()

    def leave(self) -> None:
        with self._changed:
            if self._starting <= 0:
                raise ValueError("the start gate was left more often than entered")
            self._starting -= 1
            self._changed.notify()


_GATES: dict[tuple[int, int], StartGate] = {}
_GATES_LOCK = threading.Lock()


def agent_start_gate() -> StartGate | None:
    """The gate every attempt's agent starts through. `AGENTIC_EVAL_START_GATE=0` (or `off`)
    turns it off (to measure it, or where the cores are not what limits a run); a number sets
    its slots, no more; unset or anything else, `default_slots()` and up to one per usable core
    while the CPU has room. Read at each start, so a benchmark can compare settings in one
    process; one gate per setting."""
    setting = os.environ.get("AGENTIC_EVAL_START_GATE", "").strip().lower()
    if setting in ("0", "off"):
        return None
    if setting.isdigit():
        slots = most = int(setting)
    else:
        slots, most = default_slots(), usable_cores()
    with _GATES_LOCK:
        return _GATES.setdefault((slots, most), StartGate(slots, most))
