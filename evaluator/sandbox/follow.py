"""Reading the strace log while the agent runs, so that when it exits only the last lines are left.

The agent mostly waits on its model; the evaluator's thread waits on the agent. Reading the log
then, line by line as strace writes it, takes the trace's cost (thousands of lines per attempt,
almost all the CLI's own start-up) off the time between the agent's exit and the verdict.
"""

from __future__ import annotations

import gzip
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TextIO

from evaluator.sandbox.strace_log import ObservedTrace, ToolCallRecognizer, parse_trace
from evaluator.sandbox.tracer import COMPRESS_LEVEL

POLL_S = 0.1  # how often a quiet log is looked at again; reading it costs nothing when idle
_BLOCK = 1 << 16  # characters of log gathered before they are redacted and compressed


class TraceFollower:
    """Follows one attempt's strace log from a thread until `finish()`, which must be called
    once the traced process has exited (its log is then complete). With `keep`, the log is also
    written there as it is read, gzip-compressed, each block of lines passed through `redact`."""

    def __init__(
        self,
        path: Path,
        recognizer: ToolCallRecognizer | None,
        *,
        start_cwd: str | None = None,
        agent_dirs: tuple[str, ...] = (),
        keep: Path | None = None,
        redact: Callable[[str], str] | None = None,
    ) -> None:
        self.path = path
        self.recognizer = recognizer
        self.keep = keep
        self._redact = redact
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
            if self.keep is not None:
                lines = self._kept(lines, self.keep)
            if self.recognizer is None:
                for _ in lines:  # kept, not attributed
                    pass
                return
            self._trace = parse_trace(
                lines, self.recognizer, start_cwd=self._start_cwd, agent_dirs=self._agent_dirs
            )
        except BaseException as exc:  # re-raised in the caller's thread by finish()
            self._error = exc

    def _kept(self, lines: Iterator[str], keep: Path) -> Iterator[str]:
        """Passes the lines on, writing them to `keep` too (redacted by whole lines)."""
        with gzip.open(
            keep, "wt", encoding="utf-8", errors="surrogateescape", compresslevel=COMPRESS_LEVEL
        ) as out:
            block: list[str] = []
            size = 0
            for line in lines:
                block.append(line)
                size += len(line)
                if size >= _BLOCK:
                    self._write(out, block)
                    block, size = [], 0
                yield line
            self._write(out, block)

    def _write(self, out: TextIO, block: list[str]) -> None:
        text = "".join(block)
        out.write(self._redact(text) if self._redact is not None else text)

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
