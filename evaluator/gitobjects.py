"""git's compressed object files, as the redactor and the declared-value check read them.

A loose object (`objects/ab/cdef...`) is one zlib stream; a pack (`objects/pack/*.pack`) is a
12-byte header and its objects, each a zlib stream after its own header. A key committed and
then removed from the file is still there, compressed.
"""

from __future__ import annotations

import re
from pathlib import PurePath
from typing import Literal

GitObjectKind = Literal["loose", "pack"]
_HEX = re.compile(r"^[0-9a-f]+$")
_OBJECTS = "objects"


def git_object_kind(path: PurePath) -> GitObjectKind | None:
    """ "loose" for a loose object (`objects/ab/` and 38 or 62 hex digits, SHA-1 or SHA-256),
    "pack" for a pack, else None."""
    parent = path.parent
    if path.suffix == ".pack" and parent.name == "pack" and parent.parent.name == _OBJECTS:
        return "pack"
    if (
        parent.parent.name == _OBJECTS
        and len(parent.name) == 2
        and len(path.name) in (38, 62)
        and _HEX.match(parent.name + path.name)
    ):
        return "loose"
    return None


PACK_HEADER_BYTES = 12


def pack_object_count(data: bytes) -> int:
    """How many objects a pack holds, from its header; `ValueError` for what is not a pack."""
    if data[:4] != b"PACK" or len(data) < PACK_HEADER_BYTES:
        raise ValueError("not a git pack")
    return int.from_bytes(data[8:PACK_HEADER_BYTES], "big")


def pack_stream_start(data: bytes, position: int) -> int:
    """Where the zlib stream of the pack object whose header is at `position` begins (its type
    and size, and a delta's base). `IndexError` past the pack's end."""
    byte = data[position]
    kind = (byte >> 4) & 7
    position += 1
    while byte & 0x80:  # the object's size, a varint
        byte = data[position]
        position += 1
    if kind == 6:  # a delta against an object at an offset: the offset, a varint
        byte = data[position]
        position += 1
        while byte & 0x80:
            byte = data[position]
            position += 1
    elif kind == 7:  # a delta against an object by name: 20 bytes
        position += 20
    return position
