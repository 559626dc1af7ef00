"""Wall time of one scripted attempt: plain, under strace, inside bubblewrap, and both.

The four set-ups run interleaved (plain, trace, jail, both, plain, ...) so load on the machine
hits them alike; ratios are against plain in the same run. Also prints the trace's size.
Run: .venv/bin/python -m benchmarks.trace_overhead [runs]
"""

from __future__ import annotations

import shutil
import sys
import uuid
from pathlib import Path

from benchmarks.common import ROOT, SCRATCH, median, table, timed
from evaluator.adapters import get_runner
from evaluator.adapters.codex.trace import RECOGNIZER as CODEX_CALLS
from evaluator.agents import AgentRequest, ModelEndpoint
from evaluator.modelserver import Behavior, BehaviorLibrary, ScriptedModelServer
from evaluator.plan import open_repo
from evaluator.prompting import agent_prompt
from evaluator.sandbox import LaunchPolicy
from evaluator.sandbox.strace_log import read_trace
from evaluator.workspace import build_workspace

SETUPS = {
    "plain": LaunchPolicy(),
    "strace": LaunchPolicy(trace=True),
    "bwrap": LaunchPolicy(jail="bwrap", hidden=(ROOT, Path.home())),
    "bwrap + strace": LaunchPolicy(jail="bwrap", trace=True, hidden=(ROOT, Path.home())),
}
STEPS = [
    {"cmd": "cat .agents/skills/db-migrations/SKILL.md"},
    {"cmd": "ls -la .agents/skills/db-migrations/references"},
    {"cmd": "python3 -c 'print(1)' && git status --short || true"},
    {"final": "done"},
]


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    repo = open_repo(ROOT / "agentic-evals", None)
    target = repo.targets["db-migrations"]
    case = next(c for c in target.all_cases() if c.case_id == "routing-add-column")
    behavior = Behavior.model_validate(
        {"name": "bench", "match": {"prompt_contains": "default currency"}, "steps": STEPS}
    )
    scratch = SCRATCH / uuid.uuid4().hex[:8]
    times: dict[str, list[float]] = {name: [] for name in SETUPS}
    trace_lines: list[int] = []
    parse_times: list[float] = []
    runner = get_runner("codex-exec")
    try:
        with ScriptedModelServer(BehaviorLibrary([behavior])) as server:
            endpoint = ModelEndpoint("mock-model", server.base_url, scripted=True)
            number = 0
            for _ in range(runs):
                for name, policy in SETUPS.items():
                    number += 1
                    workspace = build_workspace(
                        case_workspace_root=scratch / "ws",
                        case=case,
                        target=target,
                        source_workspace=repo.source_workspace,
                        attempt=number,
                        environ={},
                    )
                    handle = runner.run(
                        AgentRequest(
                            workspace=workspace.path,
                            agent_dir=scratch / "agents" / f"{number:03d}",
                            prompt=agent_prompt(case.case.input.user_prompt),
                            endpoint=endpoint,
                            timeout_s=120,
                            launch=policy,
                        )
                    )
                    assert handle.fault is None, f"{name}: {handle.fault}"
                    times[name].append(handle.duration_s)
                    if handle.trace_path is not None:
                        parsed, seconds = timed(
                            lambda p=handle.trace_path: read_trace(p, CODEX_CALLS)
                        )
                        trace_lines.append(parsed.lines)
                        parse_times.append(seconds)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    plain = median(times["plain"])
    rows = [
        [
            name,
            f"{median(values):.2f} s",
            f"{min(values):.2f}-{max(values):.2f} s",
            f"{median(values) - plain:+.2f} s",
            f"{median(values) / plain:.2f}x",
        ]
        for name, values in times.items()
    ]
    table(
        f"One scripted attempt (3 commands + answer), median of {runs} interleaved runs",
        ["set-up", "median", "range", "added", "ratio"],
        rows,
    )
    print(
        f"\ntrace: median {median(trace_lines):.0f} lines per attempt,"
        f" read and attributed in {median(parse_times) * 1000:.0f} ms"
    )


if __name__ == "__main__":
    main()
