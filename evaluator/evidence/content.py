"""Did a file's content reach the agent? Decided from what its tools printed, for any tool.

A file reached the agent when a window of `WINDOW_WORDS` consecutive words of its body (front
matter excluded) appears in a tool output the agent received. A body shorter than a window is a
window of its own, recognised only as whole lines of an output. What agents add around content
is normalised away on both sides: ANSI colour, line-number prefixes (Claude `Read`'s `N→`,
`cat -n`, `nl`, `grep -n`, `bat`), grep's file-name prefixes and Codex's truncation markers (a
window never spans one). Words are runs of word characters (a character, in scripts written
without spaces), in lower case, so quoting, punctuation and case do not hide a match.

A window does not count when the agent already had its text: it is in the prompt, the agent typed
it in an earlier tool call (a here-doc, a patch, an `echo`), or it also occurs in another file that
reached the agent. Outputs after the agent's first write to a file show the agent's own version,
not the original. Lines are shown when every word of them is inside counted windows, so a partial
read is partial: `Shown.share` says how much of the file, or of a section, reached the agent.

Outputs are streamed one at a time and matched by hashing word windows against an index of the
files' windows; memory is bounded by the files, not by the session.
"""

from __future__ import annotations

import re
import threading
from array import array
from collections import OrderedDict
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Literal

# The one threshold: this many consecutive words of a file prove its content reached the agent.
WINDOW_WORDS = 8
# Texts up to this size are matched once however often they recur (at most this many kept).
REPEAT_CACHE_CHARS = 65536
REPEAT_CACHE_TEXTS = 128
# Indexes of files up to this many characters in all are kept for the next attempt (this many).
INDEX_CACHE_CHARS = 262144
INDEX_CACHE_ENTRIES = 8
# A repeated text may start with this many lines that differ (see `_SeenTexts`).
HEAD_LINES = 8
# Outputs cited per file in a verdict; the first one is always among them.
MAX_REFS = 5

_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
# Prefixes tools put before a line, stripped repeatedly on both sides (file and output) so that a
# line which itself starts like one (`key: value`, `12: x`) stays comparable.
_PREFIX = re.compile(
    r"\s*(?:"
    r"\d+(?:→|\t)"  # Claude Read `     1→`, `cat -n` / `nl` `     1<TAB>`
    r"|\d+\s+[│|]"  # bat `   1 │`
    r"|[^\s:]+:"  # grep `path:`, `N:`, `path:N:`
    r"|[^\s:]+-\d+-"  # grep context `path-N-`
    r"|\d+-"  # grep -n context `N-`
    r")"
)
# Where an agent CLI (or our own record excerpt) cut an output: the text on either side is not
# contiguous, so no window spans it.
_CUT = re.compile(
    r"…\s*\d+ (?:tokens|chars|characters|lines|bytes) truncated\s*…"
    r"|\[\.\.\. omitted \d+ of \d+ lines \.\.\.\]"
    r"|… \[\d+ more chars\]"
)
# Scripts written without spaces (Chinese, Japanese, Korean) count each character as a word, so
# a window is as short a stretch of text there as elsewhere.
_IDEOGRAPHS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
# A word is a run of letters and digits: an underscore separates words as a hyphen does, so a
# tool that writes `_` for each space (`tr ' ' '_'`) still shows them (red team 11b).
_WORD = re.compile(rf"[{_IDEOGRAPHS}]|[^\W_{_IDEOGRAPHS}]+")
_ASCII_WORD = re.compile(r"[^\W_]+")


@dataclass(frozen=True)
class SourceText:
    """A file as the workspace held it. `written_at`: the session line of the agent's first
    write to it; outputs from then on show the agent's version, not this one."""

    path: str
    text: str
    written_at: int | None = None


@dataclass(frozen=True)
class ToolText:
    """A tool call's input (what the agent typed) or output (what it received), in session
    order: `line` is the session line, `ref` the record that cites it."""

    kind: Literal["input", "output"]
    line: int
    text: str
    ref: str | None = None
    # The only files an output can show (workspace-relative), when its tool call is known to
    # have read nothing else; None: it may show any file.
    shows_only: frozenset[str] | None = None


