"""YAML loading that remembers where every value came from, so errors can name file:line:col."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from evaluator.errors import InputError

Position = tuple[int, int]

# Bounds checked before any object is built: eval-repo files are untrusted input.
MAX_CHARS = 2_000_000
MAX_BYTES = 4 * MAX_CHARS  # the most UTF-8 bytes MAX_CHARS characters take
MAX_DEPTH = 64
MAX_ALIASES = 1_000
MAX_EXPANDED_NODES = 200_000
PathKey = tuple[str | int, ...]

# libyaml's parser, through PyYAML's C binding when it is installed: about ten times faster than
# the pure-Python one (the same constructor builds the values; the nodes carry the same
# positions). A document it rejects, or that breaks a bound, is loaded again by the pure-Python
# parser, so every error and its position are PyYAML's own (tests/test_hostile_input.py).
FAST_LOADER: type[yaml.SafeLoader] | None = getattr(yaml, "CSafeLoader", None)


@dataclass
class YamlDocument:
    path: Path
    data: Any
    positions: dict[PathKey, Position] = field(default_factory=dict)
    key_positions: dict[PathKey, Position] = field(default_factory=dict)

    def position(self, key: PathKey) -> Position:
        """Best position for a value path: the value itself, else its key, else the nearest parent."""
        probe = tuple(key)
        while True:
            if probe in self.positions:
                return self.positions[probe]
            if probe in self.key_positions:
                return self.key_positions[probe]
            if not probe:
                return (1, 1)
            probe = probe[:-1]

    def error(self, key: PathKey, message: str) -> InputError:
        line, col = self.position(key)
        return InputError(message, path=self.path, line=line, col=col, field=dotted(key))

    def key_error(self, key: PathKey, message: str) -> InputError:
        """Located at the key itself (for unknown or duplicate keys) rather than its value."""
        line, col = self.key_positions.get(tuple(key)) or self.position(key)
        return InputError(message, path=self.path, line=line, col=col, field=dotted(key))


def dotted(key: PathKey) -> str:
    out = ""
    for part in key:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "<document>"


def read_text(path: Path) -> str:
    """An eval repo's text file, read only when it is a regular file of at most `MAX_CHARS`
    characters' worth of bytes: a FIFO would hang the evaluator and a sparse file of any size
    costs its author nothing (red team, round 4)."""
    if path.is_dir():
        raise InputError("is a directory, expected a file", path=path)
    try:
        # O_NONBLOCK: opening a FIFO returns at once instead of waiting for a writer.
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        raise InputError("file not found", path=path) from None
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror}", path=path) from None
    with os.fdopen(descriptor, "rb") as stream:
        info = os.fstat(stream.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise InputError("is not a regular file (a FIFO, a socket or a device)", path=path)
        if info.st_size > MAX_BYTES:
            raise InputError(f"file is larger than {MAX_BYTES} bytes", path=path, line=1, col=1)
        try:
            raw = stream.read(MAX_BYTES + 1)
        except OSError as exc:
            raise InputError(f"cannot read file: {exc.strerror}", path=path) from None
    if len(raw) > MAX_BYTES:
        raise InputError(f"file is larger than {MAX_BYTES} bytes", path=path, line=1, col=1)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputError(
            f"not valid UTF-8 (byte 0x{raw[exc.start]:02x} at offset {exc.start})",
            path=path,
            line=line,
        ) from None


def load_yaml(path: Path) -> YamlDocument:
    text = read_text(path)
    if not text.strip():
        raise InputError("file is empty", path=path, line=1, col=1)
    if len(text) > MAX_CHARS:
        raise InputError(f"file is larger than {MAX_CHARS} characters", path=path, line=1, col=1)
    if FAST_LOADER is not None:
        try:
            return _load(text, path, FAST_LOADER)
        except (yaml.YAMLError, InputError):
            pass  # the pure-Python parser below says what is wrong, in its own words
    try:
        return _load(text, path, yaml.SafeLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else None
        col = mark.column + 1 if mark else None
        problem = exc.problem or exc.context or "invalid YAML"
        if problem == "mapping values are not allowed here":
            # `final: Wrote it: fix` — a `: ` inside a text written without quotes.
            problem += " (a ': ' inside a value written without quotes: put the value in quotes)"
        raise InputError(f"invalid YAML: {problem}", path=path, line=line, col=col) from None
    except yaml.YAMLError as exc:
        raise InputError(f"invalid YAML: {exc}", path=path) from None


def _load(text: str, path: Path, loader_class: type[yaml.SafeLoader]) -> YamlDocument:
    loader = loader_class(text)
    try:
        _check_events(text, path, loader_class)
        node = loader.get_single_node()
        if node is None:
            raise InputError("file is empty (no YAML document)", path=path, line=1, col=1)
        _check_expanded_size(node, path)
        doc = YamlDocument(path=path, data=None)
        _index(node, (), doc)
        doc.data = loader.construct_document(node)
        return doc
    finally:
        loader.dispose()


def _check_events(text: str, path: Path, loader_class: type[yaml.SafeLoader]) -> None:
    """Nesting depth and alias count, from the event stream: both parsers are iterative, so
    this pass is safe on input that would exhaust the recursive composer or the memory."""
    depth = 0
    aliases = 0
    for event in yaml.parse(text, Loader=loader_class):
        line, col = _where(event.start_mark)
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            depth += 1
            if depth > MAX_DEPTH:
                raise InputError(
                    f"nesting deeper than {MAX_DEPTH} levels", path=path, line=line, col=col
                )
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            depth -= 1
        elif isinstance(event, yaml.AliasEvent):
            aliases += 1
            if aliases > MAX_ALIASES:
                raise InputError(
                    f"more than {MAX_ALIASES} aliases (*name)", path=path, line=line, col=col
                )


def _where(mark: Any) -> tuple[int | None, int | None]:
    return (mark.line + 1, mark.column + 1) if mark is not None else (None, None)


def _check_expanded_size(root: yaml.Node, path: Path) -> None:
    """The node count once aliases are expanded (an alias bomb is small on disk and huge in
    memory), and no alias inside its own anchor. Iterative, memoised per shared node."""
    sizes: dict[int, int] = {}
    on_stack: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        if children_done:
            on_stack.discard(key)
            sizes[key] = 1 + sum(sizes[id(child)] for child in _children(node))
            if sizes[key] > MAX_EXPANDED_NODES:
                mark = node.start_mark
                raise InputError(
                    f"expands to more than {MAX_EXPANDED_NODES} values through aliases",
                    path=path,
                    line=mark.line + 1,
                    col=mark.column + 1,
                )
            continue
        if key in sizes:
            continue
        if key in on_stack:
            mark = node.start_mark
            raise InputError(
                "recursive alias: an anchor refers to itself",
                path=path,
                line=mark.line + 1,
                col=mark.column + 1,
            )
        on_stack.add(key)
        stack.append((node, True))
        stack.extend((child, False) for child in _children(node) if id(child) not in sizes)


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _index(node: yaml.Node, key: PathKey, doc: YamlDocument) -> None:
    doc.positions[key] = (node.start_mark.line + 1, node.start_mark.column + 1)
    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for key_node, value_node in node.value:
            name = str(key_node.value)
            child = (*key, name)
            if name in seen:
                raise InputError(
                    f"duplicate key {name!r}",
                    path=doc.path,
                    line=key_node.start_mark.line + 1,
                    col=key_node.start_mark.column + 1,
                    field=dotted(child),
                )
            seen.add(name)
            doc.key_positions[child] = (
                key_node.start_mark.line + 1,
                key_node.start_mark.column + 1,
            )
            _index(value_node, child, doc)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _index(item, (*key, index), doc)
