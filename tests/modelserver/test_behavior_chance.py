"""Seeded `chance` branches: a behaviour that is flaky across attempts, deterministically."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from evaluator.adapters import adapter_names
from evaluator.modelserver import ScriptedModelServer, load_behaviors
from evaluator.modelserver.behaviors import Behavior, next_step
from evaluator.workspace.naming import attempt_folder, digest_name
from tests.conftest import DEMO_REPO

FLAKY_DIR = DEMO_REPO / "targets/db-migrations/behaviors/flaky"


def behavior(chance: float, seed: int = 0) -> Behavior:
    return Behavior.model_validate(
        {
            "name": "b",
            "match": {"prompt_contains": "x"},
            "seed": seed,
            "steps": [
                {
                    "when": {"chance": chance},
                    "then": [{"cmd": "wrong"}],
                    "else": [{"cmd": "right"}],
                },
                {"final": "f"},
            ],
        }
    )


def first_cmd(b: Behavior, key: str) -> str | None:
    step = next_step(b.steps, [], key, b.seed)
    assert step is not None
    return step.cmd


def test_the_draw_is_fixed_per_attempt_and_follows_the_probability() -> None:
    flaky = behavior(0.4, seed=3)
    keys = [f"case/attempt-{n:02d}" for n in range(1, 401)]
    taken = [first_cmd(flaky, k) for k in keys]
    assert taken == [first_cmd(flaky, k) for k in keys]  # every replay agrees
    share = taken.count("wrong") / len(keys)
    assert 0.33 < share < 0.47
    other_seed = [first_cmd(behavior(0.4, seed=4), k) for k in keys]
    assert other_seed != taken
    assert {first_cmd(behavior(0.0), k) for k in keys} == {"right"}
    assert {first_cmd(behavior(1.0), k) for k in keys} == {"wrong"}


@pytest.mark.parametrize(
    "when,message",
    [
        (
            {"chance": 0.5, "output_contains": "x"},
            "exactly one of output_contains, request_contains or chance",
        ),
        ({}, "exactly one of output_contains, request_contains or chance"),
        ({"chance": 1.5}, "less than or equal to 1"),
    ],
)
def test_malformed_chances_are_refused(when: dict[str, Any], message: str) -> None:
    steps = [{"when": when, "then": [{"cmd": "a"}]}, {"final": "f"}]
    with pytest.raises(ValidationError, match=message):
        Behavior.model_validate({"name": "b", "match": {"prompt_contains": "x"}, "steps": steps})


def _user(text: str) -> dict[str, object]:
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}


def _played(server: ScriptedModelServer, attempt: int, outputs: int, cwd: str = "") -> str:
    """The command the server plays for the demo's flaky behaviour at attempt N after `outputs`
    tool calls, given the attempt workspace Codex reports in its environment context."""
    cwd = cwd or f"/var/tmp/agentic-eval/r1/workspaces/routing-add-column/attempt-{attempt:02d}"
    history: list[dict[str, object]] = [
        _user(f"<environment_context>\n  <cwd>{cwd}</cwd>\n</environment_context>"),
        _user("Add a default currency per account."),
    ]
    for n in range(outputs):
        call: dict[str, object] = {
            "type": "function_call",
            "name": "exec_command",
            "call_id": f"c{n}",
            "arguments": "{}",
        }
        history += [call, {"type": "function_call_output", "call_id": f"c{n}", "output": "ok"}]
    status, body, _ = server.answer({"input": history}, {"thread-id": f"t{attempt}"})
    assert status == 200, body
    events = [
        json.loads(line[6:]) for line in body.decode().splitlines() if line.startswith("data: ")
    ]
    (item,) = [e["item"] for e in events if e["type"] == "response.output_item.done"]
    return str(json.loads(item["arguments"])["cmd"])


def test_the_demo_flaky_behaviour_fails_attempts_two_and_four() -> None:
    with ScriptedModelServer(load_behaviors(FLAKY_DIR, adapter_names())) as server:
        third = [_played(server, n, 2) for n in range(1, 6)]
        assert ["rename-table" in cmd for cmd in third] == [False, True, False, True, False]
        assert _played(server, 2, 3).startswith("python3 ")  # the branch joins the main path


def test_a_salted_server_draws_another_fixed_pattern() -> None:
    """Two lanes of one variant (an A/A evaluation) each get their own salt: their patterns
    differ as two real runs would, and each lane's pattern is the same in every run."""
    library = load_behaviors(FLAKY_DIR, adapter_names())
    patterns: dict[str, list[bool]] = {}
    for salt in ("", "a", "a", "b"):
        with ScriptedModelServer(library, draw_salt=salt) as server:
            pattern = ["rename-table" in _played(server, n, 2) for n in range(1, 41)]
        assert patterns.setdefault(salt, pattern) == pattern
    assert patterns[""][:5] == [False, True, False, True, False]  # unsalted: as before
    assert len({tuple(p) for p in patterns.values()}) == 3


def test_an_attempt_folder_draws_as_its_case_id() -> None:
    """Leftovers 14: an attempt's workspace is `<run>/w/<digest of the case id>/NN`
    (`workspace/naming.py`). A server told the run's case ids seeds a draw by
    `<case_id>/attempt-NN` as before, so every pinned pattern (the demo's, the goldens') holds;
    one not told them draws by the folder, another fixed pattern."""
    library = load_behaviors(FLAKY_DIR, adapter_names())
    case = "routing-add-column"
    folders = {digest_name(case): case}
    for salt in ("", "a"):
        with ScriptedModelServer(library, draw_salt=salt) as server:
            before = ["rename-table" in _played(server, n, 2) for n in range(1, 41)]
        for told in (folders, {}):
            with ScriptedModelServer(library, draw_salt=salt, case_folders=told) as server:
                now = [
                    "rename-table"
                    in _played(server, n, 2, attempt_folder(Path("/s/r/w"), case, n).as_posix())
                    for n in range(1, 41)
                ]
            assert (now == before) == bool(told), (salt, told)
