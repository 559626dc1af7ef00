"""The isolation stage resolves each path once per assessment and a file in a directory it
resolved before from that directory (`assess._named_known`): a differential test against the
whole walk (`assess._named`) over random paths through a tree of symlinks on disk (into and out
of the tree, relative, looping, into the kernel's doors), in random orders."""

from __future__ import annotations

import functools
import os
import random
from pathlib import Path

from evaluator.isolation.assess import NAMED_PATHS_KEPT, _named, _named_known
from evaluator.kernelpaths import KernelPath, disk_readlink

NAMES = ["a", "b", "c", "f.txt", "la", "lb", "lout", "lloop", "lself", "lproc", "ldot", "lup"]
STEPS = [*NAMES, "..", ".", "", "proc", "self", "root", "dev", "fd", "0", "1", "3", "cwd"]
# The doors and their directories, asked in every round (in random order with the rest).
DOORS = ["/proc", "/proc/1", "/proc/1/root", "/proc/self", "/proc/self/root", "/proc/sys"]
DOORS += ["/dev", "/dev/fd", "/dev/fd/3", "/dev/stdin", "/dev/null", "/proc/1/cwd/x"]


def _tree(root: Path) -> None:
    for directory in ("a", "a/b", "a/b/c", "b", "c"):
        (root / directory).mkdir(parents=True, exist_ok=True)
    for directory in ("", "a", "a/b", "a/b/c", "b", "c"):
        (root / directory / "f.txt").write_text("x")
        base = root / directory
        os.symlink("a", base / "la")  # relative, may not exist here
        os.symlink(str(root / "b"), base / "lb")  # absolute, into the tree
        os.symlink("/etc", base / "lout")  # out of the tree
        os.symlink("lloop", base / "lloop")  # a loop
        os.symlink(".", base / "lself")
        os.symlink("/proc/self/root/etc", base / "lproc")  # into a door
        os.symlink("..", base / "lup")
        os.symlink("./a/../b", base / "ldot")


def _paths(root: Path, rng: random.Random, count: int) -> list[str]:
    starts = [str(root), str(root), str(root), "/", "/proc/self", "/dev", "rel", str(root) + "/"]
    paths = []
    for _ in range(count):
        steps = [
            rng.choice(NAMES if rng.random() < 0.8 else STEPS) for _ in range(rng.randrange(5))
        ]
        path = rng.choice(starts)
        for step in steps:
            path = f"{path.rstrip('/')}/{step}" if rng.random() < 0.9 else f"{path}//{step}"
        paths.append(path)
    return paths


def test_paths_resolved_from_known_directories_are_those_of_the_whole_walk(
    tmp_path: Path,
) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    _tree(root)
    rng = random.Random(24)
    fast_paths = 0
    for _ in range(40):
        readlink = functools.cache(disk_readlink)
        known: dict[str, KernelPath] = {}
        paths = _paths(root, rng, 300)
        paths += [str(Path(p).parent) for p in rng.sample(paths, 50)]  # directories after files
        paths += DOORS * 3
        rng.shuffle(paths)
        for path in paths:
            fast_paths += path not in known and path.rpartition("/")[0] in known
            assert _named_known(path, readlink, known) == _named(path, readlink), path
    assert fast_paths > 1000  # the directory's shortcut was taken, not only whole walks


def test_the_paths_kept_are_bounded(tmp_path: Path) -> None:
    readlink = functools.cache(disk_readlink)
    known: dict[str, KernelPath] = {}
    for index in range(NAMED_PATHS_KEPT + 500):
        path = f"{tmp_path}/d{index % 7}/f{index}"
        assert _named_known(path, readlink, known) == _named(path, readlink)
    assert len(known) == NAMED_PATHS_KEPT
