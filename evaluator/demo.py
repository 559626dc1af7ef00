"""`./dev demo [--agent A]`: the demo target end to end with a real agent CLI (Codex by default,
Claude Code or Gemini CLI) and the scripted model.

Two runs: the behaviours that follow the skill (expected: every case passes except the one that
needs DATABASE_URL, which is blocked), and the broken behaviours (expected: the evaluator fails
or blocks every case they cover). The demo exits 0 only when both come out as expected.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from evaluator.adapters import DEFAULT_RUNNER, agent_choices, runner_named
from evaluator.cli.history import record_finished_run
from evaluator.errors import EvalError
from evaluator.pipeline.progress import choose_progress
from evaluator.pipeline.run import Run, RunOptions, new_run_id
from evaluator.workspace.memory import enter_private_mounts

ROOT = Path(__file__).resolve().parent.parent
BEHAVIORS = ROOT / "agentic-evals/targets/db-migrations/behaviors"
BROKEN_CASES = (
    "bootstrap-reads-skill-first",
    "routing-rename-table",
    "routing-add-column",
    "workflow-creates-migration-with-script",
    "workflow-keeps-shipped-migrations",
    "workflow-script-must-succeed",
)


def _run(label: str, behaviors: Path, cases: tuple[str, ...], agent: str) -> dict[str, str]:
    print(f"\n== {label} ({agent}) ==", flush=True)
    options = RunOptions(
        repo=ROOT / "agentic-evals",
        agent=agent,
        behaviors=behaviors,
        cases=cases,
        runs_dir=ROOT / "runs",
        run_id=f"demo-{label}-{new_run_id()}",
    )
    outcome = Run(options, choose_progress(False)).execute()
    record_finished_run(outcome.run_dir.path, options.runs_dir)
    for result in outcome.results:
        reason = f" ({result.blocked_reason})" if result.blocked_reason else ""
        print(f"  {result.case_id:<40} {result.status}{reason}")
    print(f"  report: {outcome.run_dir.path / 'report.md'}")
    return {r.case_id: r.status for r in outcome.results}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="./dev demo", description=__doc__)
    parser.add_argument(
        "--agent", choices=agent_choices(), default=DEFAULT_RUNNER, help="a runner or an agent"
    )
    agent = runner_named(parser.parse_args(argv).agent)
    enter_private_mounts()  # as `agentic-eval run` does: the scratch in memory where it may be
    try:
        good = _run("follows-skill", BEHAVIORS / "follows-skill", (), agent)
        broken = _run("broken", BEHAVIORS / "broken", BROKEN_CASES, agent)
    except EvalError as exc:
        print(f"demo: {exc}", file=sys.stderr)
        return exc.exit_code
    finally:
        # Without the jail the broken "writes outside" agent really writes here (Codex allows /tmp).
        Path("/tmp/agentic-eval-demo-0001_users_avatar_url.sql").unlink(missing_ok=True)
    expected_good = {case: "pass" for case in good} | {"bootstrap-needs-database-url": "blocked"}
    ok = good == expected_good and len(good) == 10 and all(s != "pass" for s in broken.values())
    print(
        "\ndemo: "
        + ("the evaluator told the good agent from the broken one" if ok else "UNEXPECTED RESULTS")
    )
    print("run history: .venv/bin/agentic-eval history --runs-dir runs")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
