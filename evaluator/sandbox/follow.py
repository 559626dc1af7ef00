"""Reading the strace log while the agent runs, so that when it exits only the last lines are left.

The agent mostly waits on its model; the evaluator's thread waits on the agent. Reading the log
then, line by line as strace writes it, takes the trace's cost (thousands of lines per attempt,
almost all the CLI's own start-up) off the time between the agent's exit and the verdict.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

from evaluator.sandbox.strace_log import ObservedTrace, parse_trace

POLL_S = 0.1  # how often a quiet log is looked at again; reading it costs nothing when idle


class TraceFollower:
    """Follows one attempt's strace log from a thread until `finish()`, which must be called
    once the traced process has exited (its log is then complete)."""

    def __init__(
        self, path: Path, *, start_cwd: str | None = None, agent_dirs: tuple[str, ...] = ()
    ) -> None:
        self.path = path
        self._start_cwd = start_cwd
        self._agent_dirs = agent_dirs
        self._done = threading.Event()
        self._trace: ObservedTrace | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._follow, name="trace-follower", daemon=True)
        self._thread.start()

    def finish(self) -> ObservedTrace | None:
        """The whole log's trace; None when no log was ever written."""
        self._done.set()
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._trace

    def _follow(self) -> None:
        try:
            lines = self._lines()
            if next(lines, None) is None:
                return  # no log: the agent never started under the tracer
            self._trace = parse_trace(lines, start_cwd=self._start_cwd, agent_dirs=self._agent_dirs)
        except BaseException as exc:  # re-raised in the caller's thread by finish()
            self._error = exc

    def _lines(self) -> Iterator[str]:
        """Yields once when the log exists (a marker, not a line), then each complete line as
        it is written; after `finish()` was called, whatever is left, and ends."""
        while not self.path.exists():
            if self._done.wait(POLL_S) and not self.path.exists():
                return
        yield ""
        with self.path.open(encoding="utf-8", errors="surrogateescape") as log:
            partial = ""
            while True:
                # Decided before reading: everything written before finish() is read this round.
                last_round = self._done.is_set()
                for chunk in iter(log.readline, ""):
                    if not chunk.endswith("\n"):
                        partial += chunk  # strace has not finished writing this line yet
                        break
                    yield partial + chunk
                    partial = ""
                if last_round:
                    if partial:
                        yield partial
                    return
                self._done.wait(POLL_S)
