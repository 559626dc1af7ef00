"""The eBPF tracer's one loader per run (the default; `AGENTIC_EVAL_EBPF_PER_RUN=0` turns it off;
docs/benchmarks.md "One loader per run") in a real run of a real agent CLI: the loader killed
while an attempt's tool call runs ends that attempt blocked, never contained. Skipped where the
eBPF tracer cannot load. Slow: a real jail, trace and agent."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from evaluator.sandbox import ebpf, get_tracer
from tests.isolation.test_answer_only import ANSWER, _attempt, _run

pytestmark = [pytest.mark.slow, pytest.mark.codex]


def _running(command: str) -> bool:
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "cmdline").read_bytes().replace(
                    b"\0", b" "
                ).strip() == command.encode():
                    return True
            except OSError:
                continue
    return False


def _kill_the_loader_during(command: str, killed: list[int]) -> None:
    """SIGKILLs this process's loader once `command` runs (the agent's tool call)."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        servers = list(ebpf._shared.values())
        if servers and _running(command):
            servers[0].process.kill()
            killed.append(servers[0].process.pid)
            return
        time.sleep(0.05)


def test_the_loader_killed_during_a_tool_call_blocks_the_attempt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    why_not = get_tracer("ebpf").unavailable()
    if why_not:
        pytest.skip(f"no eBPF tracer here: {why_not}")
    monkeypatch.setenv(ebpf.PER_RUN_ENV, "1")
    ebpf.stop_shared_loaders()
    killed: list[int] = []
    killer = threading.Thread(target=_kill_the_loader_during, args=("sleep 7", killed))
    killer.start()
    steps: list[dict[str, Any]] = [
        {"cmd": "sleep 7; cat palette/SKILL.md"},
        {"final": f"Warnings are {ANSWER}."},
    ]
    try:
        outcome = _run(tmp_path, "codex-exec", steps, tracer="ebpf")
    finally:
        killer.join()
        ebpf.stop_shared_loaders()
    assert killed, "the tool call never ran"
    attempt = _attempt(outcome)
    assert attempt["isolation"] != "contained", attempt["isolation_report"]
    (result,) = outcome.results
    assert result.status == "blocked", json.dumps(attempt, indent=1)[:3000]
    assert os.path.exists(outcome.run_dir.path)
