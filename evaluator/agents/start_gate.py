"""At most one agent CLI starting per two cores at a time.

An agent's start-up is a burst of CPU (Codex: its native binary, its state database, the OS
probes it runs; Claude Code and Gemini CLI: node loading a large bundle) before its first model
request, after which it mostly waits on the model. Attempts that start together on fewer cores
than agents share those cores, and every one of them reaches its first request late; when the
attempts are alike they then stay in step, finish together and start the next wave together
again (docs/benchmarks.md, "Parallel runs"). The gate lets at most `slots` agents be in their
start-up at once (half the usable cores, at least one: the other half stays with the agents
already past their start-up, whose tool calls and exits would otherwise queue behind it). An
agent holds a slot from its spawn until its first output (every supported CLI writes its first
event when it has started), its exit, or `HOLD_MAX_S`, whichever comes first. With no more
workers than slots the gate never makes an attempt wait.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable

HOLD_MAX_S = 5.0  # an agent silent this long after its spawn no longer counts as starting
POLL_S = 0.005


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


class StartGate:
    """A counting gate over agent start-ups; `slots` at once."""

    def __init__(self, slots: int) -> None:
        self.slots = slots
        self._free = threading.BoundedSemaphore(slots)

    def enter(self) -> None:
        self._free.acquire()

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
                self._free.release()

        threading.Thread(target=watch, name="agent-start-gate", daemon=True).start()

    def leave(self) -> None:
        self._free.release()


_GATES: dict[int, StartGate] = {}
_GATES_LOCK = threading.Lock()


def agent_start_gate() -> StartGate | None:
    """The gate every attempt's agent starts through. `AGENTIC_EVAL_START_GATE=0` (or `off`)
    turns it off (to measure it, or where the cores are not what limits a run); a number sets
    its slots; unset or anything else, `default_slots()`. Read at each start, so a benchmark
    can compare settings in one process; one gate per slot count."""
    setting = os.environ.get("AGENTIC_EVAL_START_GATE", "").strip().lower()
    if setting in ("0", "off"):
        return None
    slots = int(setting) if setting.isdigit() else default_slots()
    with _GATES_LOCK:
        return _GATES.setdefault(slots, StartGate(slots))