@dataclass(frozen=True, order=True)
class Sighting:
    """Where content was shown: the session line, the word position in the output, the record."""

    line: int
    position: int
    ref: str | None = field(compare=False, default=None)


@dataclass(frozen=True)
class Shown:
    """How much of one file reached the agent."""

    path: str
    words: int  # words of the body: 0 means there is nothing to recognise
    countable: frozenset[int]  # line numbers that could prove a read (text the agent lacked)
    shown: frozenset[int]  # line numbers whose every word was in a counted window
    first: Sighting | None  # the first output that showed content
    refs: tuple[str, ...] = ()  # outputs that showed content, first first (a few)
    outputs: frozenset[str] = frozenset()  # every output that showed words of it
    # Why outputs that held its words did not count, when none did (the agent had the text).
    withheld: str | None = None

    @property
    def reached(self) -> bool:
        return self.first is not None

    def share(self, within: Collection[int] | None = None) -> float:
        """Share of the countable lines (of `within`, a section's lines, when given) shown."""
        lines = self.countable if within is None else self.countable & frozenset(within)
        if not lines:
            return 0.0
        return len(self.shown & lines) / len(lines)


def line_words(line: str) -> list[str]:
    """The words of one line of a file or an output, with what tools add removed."""
    line = _ANSI.sub("", line)
    while (match := _PREFIX.match(line)) is not None:
        line = line[match.end() :]
    return _find_words(line)


def _words(text: str) -> list[str]:
    """The words of a piece of a line (no prefix to strip)."""
    return _find_words(_ANSI.sub("", text))


def _find_words(text: str) -> list[str]:
    # In lower case: a tool that changes the case of what it prints still shows it.
    text = text.lower()
    return (_ASCII_WORD if text.isascii() else _WORD).findall(text)


def body_start(lines: Sequence[str]) -> int:
    """Index of the first body line: front matter (`---` ... `---`) is not the body."""
    if not lines or lines[0].strip() != "---":
        return 0
    for index in range(1, len(lines)):
        if lines[index].strip() in ("---", "..."):
            return index + 1
    return 0


_STARTS_LINE, _ENDS_LINE = 1, 2


# A line longer than this is read in pieces cut at a space: one huge line (a minified file, a
# hostile output) never becomes one huge list of words.
_PIECE = 65536


def _lines(text: str) -> Iterator[str]:
    """The lines of a text, one at a time (no list of them all)."""
    start = 0
    while start < len(text):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        yield text[start:end].rstrip("\r")
        start = end + 1


def _pieces(line: str) -> Iterator[str]:
    start = 0
    while len(line) - start > _PIECE:
        cut = line.rfind(" ", start, start + _PIECE)
        cut = start + _PIECE if cut <= start else cut
        yield line[start:cut]
        start = cut
    yield line[start:]


def _segments(text: str) -> Iterator[tuple[int, list[str], bytearray]]:
    """An output's words as (offset of the first, words, line-edge flags) segments no window may
    span: a cut splits them. Long runs are handed over in bounded pieces that overlap by a
    window."""
    pending: list[str] = []
    edges = bytearray()
    offset = 0
    for line in _lines(text):
        pieces = list(_pieces(line)) if len(line) > _PIECE else [line]
        for number, piece in enumerate(pieces):
            parts = _CUT.split(piece)
            for index, part in enumerate(parts):
                if index > 0:
                    yield offset, pending, edges
                    offset, pending, edges = offset + len(pending), [], bytearray()
                # Prefixes are a line's, not a piece's: only the first piece is stripped.
                words = line_words(part) if number == 0 else _words(part)
                if words:
                    flags = bytearray(len(words))
                    if index == 0 and number == 0:
                        flags[0] |= _STARTS_LINE
                    if index == len(parts) - 1 and number == len(pieces) - 1:
                        flags[-1] |= _ENDS_LINE
                    pending.extend(words)
                    edges.extend(flags)
            if len(pending) > 4096:
                keep = WINDOW_WORDS - 1
                yield offset, pending, edges
                offset += len(pending) - keep
                pending, edges = pending[-keep:], edges[-keep:]
    yield offset, pending, edges


