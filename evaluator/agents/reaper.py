"""Stops the agents' process groups when the evaluator that started them dies, however it dies.

The kernel's parent-death signal reaches only the agent's first process, as a SIGTERM that a CLI
may take its time over (codex waits for a running tool call) and that strace answers by letting
go of the processes it traces. So `evaluator/agents/process.py` runs this file once, as its own
process in its own session, and tells it on stdin which groups are running (`+PGID`) and which
have ended (`-PGID`). End of input means the evaluator is gone (a SIGKILLed process's pipes are
closed by the kernel too): every group still running then gets SIGTERM and, after the grace,
SIGKILL, as the evaluator itself would have done. Standard library only: it starts in
milliseconds and imports nothing of the evaluator.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time

GRACE_S = 3.0
POLL_S = 0.05


def _alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _signal(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def stop_groups(groups: set[int], grace_s: float = GRACE_S) -> None:
    for pgid in groups:
        _signal(pgid, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    left = {pgid for pgid in groups if _alive(pgid)}
    while left and time.monotonic() < deadline:
        time.sleep(POLL_S)
        left = {pgid for pgid in left if _alive(pgid)}
    for pgid in left:
        _signal(pgid, signal.SIGKILL)


def main() -> None:
    # A terminal's Ctrl-C or hang-up is for the evaluator, which stops its agents itself.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    groups: set[int] = set()
    for line in sys.stdin:
        text = line.strip()
        if len(text) > 1 and text[1:].isdigit():
            if text[0] == "+":
                groups.add(int(text[1:]))
            elif text[0] == "-":
                groups.discard(int(text[1:]))
    stop_groups(groups)


if __name__ == "__main__":
    main()
