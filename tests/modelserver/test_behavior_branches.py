"""Branches in behaviour files: a step group taken only when an earlier tool output held a text."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from evaluator.modelserver.behaviors import Behavior, next_step


def behavior(steps: list[dict[str, Any]]) -> Behavior:
    return Behavior.model_validate({"name": "b", "match": {"prompt_contains": "x"}, "steps": steps})


BRANCHING = behavior(
    [
        {"cmd": "cat SKILL.md"},
        {
            "when": {"output_contains": "ALWAYS read docs.txt"},
            "then": [{"cmd": "cat docs.txt"}, {"cmd": "cat ref.md"}],
            "else": [{"cmd": "ls"}],
        },
        {"final": "done"},
    ]
)


def played(outputs: list[str]) -> str | None:
    step = next_step(BRANCHING.steps, outputs)
    return None if step is None else (step.cmd or step.final)


def test_the_branch_follows_what_the_agent_read() -> None:
    assert played([]) == "cat SKILL.md"
    assert played(["# skill\nALWAYS read docs.txt first\n"]) == "cat docs.txt"
    assert played(["# skill\nALWAYS read docs.txt first\n", "index"]) == "cat ref.md"
    assert played(["# skill\nALWAYS read docs.txt first\n", "index", "ref"]) == "done"
    assert played(["# skill without the rule"]) == "ls"
    assert played(["# skill without the rule", "a b"]) == "done"
    assert played(["# skill without the rule", "a b", "extra"]) is None


def test_a_later_output_never_changes_a_decided_branch() -> None:
    # The text shows up only after the branch point: the `else` path stays the one taken.
    assert played(["nothing", "ALWAYS read docs.txt"]) == "done"


def test_without_else_a_false_branch_is_skipped() -> None:
    steps = behavior(
        [{"cmd": "a"}, {"when": {"output_contains": "zzz"}, "then": [{"cmd": "b"}]}, {"final": "f"}]
    ).steps
    assert next_step(steps, ["out"]).final == "f"  # type: ignore[union-attr]


def test_behaviours_without_branches_play_in_order() -> None:
    steps = behavior([{"cmd": "a"}, {"cmd": "b"}, {"final": "f"}]).steps
    assert [next_step(steps, ["x"] * n).action for n in range(3)] == ["cmd", "cmd", "final"]  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "steps,message",
    [
        ([{"when": {"output_contains": "a"}}, {"final": "f"}], "`when` needs `then`"),
        ([{"cmd": "a", "then": [{"cmd": "b"}]}, {"final": "f"}], "only go with `when`"),
        ([{"when": {"output_contains": "a"}, "then": [{"final": "f"}]}], "not a branch"),
        # A plain last step is named as what it is, and where to add the `final` (newuser5).
        (
            [{"cmd": "a"}, {"cmd": "b"}],
            r"not `cmd`: add a `final` step after steps\[1\]",
        ),
        ([{"when": {"output_contains": ""}, "then": [{"cmd": "b"}]}, {"final": "f"}], "at least 1"),
    ],
)
def test_malformed_branches_are_refused(steps: list[dict[str, Any]], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        behavior(steps)
