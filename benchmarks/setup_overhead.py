"""Attempt set-up (workspace + CODEX_HOME + process spawn) against the agent's own run time.

Target: set-up under 5% of a 2-turn scripted attempt. Run: .venv/bin/python -m benchmarks.setup_overhead
"""

from __future__ import annotations

import shutil
import subprocess
import time
import uuid
from functools import partial
from typing import Any

from benchmarks.common import ROOT, SCRATCH, median, table, timed
from evaluator.adapters import get_runner
from evaluator.adapters.codex.home import create_codex_home
from evaluator.agents import AgentRequest, ModelEndpoint
from evaluator.modelserver import Behavior, BehaviorLibrary, ScriptedModelServer
from evaluator.plan import open_repo
from evaluator.prompting import agent_prompt
from evaluator.workspace import build_workspace

RUNS = 10


def main() -> None:
    repo = open_repo(ROOT / "agentic-evals", None)
    target = repo.targets["db-migrations"]
    case = next(c for c in target.all_cases() if c.case_id == "routing-add-column")
    two_turns = Behavior.model_validate(
        {
            "name": "two-turn",
            "match": {"prompt_contains": "default currency"},
            "steps": [{"cmd": "cat .agents/skills/db-migrations/SKILL.md"}, {"final": "done"}],
        }
    )
    scratch = SCRATCH / uuid.uuid4().hex[:8]
    spawns: list[float] = []
    spawn_times: list[float] = []
    original_popen = subprocess.Popen

    class TimedPopen(subprocess.Popen[bytes]):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            start = time.perf_counter()
            super().__init__(*args, **kwargs)
            spawns.append(time.perf_counter() - start)

    # The runner spawns through `subprocess.Popen`, looked up when it spawns.
    setattr(subprocess, "Popen", TimedPopen)  # noqa: B010
    rows = []
    try:
        with ScriptedModelServer(BehaviorLibrary([two_turns])) as server:
            endpoint = ModelEndpoint("mock-model", server.base_url, scripted=True)
            runner = get_runner("codex-exec")
            ws_times, home_times, agent_times = [], [], []
            for attempt in range(1, RUNS + 1):
                workspace, ws_s = timed(
                    partial(
                        build_workspace,
                        case_workspace_root=scratch / "ws",
                        case=case,
                        target=target,
                        source_workspace=repo.source_workspace,
                        attempt=attempt,
                        environ={},
                    )
                )
                _, home_s = timed(
                    partial(create_codex_home, scratch / f"probe-home-{attempt}", endpoint)
                )
                spawned_before = len(spawns)
                handle = runner.run(
                    AgentRequest(
                        workspace=workspace.path,
                        agent_dir=scratch / "agents" / f"{attempt:02d}",
                        prompt=agent_prompt(case.case.input.user_prompt),
                        endpoint=endpoint,
                        timeout_s=60,
                    )
                )
                assert handle.fault is None, handle.fault
                # Every process the runner starts for the attempt (the agent, and any probe).
                spawn_times.append(sum(spawns[spawned_before:]))
                ws_times.append(ws_s)
                home_times.append(home_s)
                agent_times.append(handle.duration_s)
    finally:
        setattr(subprocess, "Popen", original_popen)  # noqa: B010
        shutil.rmtree(scratch, ignore_errors=True)
    setup = [w + h + s for w, h, s in zip(ws_times, home_times, spawn_times, strict=True)]
    rows.append(["workspace build", f"{median(ws_times) * 1000:.1f} ms"])
    rows.append(["CODEX_HOME + config", f"{median(home_times) * 1000:.1f} ms"])
    rows.append(["process spawn (Popen)", f"{median(spawn_times) * 1000:.1f} ms"])
    rows.append(["set-up total", f"{median(setup) * 1000:.1f} ms"])
    rows.append(["agent run (2 turns, codex exec)", f"{median(agent_times) * 1000:.0f} ms"])
    rows.append(["set-up / agent run", f"{median(setup) / median(agent_times):.1%} (target < 5%)"])
    table(f"Attempt set-up overhead, median of {RUNS} attempts", ["stage", "time"], rows)


if __name__ == "__main__":
    main()
