"""Leftovers, eleventh session: an order of two acts when a helper the agent spawned did one of
them (`ran_before`, `read_before`; `judge/checks/across_sessions.py`), through the real Claude
Code and Codex CLIs with the default layers.

On `main` the order was judged on the parent's session alone: an agent that handed the first
act to a helper and did the second itself after the helper's end was judged `fail` ("never
read", "no command ran"). The parent's session bounds a helper it waited for: its acts lie
between the spawn call and the receipt of its end."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support import agent_or_skip, run_scripted_repo, write_checks_suite, write_file

SKILL = ".agents/skills/docs/SKILL.md"
REFERENCE = ".agents/skills/docs/references/launch.md"
NOTES = ".agents/skills/docs/references/notes.md"
CHECKS = [
    {"kind": "ran_before", "first": "touch checked", "then": "touch launched"},
    {"kind": "read_before", "first": REFERENCE, "then": NOTES},
]
# The helper does both first acts; the parent the second ones.
HELPER_STEPS = [{"cmd": f"cat {REFERENCE}"}, {"cmd": "touch checked"}]
PARENT_STEPS = [{"cmd": "touch launched"}, {"cmd": f"cat {NOTES}"}]


@pytest.mark.parametrize(
    "agent",
    [
        pytest.param("claude", marks=pytest.mark.claude),
        pytest.param("codex", marks=pytest.mark.codex),
    ],
)
def test_an_order_across_a_helper_is_judged_from_the_parents_bounds(
    tmp_path: Path, agent: str
) -> None:
    """`honest`: the helper checks and reads the reference, the parent receives its end, then
    launches and reads its notes: pass (on `main`: fail, the first acts "never" happened).
    `late`: the parent launches and reads first, then spawns the helper: fail. `unwaited`
    (Codex, whose spawn returns at once): the parent acts while the helper may still run, and
    waits only after, or Claude Code's helper in the background: blocked (the agent's), never a
    pass. `notified`: the parent never waits (Claude Code: a background helper), but the CLI's
    notice that the helper ended comes before its acts: pass, as with a wait. `detached`: the helper leaves its check running (Claude Code's `run_in_background`,
    a Codex exec that answers while its process runs) and ends: blocked (on `main`'s rule of
    this branch's first commit: a pass, with no check done)."""
    from evaluator.pipeline.rejudge import rejudge_run

    runner = agent_or_skip(agent)
    # Codex's spawn returns at once: its receipt of the helper's end is a `wait_agent`.
    wait: list[dict[str, Any]] = [{"wait": {"timeout_ms": 60000}}] if agent == "codex" else []
    source = tmp_path / "source"
    write_file(source / SKILL, "---\nname: docs\ndescription: Docs.\n---\n# Docs\n")
    write_file(source / REFERENCE, "Launch only after the checklist is green, always.\n")
    write_file(source / NOTES, "Notes of the last launch, kept by the team.\n")

    def spawn(name: str) -> dict[str, Any]:
        return {"spawn": {"message": f"helper task: {name}"}}

    cases: dict[str, list[dict[str, Any]]] = {
        "honest": [spawn("honest"), *wait, *PARENT_STEPS],
        "late": [*PARENT_STEPS, spawn("late"), *wait],
    }
    # No wait: the parent lets time pass until the helper has ended, and the CLI tells it so
    # (Codex's `<subagent_notification>`, Claude Code's `task-notification` for a background
    # helper, put into the parent's turn) before its own acts.
    settle = {"cmd": "until [ -e checked ]; do sleep 0.2; done; sleep 4"}
    if agent == "codex":
        cases["unwaited"] = [spawn("unwaited"), *PARENT_STEPS, *wait]
        cases["notified"] = [spawn("notified"), settle, *PARENT_STEPS]
    else:
        # Claude Code's Agent tool in the background answers at once (`async_launched`).
        background = {"spawn": {"message": "helper task: unwaited", "background": True}}
        cases["unwaited"] = [background, *PARENT_STEPS]
        notified = {"spawn": {"message": "helper task: notified", "background": True}}
        cases["notified"] = [notified, settle, *PARENT_STEPS]
    # The helper checks in a command it leaves running, and ends before the check is done.
    cases["detached"] = [spawn("detached"), *wait, *PARENT_STEPS]
    repo, behaviors = tmp_path / "repo", tmp_path / "behaviors"
    write_checks_suite(
        repo,
        ("docs", "Helper", SKILL, [REFERENCE, NOTES]),
        "order",
        {name: (steps, CHECKS) for name, steps in cases.items()},
        lambda case: f"Order across sessions, case {case}.",
        behaviors,
    )
    detached = {"command": "sleep 2; touch checked", "run_in_background": True}
    if agent == "codex":
        detached = {"cmd": "sleep 2; touch checked", "yield_time_ms": 250}
    name_of = {"claude": "Bash", "codex": "exec_command"}[agent]
    steps_of = {name: HELPER_STEPS for name in cases}
    steps_of["detached"] = [HELPER_STEPS[0], {"call": {"name": name_of, "args": detached}}]
    for name in cases:
        helper = {
            "name": f"the-helper-{name}",
            "match": {"prompt_contains": f"helper task: {name}", "thread": "child"},
            "steps": [*steps_of[name], {"final": "Done it."}],
        }
        (behaviors / f"helper-{name}.yaml").write_text(json.dumps(helper))
    outcome = run_scripted_repo(repo, source, behaviors, tmp_path / "runs", runner)
    run_dir = outcome.run_dir.path
    got = {}
    for name in cases:
        path = run_dir / f"case-artifacts/{name}/attempts/attempt-01/attempt.json"
        attempt = json.loads(path.read_text())
        assert attempt["isolation"] == "contained", attempt.get("reason")
        got[name] = [(e["status"], e["checks"][0]["detail"]) for e in attempt["assertions"]]
    expected = {"honest": ["pass", "pass"], "late": ["fail", "fail"]}
    expected["unwaited"] = ["blocked", "blocked"]
    expected["detached"] = ["blocked", "blocked"]
    expected["notified"] = ["pass", "pass"]  # on `main`: blocked, the notice not read
    assert {name: [s for s, _ in entries] for name, entries in got.items()} == expected, got
    again = {r.case_id: [a.status for a in r.assertions] for r in rejudge_run(run_dir)}
    assert again == expected, again