@dataclass
class _File:
    number: int
    source: SourceText
    words: array[int]  # word ids (`_Index.vocabulary`): 4 bytes a word
    lines: array[int]  # the line number of each word
    size: int  # window size for this file: WINDOW_WORDS, or the whole body when shorter
    first: dict[int, Sighting] = field(default_factory=dict)  # window start -> first counted
    known: set[int] = field(default_factory=set)  # window starts the agent had otherwise
    typed: dict[int, int] = field(default_factory=dict)  # window start -> line it was typed on
    outputs: set[str] = field(default_factory=set)  # every output that showed a counted window
    shared: set[int] = field(default_factory=set)  # window starts another file holds too

    def window(self, start: int) -> tuple[int, ...]:
        return tuple(self.words[start : start + self.size])


class _Index:
    """Every window of every file, by hash. A window is kept as one packed int (a list only
    when several files or places hold it), so the index stays a few ints per word."""

    def __init__(self, files: Sequence[SourceText]) -> None:
        self.files: list[_File] = []
        self.windows: dict[int, int | list[int]] = {}
        self.vocabulary: dict[str, int] = {}
        for source in files:
            lines = source.text.splitlines()
            words = array("i")
            numbers = array("i")
            for index in range(body_start(lines), len(lines)):
                for word in line_words(lines[index]):
                    words.append(self.vocabulary.setdefault(word, len(self.vocabulary)))
                    numbers.append(index + 1)
            number = len(self.files)
            entry = _File(number, source, words, numbers, min(WINDOW_WORDS, len(words)))
            self.files.append(entry)
            # Every window as a tuple, made by zipping the word list with itself shifted (the
            # shorter shifts end the zip: one window per start).
            listed = words.tolist()
            shifted = (listed[shift:] for shift in range(entry.size))
            windows = zip(*shifted, strict=False) if listed else ()
            base = number << 32
            for start, key in enumerate(map(hash, windows)):
                held = self.windows.get(key)
                packed = base | start
                if held is None:
                    self.windows[key] = packed
                elif isinstance(held, list):
                    held.append(packed)
                else:
                    self.windows[key] = [held, packed]
        self.sizes = sorted({f.size for f in self.files if f.size})
        # Most windows are one file's alone: only those that are not are ever looked up again.
        for held in self.windows.values():
            if isinstance(held, list) and len({packed >> 32 for packed in held}) > 1:
                for packed in held:
                    self.files[packed >> 32].shared.add(packed & 0xFFFFFFFF)

    def fresh(self, files: Sequence[SourceText]) -> _Index:
        """This index over `files` (the same paths and texts), with nothing matched yet: the
        windows, vocabulary and words are shared (never changed once built), what a match
        records is new."""
        index = object.__new__(_Index)
        index.windows, index.vocabulary, index.sizes = self.windows, self.vocabulary, self.sizes
        index.files = [
            _File(entry.number, source, entry.words, entry.lines, entry.size, shared=entry.shared)
            for entry, source in zip(self.files, files, strict=True)
        ]
        return index

    def places(self, window: tuple[int, ...]) -> Iterator[tuple[_File, int]]:
        """The files and starts that hold exactly this window."""
        held = self.windows.get(hash(window))
        for packed in held if isinstance(held, list) else () if held is None else (held,):
            entry = self.files[packed >> 32]
            start = packed & 0xFFFFFFFF
            if entry.size == len(window) and entry.window(start) == window:
                yield entry, start

    def hits(
        self, words: Sequence[str], edges: bytearray | None = None
    ) -> list[tuple[int, _File, int]]:
        """(position of the window's first word, file, window start) for each file window in
        `words`, in the order of the window's last word. With `edges`, a file shorter than a
        window is looked for only as whole lines (the only way it counts: `_whole`)."""
        if not self.sizes or not words:
            return []
        # Every window of the output is hashed and looked up at once (the loops run in C); a word
        # no file holds is -1, which no file window has, so a window with one never verifies.
        known = self.vocabulary.get
        ids = [known(word, -1) for word in words]
        windows, files = self.windows, self.files
        found: list[tuple[int, _File, int]] = []
        for size in self.sizes:
            if len(ids) < size:
                break
            shifted = (ids[shift:] for shift in range(size))
            held_at = list(map(windows.get, map(hash, zip(*shifted, strict=False))))
            # Places verified one word earlier: a window that continues one needs only its last
            # word compared (a file shown whole is a run of such windows).
            before: set[int] = set()
            verified: set[int] = set()
            last = -2
            candidates = [(first, held) for first, held in enumerate(held_at) if held is not None]
            for first, held in candidates:
                if (
                    size < WINDOW_WORDS
                    and edges is not None
                    and not (edges[first + size - 1] & _ENDS_LINE and edges[first] & _STARTS_LINE)
                ):
                    continue
                before, verified = (verified if last == first - 1 else set()), set()
                last = first
                for packed in held if isinstance(held, list) else (held,):
                    entry = files[packed >> 32]
                    if entry.size != size:
                        continue
                    start = packed & 0xFFFFFFFF
                    if (
                        entry.words[start + size - 1] == ids[first + size - 1]
                        if packed - 1 in before
                        else entry.window(start) == tuple(ids[first : first + size])
                    ):
                        verified.add(packed)
                        found.append((first, entry, start))
        if len(self.sizes) > 1:
            # As one pass over the words would find them: by the window's last word, then size.
            found.sort(key=lambda hit: (hit[0] + hit[1].size, hit[1].size))
        return found

    def shared_with(self, entry: _File, start: int) -> set[int]:
        """The other files that hold this window too."""
        if start not in entry.shared:
            return set()
        return {other.number for other, _ in self.places(entry.window(start))} - {entry.number}


