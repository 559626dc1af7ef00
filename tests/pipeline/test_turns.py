"""A no-skill attempt never runs beside a with-skill one (red team 16, `pipeline/turns.py`)."""

from __future__ import annotations

from collections import deque

from evaluator.pipeline.run import interleave
from evaluator.pipeline.turns import Turns


def _simulate(queue: list[str], workers: int, ends: list[int]) -> list[set[str]]:
    """Drives `queue` as `_pool` does: starts what `Turns` allows, then ends the running
    attempt at index `ends[i] % len(running)` of the sorted running set, one per round. Returns
    the set running after each round of starts. `n…` items are no-skill attempts."""
    waiting = deque(queue)
    turns: Turns[str] = Turns(workers, lambda item: item.startswith("n"))
    running: set[str] = set()
    seen: list[set[str]] = []
    step = 0
    while waiting or running:
        while (item := turns.take(waiting, len(running))) is not None:
            running.add(item)
        seen.append(set(running))
        assert running, "nothing runs while attempts wait"
        running.remove(sorted(running)[ends[step % len(ends)] % len(running)])
        step += 1
    return seen


def test_a_no_skill_attempt_never_runs_beside_a_with_skill_one() -> None:
    queue = interleave([[f"s{i}" for i in range(7)], [f"n{i}" for i in range(7)]])
    for workers in (1, 2, 3, 8):
        for ends in ([0], [1], [0, 1, 2], [2, 0]):
            rounds = _simulate(queue, workers, ends)
            for running in rounds:
                assert len(running) <= workers
                kinds = {item[0] for item in running}
                assert len(kinds) == 1, (workers, ends, running)
            started = set().union(*rounds)
            assert started == set(queue)  # every attempt ran


def test_turns_keep_the_interleaved_order_and_use_every_worker() -> None:
    """Two workers: s0 s1, then n0 n1, then s2 s3 ...; each turn as full as the pool."""
    queue = interleave([[f"s{i}" for i in range(4)], [f"n{i}" for i in range(4)]])
    waiting = deque(queue)
    turns: Turns[str] = Turns(2, lambda item: item.startswith("n"))
    order = []
    while waiting:
        batch = []
        while (item := turns.take(waiting, len(batch))) is not None:
            batch.append(item)
        order.append(batch)
    assert order == [["s0", "s1"], ["n0", "n1"], ["s2", "s3"], ["n2", "n3"]]


def test_one_kind_of_attempt_runs_as_before() -> None:
    """A plain run, an A/A pair, two skill versions: the queue's order, every worker busy."""
    waiting = deque(["a", "b", "c", "d", "e"])
    turns: Turns[str] = Turns(3, lambda item: False)
    assert [turns.take(waiting, n) for n in range(3)] == ["a", "b", "c"]
    assert turns.take(waiting, 3) is None  # the pool is full
    assert turns.take(waiting, 2) == "d"  # one ended: the next starts at once
    assert turns.take(waiting, 2) == "e"


def test_two_skill_versions_never_run_together_and_one_version_does() -> None:
    """Red team 17: `a…` and `b…` are attempts of two versions of a skill, `n…` of none, `c…`
    and `d…` an A/A pair of one skill (one kind). Before, only "no skill" was a kind of its
    own: an attempt of version A ran beside one of version B."""
    kinds = {"a": "v1", "b": "v2", "n": None, "c": "v3", "d": "v3"}
    queue = interleave([[f"{k}{i}" for i in range(5)] for k in "abn"])
    for workers in (2, 3, 8):
        for ends in ([0], [1], [0, 1, 2]):
            waiting = deque(queue)
            turns: Turns[str] = Turns(workers, lambda item: kinds[item[0]])
            running: set[str] = set()
            step = 0
            while waiting or running:
                while (item := turns.take(waiting, len(running))) is not None:
                    running.add(item)
                assert len({kinds[i[0]] for i in running}) == 1, (workers, running)
                running.remove(sorted(running)[ends[step % len(ends)] % len(running)])
                step += 1
    pair = deque(interleave([[f"c{i}" for i in range(3)], [f"d{i}" for i in range(3)]]))
    turns = Turns(2, lambda item: kinds[item[0]])
    assert [turns.take(pair, n) for n in range(2)] == ["c0", "d0"]  # together, as before


def test_the_kind_of_a_lane_is_the_skill_its_attempts_are_given() -> None:
    """What `_pool` turns by: none; a version's source workspace and skill text."""
    from pathlib import Path
    from types import SimpleNamespace
    from typing import Any

    from evaluator.pipeline.run import skill_kind

    def lane(source: str, text: str | None = None, no_skill: bool = False) -> Any:
        options = SimpleNamespace(source_workspace=Path(source), skill_text=text, no_skill=no_skill)
        return SimpleNamespace(run=SimpleNamespace(options=options))

    assert skill_kind(lane("/src", no_skill=True)) is None
    assert skill_kind(lane("/src")) == skill_kind(lane("/src"))  # an A/A pair
    assert skill_kind(lane("/work/v1")) != skill_kind(lane("/work/v2"))  # two versions
    assert skill_kind(lane("/src", "v1 text")) != skill_kind(lane("/src", "v2 text"))
    assert skill_kind(lane("/src")) != skill_kind(lane("/src", no_skill=True))
