"""Compressors, encoders and dumpers: what they read, whether their output shows it, what they
write (`gzip X` replaces X by X.gz)."""

from __future__ import annotations

import pytest

from evaluator.evidence.shell import analyze_command


def _accesses(command: str) -> list[tuple[str, str]]:
    analysis = analyze_command(command, "/w/ws")
    assert analysis.opaque == []
    return [(a.kind, a.path) for a in analysis.accesses]


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        # To stdout: the source is read; compressed or encoded, it still reaches the agent.
        ("gzip -c f | base64", [("read", "/w/ws/f")]),
        ("gzip --stdout f", [("read", "/w/ws/f")]),
        ("gunzip -c f.gz", [("read", "/w/ws/f.gz")]),
        ("gzip -dc f.gz", [("read", "/w/ws/f.gz")]),
        ("bzip2 -dc f.bz2", [("read", "/w/ws/f.bz2")]),
        ("xz -dc f.xz", [("read", "/w/ws/f.xz")]),
        ("zstd -c f", [("read", "/w/ws/f")]),
        ("lz4 -c f", [("read", "/w/ws/f")]),
        ("zcat f.gz", [("read", "/w/ws/f.gz")]),
        ("zstdcat f.zst", [("read", "/w/ws/f.zst")]),
        ("lz4cat f.lz4", [("read", "/w/ws/f.lz4")]),
        # Sent to a file: nothing shown.
        ("gzip -c f > o.gz", [("metadata", "/w/ws/f"), ("write", "/w/ws/o.gz")]),
        # In place: the source is read into a copy, then removed unless kept.
        ("gzip f", [("read", "/w/ws/f"), ("write", "/w/ws/f"), ("write", "/w/ws/f.gz")]),
        ("gzip -k f", [("read", "/w/ws/f"), ("write", "/w/ws/f.gz")]),
        ("gzip -S .x f", [("read", "/w/ws/f"), ("write", "/w/ws/f"), ("write", "/w/ws/f.x")]),
        ("gunzip f.gz", [("read", "/w/ws/f.gz"), ("write", "/w/ws/f.gz"), ("write", "/w/ws/f")]),
        (
            "gzip -d a.tgz",
            [("read", "/w/ws/a.tgz"), ("write", "/w/ws/a.tgz"), ("write", "/w/ws/a.tar")],
        ),
        ("gunzip f.txt", [("read", "/w/ws/f.txt")]),  # no suffix it knows: refused
        ("gzip -r d", [("read", "/w/ws/d"), ("write", "/w/ws/d")]),
        ("bzip2 f", [("read", "/w/ws/f"), ("write", "/w/ws/f"), ("write", "/w/ws/f.bz2")]),
        (
            "bunzip2 f.bz2",
            [("read", "/w/ws/f.bz2"), ("write", "/w/ws/f.bz2"), ("write", "/w/ws/f")],
        ),
        ("xz f", [("read", "/w/ws/f"), ("write", "/w/ws/f"), ("write", "/w/ws/f.xz")]),
        (
            "unxz a.txz",
            [("read", "/w/ws/a.txz"), ("write", "/w/ws/a.txz"), ("write", "/w/ws/a.tar")],
        ),
        ("zstd f", [("read", "/w/ws/f"), ("write", "/w/ws/f.zst")]),
        ("zstd --rm f", [("read", "/w/ws/f"), ("write", "/w/ws/f"), ("write", "/w/ws/f.zst")]),
        ("zstd -d f.zst -o g", [("write", "/w/ws/g"), ("read", "/w/ws/f.zst")]),
        ("unzstd f.zst", [("read", "/w/ws/f.zst"), ("write", "/w/ws/f")]),
        ("lz4 f", [("read", "/w/ws/f"), ("write", "/w/ws/f.lz4")]),
        ("lz4 f out", [("read", "/w/ws/f"), ("write", "/w/ws/out")]),
        ("lz4 -d f.lz4", [("read", "/w/ws/f.lz4"), ("write", "/w/ws/f")]),
        # Tested or listed: touched, nothing shown or written.
        ("gzip -t f.gz", [("metadata", "/w/ws/f.gz")]),
        ("xz -l f.xz", [("metadata", "/w/ws/f.xz")]),
        # Encoders and dumpers show the content, transformed.
        ("base64 f", [("read", "/w/ws/f")]),
        ("base32 f", [("read", "/w/ws/f")]),
        ("basenc --base64url -w 0 f", [("read", "/w/ws/f")]),
        ("od -An -c f", [("read", "/w/ws/f")]),
        ("hexdump -C f", [("read", "/w/ws/f")]),
        ("xxd f", [("read", "/w/ws/f")]),
        ("xxd f out", [("read", "/w/ws/f"), ("write", "/w/ws/out")]),
        ("strings -n 8 f", [("read", "/w/ws/f")]),
        ("tac f", [("read", "/w/ws/f")]),
        ("nl f", [("read", "/w/ws/f")]),
        ("fold -w 20 f", [("read", "/w/ws/f")]),
        ("expand f", [("read", "/w/ws/f")]),
        ("iconv -f utf-8 -t ascii f", [("read", "/w/ws/f")]),
        # A checksum touches the file and shows none of it.
        ("cksum f", [("metadata", "/w/ws/f")]),
        ("md5sum f", [("metadata", "/w/ws/f")]),
    ],
)
def test_compressors_encoders_and_dumpers(command: str, expected: list[tuple[str, str]]) -> None:
    assert _accesses(command) == expected


def test_an_in_place_compression_leaves_unknown_content() -> None:
    contents = analyze_command("gzip f", "/w/ws").contents
    assert [(c.path, c.content, c.removed) for c in contents] == [
        ("/w/ws/f", None, True),
        ("/w/ws/f.gz", None, False),
    ]
