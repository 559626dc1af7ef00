"""`WrittenContents` answers exactly what the scans it replaced answered, whatever was written,
changed or removed in between (a differential test over random sessions of writes)."""

from __future__ import annotations

import random

from evaluator.evidence.written import WrittenContents

# Look-alikes on purpose: trailing and doubled slashes, the root, relative and empty paths,
# names that share a prefix without a slash (`/w/a` and `/w/ab`).
PATHS = [
    "",
    "/",
    "//",
    "/w",
    "/w/",
    "/w//",
    "/w/a",
    "/w/a/",
    "/w/ab",
    "/w/a/b",
    "/w/a/b/",
    "/w/a/bc",
    "/w/a//b",
    "/w/a/b/c.sh",
    "/x/a",
    "a",
    "a/b",
    "a/",
    "/w/a/./b",
]
CONTENTS: list[str | None] = [None, "", "echo hi\n", None]


def _unknown_scan(contents: dict[str, str | None], path: str) -> bool:
    # The scan `EvidenceBuilder.changed_under` did before the index.
    for written, content in contents.items():
        if content is None and (path == written or path.startswith(written.rstrip("/") + "/")):
            return True
    return False


def _under_scan(contents: dict[str, str | None], real: str) -> bool:
    # The scan `EvidenceBuilder.follow_run` did for a run of a tree before the index.
    return any(p == real or p.startswith(real.rstrip("/") + "/") for p in contents)


def _check(indexed: WrittenContents, plain: dict[str, str | None]) -> None:
    assert list(indexed.items()) == list(plain.items())
    assert len(indexed) == len(plain)
    for path in PATHS:
        assert indexed.unknown_at_or_above(path) == _unknown_scan(plain, path), path
        assert indexed.any_at_or_under(path) == _under_scan(plain, path), path
        assert (path in indexed) == (path in plain)
        assert indexed.get(path) == plain.get(path)


def test_the_index_answers_as_the_scans_did_over_random_writes() -> None:
    rng = random.Random(24)
    for _ in range(300):
        indexed, plain = WrittenContents(), {}
        for _ in range(rng.randrange(1, 40)):
            path, content = rng.choice(PATHS), rng.choice(CONTENTS)
            action = rng.randrange(5)
            if action <= 1:
                indexed[path] = content
                plain[path] = content
            elif action == 2:
                assert indexed.pop(path, "gone") == plain.pop(path, "gone")
            elif action == 3 and path in plain:
                del indexed[path]
                del plain[path]
            else:
                indexed.update({path: content})
                plain.update({path: content})
            _check(indexed, plain)


def test_a_path_rewritten_with_known_content_is_no_longer_unknown() -> None:
    contents = WrittenContents()
    contents["/w/out"] = None
    assert contents.unknown_at_or_above("/w/out/run.sh")
    contents["/w/out"] = "text"
    assert not contents.unknown_at_or_above("/w/out/run.sh")
    assert contents.any_at_or_under("/w")
    del contents["/w/out"]
    assert not contents.any_at_or_under("/w")
