"""What a session wrote, per resolved path, indexed for the two questions asked of it per command:
is anything written at or under a path, and was a path or a directory above it changed in an
unknown way (content None).

Both were a scan of every written path per command run, quadratic in a long session (up to
`MAX_REMEMBERED_WRITES` paths, times every run). The answers here are the scans' exactly: a
path `p` is "under" `r` when `p.startswith(r.rstrip("/") + "/")`, so each written path is
indexed by every prefix that ends just before one of its slashes, and a question looks up the
asked path's own such prefixes.
"""

from __future__ import annotations

from collections.abc import Iterator, MutableMapping


def _slash_prefixes(path: str) -> Iterator[str]:
    """Every `s` with `path.startswith(s + "/")`: the text before each of its slashes."""
    index = path.find("/")
    while index != -1:
        yield path[:index]
        index = path.find("/", index + 1)


class WrittenContents(MutableMapping[str, str | None]):
    """A dict of path -> content (None: changed in a way the session does not show) that keeps
    its indexes current through every way of changing it (`MutableMapping` routes `pop`,
    `update`, `setdefault` and the rest through `__setitem__` and `__delitem__`)."""

    def __init__(self) -> None:
        self._data: dict[str, str | None] = {}
        self._under: dict[str, int] = {}  # slash prefix -> written paths below it
        self._unknown: dict[str, int] = {}  # stripped path -> written paths of unknown content

    # ------------------------------------------------------------------ the mapping
    def __getitem__(self, path: str) -> str | None:
        return self._data[path]

    def __setitem__(self, path: str, content: str | None) -> None:
        data = self._data
        if path in data:  # the same path again (a file rewritten): only its content may change
            was_unknown = data[path] is None
            data[path] = content
            if was_unknown and content is not None:
                _decrement(self._unknown, path.rstrip("/"))
            elif content is None and not was_unknown:
                _increment(self._unknown, path.rstrip("/"))
            return
        data[path] = content
        under = self._under
        index = path.find("/")
        while index != -1:  # `_slash_prefixes`, inline: called for every write
            prefix = path[:index]
            under[prefix] = under.get(prefix, 0) + 1
            index = path.find("/", index + 1)
        if content is None:
            _increment(self._unknown, path.rstrip("/"))

    def __delitem__(self, path: str) -> None:
        self._forget(path)
        del self._data[path]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    # The hot reads, without the mixins' Python-level detours.
    def __contains__(self, path: object) -> bool:
        return path in self._data

    def get(self, path: str, default: str | None = None) -> str | None:  # type: ignore[override]
        return self._data.get(path, default)

    def _forget(self, path: str) -> None:
        for prefix in _slash_prefixes(path):
            _decrement(self._under, prefix)
        if self._data[path] is None:
            _decrement(self._unknown, path.rstrip("/"))

    # ------------------------------------------------------------------ the questions
    def any_at_or_under(self, path: str) -> bool:
        """Whether a written path equals `path` or lies under it."""
        return path in self._data or path.rstrip("/") in self._under

    def unknown_at_or_above(self, path: str) -> bool:
        """Whether `path`, or a directory above it, was written with unknown content."""
        if self._data.get(path, "") is None:
            return True
        if not self._unknown:
            return False
        return any(prefix in self._unknown for prefix in _slash_prefixes(path))


def _increment(counts: dict[str, int], key: str) -> None:
    counts[key] = counts.get(key, 0) + 1


def _decrement(counts: dict[str, int], key: str) -> None:
    left = counts[key] - 1
    if left:
        counts[key] = left
    else:
        del counts[key]
