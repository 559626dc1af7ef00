"""CodexOpt rollout tasks: one command task per case that runs `agentic-eval score --case ...`
in CodexOpt's temp copy of the repo, passing on the VERDICT line.

CodexOpt's skillopt engine splits the task list in file order (`round(n * ratio)` train tasks
first), so train cases come first and `skillopt_train_ratio = n_train / n` reproduces our split.
Test-split cases stay out: they are held out from optimisation."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from evaluator.plan import Selection, case_split
from evaluator.repo import EvalRepo, LoadedCase

PASS_LINE = "VERDICT: PASS"
# Seconds CodexOpt waits beyond our own per-attempt timeouts before it kills the command.
MARGIN_S = 120


@dataclass
class TaskExport:
    tasks: list[dict[str, Any]]
    n_train: int

    @property
    def train_ratio(self) -> float | None:
        """None when CodexOpt cannot reproduce the split (it keeps one task on each side)."""
        n = len(self.tasks)
        if n < 2 or not 0 < self.n_train < n:
            return None
        ratio = self.n_train / n
        if not 0.1 <= ratio <= 0.9:
            return None
        return ratio


def _task(
    repo: EvalRepo,
    case: LoadedCase,
    *,
    program: str,
    repo_arg: str,
    attempts: int,
    min_pass_rate: float,
    timeout_s: float,
    behaviors: str | None,
    agent_args: tuple[str, ...],
) -> dict[str, Any]:
    target = repo.targets[case.target_id].target
    command = [program, "score", "--repo", repo_arg, "--target", case.target_id]
    command += ["--case", case.case_id, "--skill", target.entry_skill]
    command += ["--attempts", str(attempts), "--min-pass-rate", f"{min_pass_rate:g}"]
    # --json: a one-line summary just before the VERDICT line, inside CodexOpt's 4000-char tail.
    command += ["--timeout", f"{timeout_s:g}", "--workers", "1", "--json"]
    if behaviors:
        command += ["--behaviors", behaviors]
    command += agent_args
    # No `prompt` key: it would turn the task into a Codex task (CodexOpt pitfall).
    return {
        "name": f"{case.suite_id}__{case.case_id}",
        "description": case.case.title,
        "backend": "command",
        "command": command,
        "timeout_seconds": math.ceil(attempts * timeout_s + MARGIN_S),
        "expected_stdout_contains": PASS_LINE,
    }


def export_tasks(
    repo: EvalRepo,
    selection: Selection,
    *,
    program: str = "agentic-eval",
    repo_arg: str = "agentic-evals",
    attempts: int = 1,
    min_pass_rate: float = 1.0,
    timeout_s: float = 300.0,
    behaviors: str | None = None,
    agent_args: tuple[str, ...] = (),
) -> TaskExport:
    """`agent_args` are `score`'s agent and endpoint options (`--agent`, `--model`,
    `--base-url`, `--api-key-env`), given to every task as they are."""
    splits = {c.case_id: case_split(c, repo.config.splits) for c in selection.cases}
    ordered = [c for c in selection.cases if splits[c.case_id] == "train"]
    n_train = len(ordered)
    ordered += [c for c in selection.cases if splits[c.case_id] == "val"]
    tasks = [
        _task(
            repo,
            case,
            program=program,
            repo_arg=repo_arg,
            attempts=attempts,
            min_pass_rate=min_pass_rate,
            timeout_s=case.case.timeout_s or timeout_s,
            behaviors=behaviors,
            agent_args=agent_args,
        )
        for case in ordered
    ]
    return TaskExport(tasks, n_train)
