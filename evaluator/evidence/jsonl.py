"""Streaming a JSONL session file, whichever agent wrote it, one JSON object per line.

A truncated or non-JSON line is counted, never fatal; memory does not grow with the file.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from evaluator.surrogates import well_formed

MAX_MALFORMED_NOTED = 100
NOT_JSON = "not JSON (truncated?)"

# msgspec decodes a line about twice as fast as `json.loads` and to the same values; it rejects
# some text `json.loads` accepts (NaN, a lone surrogate escape, a byte order mark, a float too
# large for a double), so a line it rejects is decoded again by `json.loads`, whose answer
# (a value, ValueError or RecursionError) stands. Both give up on deep nesting near the
# interpreter's recursion limit, not at the same depth (msgspec a few levels deeper): a line
# that may nest that deep goes to `json.loads` alone, called from the same frame as ever, so
# that its limit is where it was. Which line may: a short one by its count of opening brackets
# (a bound on its depth), a long one (a tool output, mostly string) after msgspec read it, by
# the depth of its few containers; counting the brackets of a long line cost more than decoding
# it, walking the many small containers of a short one more than counting.
JSON_DECODER = msgspec.json.Decoder()
MAY_NEST_DEEP = 500
WALK_FROM = 2048
# The reader's buffer: with the default 8 KB, a line longer than the buffer (a tool output) is
# read in pieces and joined; with 1 MB, splitting a 100 MB session into lines takes a third of
# the CPU time (the lines are the same).
READ_BUFFER = 1024 * 1024


# The JSON of the agent's text may escape a lone surrogate (`"\\ud800"`); `loads` replaces
# each by U+FFFD (`surrogates.well_formed`). Red team, round 12b.
_MAY_ESCAPE_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]")


def loads(text: str | bytes) -> Any:
    """`json.loads(text)`, each lone surrogate of its strings replaced by U+FFFD (`well_formed`):
    for JSON that holds the agent's text."""
    value = json.loads(text)
    raw = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    return well_formed(value) if _MAY_ESCAPE_SURROGATE.search(raw) else value


@dataclass
class ReadStats:
    lines: int = 0
    bad_lines: int = 0
    # (line, why) of the first lines that could not be used; hostile ones are reported, not fatal.
    malformed: list[tuple[int, str]] = field(default_factory=list)

    def skip(self, line: int, why: str) -> None:
        self.bad_lines += 1
        if len(self.malformed) < MAX_MALFORMED_NOTED:
            self.malformed.append((line, why))


def unreadable_lines(stats: ReadStats) -> list[tuple[int, str]]:
    """(line, why) of the lines the reader skipped that may have recorded an act: any but a
    last line that is not JSON (a write cut short when the CLI was stopped). A CLI writes each
    line whole, so a line it could not have written (nested past what the reader decodes, not an
    object, cut short mid-file) may hold a tool call no analysis sees: opaque to isolation, never
    a silent pass (red team 10: a line nested ~1000 deep would have hidden a Claude Code call)."""
    found = [
        (line, why)
        for line, why in stats.malformed
        if not (line == stats.lines and why == NOT_JSON) and not why.startswith("malformed ")
    ]
    unnoted = stats.bad_lines - len(stats.malformed)
    if unnoted > 0:
        found.append((stats.lines, f"{unnoted} more line(s) could not be read"))
    return found


def read_objects(
    path: Path, stats: ReadStats | None = None
) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for every line holding a JSON object."""
    stats = stats if stats is not None else ReadStats()
    with path.open("rb", buffering=READ_BUFFER) as handle:
        for number, raw in enumerate(handle, start=1):
            stats.lines = number
            if raw.isspace():  # (a line is never empty; strip() would copy it)
                continue
            # `json.loads` is called from this frame, not through `loads`: its recursion limit
            # stays where it was (above). msgspec refuses a lone surrogate: only a value
            # `json.loads` gave may hold one.
            by_json = True
            try:
                if len(raw) < WALK_FROM:
                    # (A line shorter than MAY_NEST_DEEP bytes cannot hold that many brackets.)
                    if (
                        len(raw) >= MAY_NEST_DEEP
                        and raw.count(b"[") + raw.count(b"{") >= MAY_NEST_DEEP
                    ):
                        record = json.loads(raw)
                    else:
                        try:
                            record = JSON_DECODER.decode(raw)
                            by_json = False
                        except ValueError:  # msgspec.DecodeError is one
                            record = json.loads(raw)
                else:
                    try:
                        record = JSON_DECODER.decode(raw)
                        by_json = False
                    except (ValueError, RecursionError):
                        record = json.loads(raw)
                    else:
                        if nests_deep(record):
                            record = json.loads(raw)
            except ValueError:
                stats.skip(number, NOT_JSON)
                continue
            except RecursionError:
                stats.skip(number, "JSON nested too deeply to read")
                continue
            if by_json and _MAY_ESCAPE_SURROGATE.search(raw):
                record = well_formed(record)
            if not isinstance(record, dict):
                stats.skip(number, "not a JSON object")
                continue
            yield number, record


def nests_deep(value: object) -> bool:
    """Whether `value` holds containers MAY_NEST_DEEP deep: a line that does has at least as
    many opening brackets, so below it msgspec's value is the one `json.loads` gives. (Level by
    level: a decoder gives plain dicts and lists, never subclasses.)"""
    level: list[Any] = [value] if type(value) is dict or type(value) is list else []
    depth = 1
    while level:
        if depth >= MAY_NEST_DEEP:
            return True
        inner: list[Any] = []
        for current in level:
            for child in current.values() if type(current) is dict else current:
                if type(child) is dict or type(child) is list:
                    inner.append(child)
        level = inner
        depth += 1
    return False


# A session file written as one JSON document (not JSONL) is read whole only up to this size.
MAX_DOCUMENT_BYTES = 64 * 1024 * 1024


def first_object(path: Path) -> dict[str, Any] | None:
    """The first line's object, or None: enough for an adapter to know its own format. A file
    that is one JSON document spread over lines (an older format some agents rewrote whole)
    gives that document, when it is no larger than MAX_DOCUMENT_BYTES."""
    try:
        with path.open("rb") as handle:
            raw = handle.readline()
    except OSError:
        return None
    try:
        record = loads(raw)
    except (ValueError, RecursionError):
        record = json_document(path) if raw.strip() == b"{" else None
    return record if isinstance(record, dict) else None


def json_document(path: Path) -> dict[str, Any] | None:
    """The file as one JSON object, or None (not one, unreadable, or too large to read whole)."""
    try:
        if path.stat().st_size > MAX_DOCUMENT_BYTES:
            return None
        record = loads(path.read_bytes())
    except (OSError, ValueError, RecursionError):
        return None
    return record if isinstance(record, dict) else None