class _Indexes:
    """Indexes built, by the exact paths and texts they index: every attempt of a case gets the
    same skill files, and rebuilding their index is most of the cost of a small workspace. Only
    small indexes are kept (the key holds the texts, and an index is a few ints per word)."""

    def __init__(self) -> None:
        self.kept: OrderedDict[tuple[tuple[str, str], ...], _Index] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, files: Sequence[SourceText]) -> _Index:
        if sum(len(f.text) for f in files) > INDEX_CACHE_CHARS:
            return _Index(files)
        key = tuple((f.path, f.text) for f in files)
        with self.lock:
            built = self.kept.get(key)
            if built is not None:
                self.kept.move_to_end(key)
        if built is None:
            built = _Index(files)
            with self.lock:
                self.kept[key] = built
                while len(self.kept) > INDEX_CACHE_ENTRIES:
                    self.kept.popitem(last=False)
        return built.fresh(files)


_INDEXES = _Indexes()


def find_shown(
    files: Sequence[SourceText], texts: Iterable[ToolText], prompt: str = ""
) -> dict[str, Shown]:
    """What of each file reached the agent, from the session's tool inputs and outputs (in
    session order) and the prompt it was given."""
    index = _INDEXES.get(files)
    for _, words, edges in _segments(prompt):
        for position, entry, start in index.hits(words):
            if _whole(entry, position, edges):
                entry.known.add(start)
    withheld: dict[int, str] = {}
    seen = _SeenTexts(index)
    for text in texts:
        matches = seen.matches(text.text)
        for place, entry, start in matches:
            if text.kind == "input":
                entry.typed.setdefault(start, text.line)
                continue
            if text.shows_only is not None and entry.source.path not in text.shows_only:
                continue  # text the call printed of its own making, not this file
            if text.ref in entry.outputs and start in entry.first:
                # Already counted and this output already cited: nothing here can change (a
                # file's `withheld` is only read when nothing of it was counted).
                continue
            written = entry.source.written_at
            typed = entry.typed.get(start)
            if written is not None and text.line >= written:
                withheld.setdefault(entry.number, "shown only after the agent wrote the file")
            elif start in entry.known:
                withheld.setdefault(entry.number, "shown only where the prompt says the same")
            elif typed is not None and typed <= text.line:
                withheld.setdefault(
                    entry.number, "shown only where the agent had typed the same text"
                )
            else:
                if start not in entry.first:
                    entry.first[start] = Sighting(text.line, place, text.ref)
                if text.ref is not None:
                    entry.outputs.add(text.ref)
    return _results(index, withheld)


