"""What trigger-only mode saves: agent time per prompt of a trigger run stopped at each decision
against the same run with full attempts.

The trigger set, distractors and behaviours of the real-agent trigger test
(tests/fixtures/trigger-run): five prompts, the good description; the behaviours that load the
skill go on working for 4 s after the load (a stand-in for the task an agent does once it has
its skill). Codex by default (`--agent claude-code` for Claude Code), scripted model, K attempts.
Run: .venv/bin/python -m benchmarks.trigger_cost [--attempts 3] [--agent codex-exec]
"""

from __future__ import annotations

import argparse
import json
import shutil
import uuid
from pathlib import Path
from typing import Any

from benchmarks.common import ROOT, SCRATCH, table, timed
from evaluator.pipeline.run import RunOptions
from evaluator.pipeline.triggers import TriggerOptions, TriggerRun

FIXTURES = ROOT / "tests/fixtures/trigger-run"


def _source(root: Path) -> Path:
    shutil.copytree(ROOT / ".agents/skills/db-migrations", root / ".agents/skills/db-migrations")
    for skill in ("pdf-forms", "csv-report"):
        shutil.copytree(FIXTURES / "skills" / skill, root / ".agents/skills" / skill)
    shutil.copytree(ROOT / "skill-eval", root / "skill-eval")
    repo = root / "agentic-evals"
    shutil.copytree(ROOT / "agentic-evals", repo, ignore=shutil.ignore_patterns("runs"))
    target = repo / "targets/db-migrations"
    shutil.copy(FIXTURES / "triggers.yaml", target / "triggers.yaml")
    with (target / "target.yaml").open("a") as handle:
        handle.write(
            'trigger_suite: "triggers.yaml"\n'
            'distractor_skills: [".agents/skills/pdf-forms", ".agents/skills/csv-report"]\n'
        )
    return repo


def _run(base: Path, agent: str, attempts: int, trigger_only: bool) -> tuple[dict[str, Any], float]:
    options = RunOptions(
        repo=_source(base / "source"),
        agent=agent,
        attempts=attempts,
        behaviors=FIXTURES / "behaviors",
        runs_dir=base / "runs",
        scratch_root=base / "scratch",
        skill_text=(FIXTURES / "descriptions/good.md").read_text(),
    )
    run = TriggerRun(options, TriggerOptions(trigger_only=trigger_only))
    outcome, wall = timed(run.execute)
    data = json.loads((outcome.run_dir.path / "triggers.json").read_text())
    return data, wall


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--attempts", type=int, default=3)
    parser.add_argument("--agent", default="codex-exec")
    args = parser.parse_args()
    base = SCRATCH / f"triggers-{uuid.uuid4().hex[:8]}"
    try:
        rows = []
        found = {}
        for label, trigger_only in (("trigger-only", True), ("full attempts", False)):
            data, wall = _run(
                base / label.replace(" ", "-"), args.agent, args.attempts, trigger_only
            )
            found[label] = data
            time = data["agent_time"]
            rows.append(
                [
                    label,
                    f"{data['over_prompts']['f1']:.2f}",
                    f"{time['total_s'] / max(1, len(time['mean_per_prompt_s'])):.2f} s",
                    f"{time['stopped_at_decision']} of {time['attempts']}",
                    f"{wall:.1f} s",
                ]
            )
        table(
            f"Trigger run, {args.agent}, 5 prompts x K={args.attempts}",
            ["mode", "F1", "agent time per prompt", "stopped at decision", "wall"],
            rows,
        )
        per_prompt = [
            [
                prompt,
                f"{seconds:.2f} s",
                f"{found['full attempts']['agent_time']['mean_per_prompt_s'][prompt]:.2f} s",
            ]
            for prompt, seconds in found["trigger-only"]["agent_time"]["mean_per_prompt_s"].items()
        ]
        table(
            "Mean agent time per attempt, by prompt", ["prompt", "trigger-only", "full"], per_prompt
        )
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
