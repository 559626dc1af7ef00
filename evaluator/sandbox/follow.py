"""Reading the strace log while the agent runs, so that when it exits only the last lines are left.

The agent mostly waits on its model; the evaluator's thread waits on the agent. Reading the log
then, line by line as strace writes it, takes the trace's cost (thousands of lines per attempt,
almost all the CLI's own start-up) off the time between the agent's exit and the verdict.
"""

from __future__ import annotations

import gzip
import os
import re
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TextIO

from evaluator.sandbox.strace_log import ObservedTrace, ToolCallRecognizer, parse_trace
from evaluator.sandbox.tracer import COMPRESS_LEVEL

POLL_S = 0.1  # how often a quiet log is looked at again; reading it costs nothing when idle
# How long the processes an agent left running (a server started in the background) may go on
# after the agent CLI itself exited, before the attempt stops them: `strace -f` waits for every
# process it traces, so without this one daemon would hold the attempt until its timeout.
LEFTOVER_GRACE_S = 2.0
# The end of a traced process: `PID +++ exited with N +++` or `PID +++ killed by SIG... +++`.
_END = re.compile(r"^(\d+)\s+\+\+\+ (?:exited with (\d+)|killed by (\w+))")
_PID = re.compile(r"^(\d+)\s")
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
        # The first process of the log is the agent CLI strace started: when it ended, and how.
        self._root: int | None = None
        self._root_ended_at: float | None = None
        self.root_exit_code: int | None = None
        # Readable once `agent_left_processes()` holds: the attempt's wait sleeps on it beside
        # the agent's exit (`AgentRequest.stop_fd`) instead of asking every fraction of a second.
        self.stop_fd, self._stop_signal = os.pipe()
        self._stop_signalled = False
        self._stop_closed = False
        self._trace: ObservedTrace | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._follow, name="trace-follower", daemon=True)
        self._thread.start()

    def finish(self) -> ObservedTrace | None:
        """The whole log's trace; None when no log was ever written."""
        self._done.set()
        self._thread.join()
        if not self._stop_closed:
            self._stop_closed = True
            os.close(self._stop_signal)
            os.close(self.stop_fd)
        if self._error is not None:
            raise self._error
        return self._trace

    @property
    def agent_exited(self) -> bool:
        """Whether the log shows the agent CLI itself ended (its tool calls' processes may not)."""
        return self._root_ended_at is not None

    def agent_ended_before(self, moment: float | None) -> bool:
        """Whether the log showed the agent CLI's own exit before `moment` (`time.monotonic()`;
        None: at any time). A CLI that exits on the SIGTERM of a stop (Claude Code: 143) ends
        after the stop began, so its exit is the stop's, not its own."""
        ended = self._root_ended_at
        return ended is not None and (moment is None or ended <= moment)

    def agent_left_processes(self) -> bool:
        """Whether the agent CLI exited more than `LEFTOVER_GRACE_S` ago while the traced
        process tree goes on: what is left are processes its tool calls started and did not
        stop, which the attempt may stop (`stop_fd` says so once it holds)."""
        ended = self._root_ended_at
        return ended is not None and time.monotonic() - ended >= LEFTOVER_GRACE_S

    def _watch_root(self, line: str) -> None:
        if self._root is None:
            first = _PID.match(line)
            if first is not None:
                self._root = int(first.group(1))
            return
        if "+++" not in line:
            return  # a syscall line (almost all of them): not the end of a process
        end = _END.match(line)
        # Only an exit is the agent ending on its own: a CLI killed by a signal was stopped (the
        # attempt's timeout, a trigger run's stop at the decision, its own tool call), which the
        # log shows since the tracer prints the signals that kill.
        if end is not None and int(end.group(1)) == self._root and end.group(2) is not None:
            self.root_exit_code = int(end.group(2))
            self._root_ended_at = time.monotonic()

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
                    line = partial + chunk
                    if self._root_ended_at is None:
                        self._watch_root(line)
                    yield line
                    partial = ""
                if last_round:
                    if partial:
                        yield partial
                    return
                if not self._stop_signalled and self.agent_left_processes():
                    os.write(self._stop_signal, b"!")
                    self._stop_signalled = True
                self._done.wait(POLL_S)