_Match = tuple[int, _File, int]  # (place: the word number in the text, file, window start)


class _SeenTexts:
    """Agents print the same text again and again, often under a first line or two that change
    (Codex puts a chunk id and a wall time above every output). A text whose lines after its
    first `HEAD_LINES` or fewer were seen before is not matched again: its matches are the seen
    lines' matches, moved by the words of its own head, and those of the windows starting in
    the head. A window depends only on its own words and their lines' edges, so these are the
    matches of the whole text."""

    def __init__(self, index: _Index) -> None:
        self.index = index
        self.kept: dict[int, _Kept] = {}
        self.tails: dict[int, list[tuple[int, int]]] = {}  # hash of a tail -> (text, line)
        self.count = 0

    def matches(self, text: str) -> list[_Match]:
        if len(text) > REPEAT_CACHE_CHARS:
            return _whole_hits(self.index, text)
        starts = _line_starts(text)
        for line, at in enumerate(starts):
            tail = text[at:]
            for number, seen_line in self.tails.get(hash(tail), ()):
                seen = self.kept[number]
                if seen.text[seen.starts[seen_line] :] == tail:
                    words = _words_before(text, starts, line)
                    return self._moved(text, at, words, seen, seen.words_before(seen_line))
        found = _whole_hits(self.index, text)
        self._keep(_Kept(text, starts, found))
        return found

    def _moved(self, text: str, at: int, words: int, seen: _Kept, skipped: int) -> list[_Match]:
        """`text`'s matches, its lines from `at` (after `words` words) being those of `seen`
        after `skipped` words."""
        if at == 0 and skipped == 0:
            return seen.found
        found: list[_Match] = []
        if words:
            # The windows that start in the head end at most this many words into the tail.
            reach = self.index.sizes[-1] - 1 if self.index.sizes else 0
            near = text[: _after_words(text, at, reach)]
            found = [hit for hit in _whole_hits(self.index, near) if hit[0] < words]
        found += [(place - skipped + words, f, s) for place, f, s in seen.found if place >= skipped]
        if len(self.index.sizes) > 1:
            # In the order of one pass over the words: by the window's last word, then size.
            found.sort(key=lambda hit: (hit[0] + hit[1].size, hit[1].size))
        return found

    def _keep(self, kept: _Kept) -> None:
        number = self.count
        self.count += 1
        self.kept[number] = kept
        for line, at in enumerate(kept.starts):
            self.tails.setdefault(hash(kept.text[at:]), []).append((number, line))
        if len(self.kept) > REPEAT_CACHE_TEXTS:
            oldest = next(iter(self.kept))
            gone = self.kept.pop(oldest)
            for at in gone.starts:
                key = hash(gone.text[at:])
                held = [place for place in self.tails[key] if place[0] != oldest]
                if held:
                    self.tails[key] = held
                else:
                    del self.tails[key]


@dataclass(frozen=True)
class _Kept:
    text: str
    starts: list[int]  # where its first lines start (`_line_starts`)
    found: list[_Match]
    counted: dict[int, int] = field(default_factory=dict)  # line -> words before it

    def words_before(self, line: int) -> int:
        if line not in self.counted:
            self.counted[line] = _words_before(self.text, self.starts, line)
        return self.counted[line]


