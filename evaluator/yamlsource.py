"""YAML loading that remembers where every value came from, so errors can name file:line:col."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from evaluator.errors import InputError

Position = tuple[int, int]
PathKey = tuple[str | int, ...]


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
    if path.is_dir():
        raise InputError("is a directory, expected a file", path=path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise InputError("file not found", path=path) from None
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror}", path=path) from None
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
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            raise InputError("file is empty (no YAML document)", path=path, line=1, col=1)
        doc = YamlDocument(path=path, data=None)
        _index(node, (), doc)
        doc.data = loader.construct_document(node)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else None
        col = mark.column + 1 if mark else None
        problem = exc.problem or exc.context or "invalid YAML"
        raise InputError(f"invalid YAML: {problem}", path=path, line=line, col=col) from None
    except yaml.YAMLError as exc:
        raise InputError(f"invalid YAML: {exc}", path=path) from None
    finally:
        loader.dispose()
    return doc


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
