"""The agents' start gate (`evaluator/agents/start_gate.py`): at most `slots` agent processes in
their start-up at once; a slot is held from the spawn until the process's first output, its exit
or the hold's end, and is given back on every path, a failed start included."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from evaluator.adapters import get_runner
from evaluator.agents import start_gate
from evaluator.agents.process import ProcessOutcome, kill_active, run_process
from evaluator.agents.start_gate import StartGate, agent_start_gate, default_slots
from tests.support import agent_or_skip, agent_params, behavior, run_attempt, scratch_dir, serving

WAIT_S = 10.0  # an upper bound for what must happen; never reached when the gate works
BLOCKED_S = 0.3  # how long a waiter is watched for not getting in


def _enters(gate: StartGate) -> threading.Event:
    """Enters `gate` from another thread; the event is set once it got a slot."""
    entered = threading.Event()

    def enter() -> None:
        gate.enter()
        entered.set()

    threading.Thread(target=enter, daemon=True).start()
    return entered


def test_a_slot_is_held_until_the_agent_has_started() -> None:
    gate = StartGate(1)
    started = threading.Event()
    gate.enter()
    gate.leave_when_started(started.is_set)
    second = _enters(gate)
    assert not second.wait(BLOCKED_S)
    started.set()
    assert second.wait(WAIT_S)
    gate.leave()


def test_slots_let_that_many_start_together() -> None:
    gate = StartGate(2)
    never = threading.Event()
    gate.enter()
    gate.leave_when_started(never.is_set)
    assert _enters(gate).wait(WAIT_S)
    assert not _enters(gate).wait(BLOCKED_S)


def test_a_silent_agent_gives_its_slot_back_after_the_hold(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(start_gate, "HOLD_MAX_S", 0.2)
    gate = StartGate(1)
    gate.enter()
    gate.leave_when_started(lambda: False)
    assert _enters(gate).wait(WAIT_S)


def test_a_failing_check_still_gives_the_slot_back() -> None:
    gate = StartGate(1)
    gate.enter()

    def broken() -> bool:
        raise OSError("the output file is gone")

    gate.leave_when_started(broken)
    assert _enters(gate).wait(WAIT_S)


def _wait_for(path: Path) -> None:
    """Until the agent made `path` (it has been spawned, so it holds its slot)."""
    deadline = time.monotonic() + WAIT_S
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} never made"
        time.sleep(0.01)


def _run(tmp_path: Path, argv: list[str], gate: StartGate) -> ProcessOutcome:
    return run_process(
        argv,
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin"},
        stdin_text="",
        stdout_path=tmp_path / "out",
        stderr_path=tmp_path / "err",
        timeout_s=60,
        start_gate=gate,
    )


def test_an_agent_that_has_written_frees_its_slot_while_it_runs(tmp_path: Path) -> None:
    gate = StartGate(1)
    release, running = tmp_path / "release", tmp_path / "running"
    agent = threading.Thread(
        target=_run,
        args=(
            tmp_path,
            [
                "sh",
                "-c",
                f"touch {running}; echo started; while [ ! -e {release} ]; do sleep 0.05; done",
            ],
            gate,
        ),
        daemon=True,
    )
    agent.start()
    try:
        _wait_for(running)
        # The first agent still runs (it waits for `release`), yet a second may start.
        assert _enters(gate).wait(WAIT_S)
        assert agent.is_alive()
    finally:
        release.touch()
        agent.join(WAIT_S)


def test_a_silent_agent_frees_its_slot_when_it_exits(tmp_path: Path) -> None:
    gate = StartGate(1)
    _run(tmp_path, ["true"], gate)
    assert _enters(gate).wait(WAIT_S)


def test_an_agent_that_cannot_start_gives_its_slot_back(tmp_path: Path) -> None:
    gate = StartGate(1)
    _run(tmp_path, [str(tmp_path / "no-such-agent")], gate)
    assert _enters(gate).wait(WAIT_S)


def test_an_output_file_that_cannot_be_made_takes_no_slot(tmp_path: Path) -> None:
    gate = StartGate(1)
    with pytest.raises(FileNotFoundError):
        run_process(
            ["true"],
            cwd=tmp_path,
            env={"PATH": "/usr/bin:/bin"},
            stdin_text="",
            stdout_path=tmp_path / "gone" / "out",
            stderr_path=tmp_path / "err",
            timeout_s=60,
            start_gate=gate,
        )
    assert _enters(gate).wait(WAIT_S)


def test_a_silent_running_agent_keeps_its_slot(tmp_path: Path) -> None:
    gate = StartGate(1)
    release, running = tmp_path / "release", tmp_path / "running"
    agent = threading.Thread(
        target=_run,
        args=(
            tmp_path,
            ["sh", "-c", f"touch {running}; while [ ! -e {release} ]; do sleep 0.05; done"],
            gate,
        ),
        daemon=True,
    )
    agent.start()
    try:
        _wait_for(running)  # it holds the slot: it runs
        assert not _enters(gate).wait(BLOCKED_S)
    finally:
        release.touch()
        agent.join(WAIT_S)


@pytest.mark.parametrize(
    ("setting", "slots"), [("0", None), ("off", None), ("3", 3), ("", default_slots())]
)
def test_the_setting_names_the_slots(
    monkeypatch: pytest.MonkeyPatch, setting: str, slots: int | None
) -> None:
    monkeypatch.setenv("AGENTIC_EVAL_START_GATE", setting)
    gate = agent_start_gate()
    assert (gate.slots if gate else None) == slots


def test_an_agent_waiting_at_the_gate_when_the_run_stops_never_starts(tmp_path: Path) -> None:
    gate = StartGate(1)
    gate.enter()  # the slot another agent holds
    marker = tmp_path / "started"
    outcome: list[ProcessOutcome] = []
    waiting = threading.Thread(
        target=lambda: outcome.append(_run(tmp_path, ["touch", str(marker)], gate)), daemon=True
    )
    waiting.start()
    assert not _enters_thread_done(waiting)
    kill_active()  # the run stops while it waits
    gate.leave()
    waiting.join(WAIT_S)
    assert outcome and outcome[0].error == "stopped before it started"
    assert not marker.exists()
    assert _enters(gate).wait(WAIT_S)


def _enters_thread_done(thread: threading.Thread) -> bool:
    thread.join(BLOCKED_S)
    return not thread.is_alive()


# Each CLI's first event, (type, subtype), as its stream writes it once started.
START_EVENTS: dict[str, tuple[str, str | None]] = {
    "codex": ("thread.started", None),
    "claude": ("system", "init"),
    "gemini": ("init", None),
}


@pytest.mark.parametrize("agent", agent_params("codex", "claude", "gemini"))
def test_each_real_cli_announces_its_start_before_anything_else(agent: str) -> None:
    """What `announces_start` declares, and the gate relies on: the CLI's first output is its
    start event, written before its first model turn."""
    runner = agent_or_skip(agent)
    assert get_runner(runner).announces_start
    answer = behavior("answer", "default currency per account", [{"final": "done"}])
    with scratch_dir() as scratch, serving(answer) as server:
        _, handle = run_attempt(scratch, server, "routing-add-column", runner=runner)
        first = json.loads(handle.stdout_path.read_text().splitlines()[0])
    assert (first.get("type"), first.get("subtype")) == START_EVENTS[agent]