def _line_starts(text: str) -> list[int]:
    """Where the text's first `HEAD_LINES` + 1 lines start."""
    starts = [0]
    while len(starts) <= HEAD_LINES:
        end = text.find("\n", starts[-1])
        if end < 0 or end + 1 >= len(text):
            break
        starts.append(end + 1)
    return starts


def _words_before(text: str, starts: list[int], line: int) -> int:
    """How many words come before line `line` of `starts` (counted only for a text that repeats
    one seen before): the lines' words add up, as a window never spans two segments but a place
    counts every word."""
    return sum(_word_count(text[starts[index] : starts[index + 1]]) for index in range(line))


def _word_count(text: str) -> int:
    """How many words the segments of `text` hold (the place after its last word)."""
    count = 0
    for offset, words, _ in _segments(text):
        count = offset + len(words)
    return count


def _after_words(text: str, at: int, words: int) -> int:
    """Where the lines from `at` on that hold at least `words` words end (or the text does)."""
    count = 0
    while count < words and at < len(text):
        end = text.find("\n", at)
        end = len(text) if end < 0 else end + 1
        count += _word_count(text[at:end])
        at = end
    return at


def _whole_hits(index: _Index, text: str) -> list[_Match]:
    """(place in `text`, file, window start) of every file window `text` shows as the file has it."""
    found: list[tuple[int, _File, int]] = []
    for offset, words, edges in _segments(text):
        for position, entry, start in index.hits(words, edges):
            if entry.size >= WINDOW_WORDS or _whole(entry, position, edges):
                found.append((offset + position, entry, start))
    return found


def _whole(entry: _File, position: int, edges: bytearray) -> bool:
    """A file shorter than a window is recognised only printed as it is, whole lines of its
    own: its few words inside another line ("1.0" in "version 1.0.3") are not the file."""
    if entry.size >= WINDOW_WORDS:
        return True
    last = position + entry.size - 1
    return bool(edges[position] & _STARTS_LINE) and bool(edges[last] & _ENDS_LINE)


def _results(index: _Index, withheld: dict[int, str]) -> dict[str, Shown]:
    # A file reached the agent on its own when a window only it holds was shown; its windows then
    # explain the same text in any other file.
    alone = {f.number for f in index.files if any(not index.shared_with(f, s) for s in f.first)}
    results = {}
    for entry in index.files:
        number = entry.number
        counted = [
            start
            for start in entry.first
            if not (index.shared_with(entry, start) & (alone - {number}))
        ]
        shown_words = _covered(entry, counted)
        others = alone - {number}
        explained = _covered(
            entry,
            [
                start
                for start in (*entry.known, *entry.typed, *(entry.shared if others else ()))
                if start in entry.known
                or start in entry.typed
                or index.shared_with(entry, start) & others
            ],
        )
        by_line: dict[int, list[int]] = {}
        for position, line in enumerate(entry.lines):
            by_line.setdefault(line, []).append(position)
        shown = frozenset(line for line, ps in by_line.items() if all(p in shown_words for p in ps))
        countable = frozenset(
            line
            for line, ps in by_line.items()
            if line in shown or not all(p in explained for p in ps)
        )
        sightings = sorted(entry.first[start] for start in counted)
        refs = list(dict.fromkeys(s.ref for s in sightings if s.ref))
        results[entry.source.path] = Shown(
            path=entry.source.path,
            words=len(entry.words),
            countable=countable,
            shown=shown,
            first=sightings[0] if sightings else None,
            refs=tuple(refs[:MAX_REFS]),
            outputs=frozenset(entry.outputs) if sightings else frozenset(),
            withheld=None
            if sightings
            else "shown only where another file that reached the agent says the same"
            if entry.first
            else withheld.get(number),
        )
    return results


def _covered(entry: _File, starts: Iterable[int]) -> set[int]:
    covered: set[int] = set()
    for start in starts:
        covered.update(range(start, start + entry.size))
    return covered
