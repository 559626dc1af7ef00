"""`./dev demo-gate`: the pass rate as a gate, with the real Codex CLI and scripted agents that do
what the SKILL.md they read tells them (`behaviors/reads-skill/`).

The current skill lacks its routing row for new columns, so one case fails. A helpful edit (the
repo's SKILL.md) fixes it and the gate accepts it; a harmful edit drops the rule that shipped
migrations are immutable, breaks a passing case, and the gate rejects it.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from evaluator.cli.main import run_cli
from evaluator.pipeline.run import new_run_id

ROOT = Path(__file__).resolve().parent.parent
SKILL = ROOT / ".agents/skills/db-migrations/SKILL.md"
BEHAVIORS = ROOT / "agentic-evals/targets/db-migrations/behaviors/reads-skill"
CASES = ("routing-add-column", "workflow-keeps-shipped-migrations")
IMMUTABLE = "Never edit an existing migration file: migrations that have shipped are\nimmutable."


def _agentic_eval(*args: str) -> int:
    print(f"\n$ agentic-eval {shlex.join(args)}", flush=True)
    return run_cli(list(args))


def main() -> int:
    demo_id = f"demo-gate-{new_run_id()}"
    runs = ROOT / "runs"
    skills = runs / demo_id / "skills"
    skills.mkdir(parents=True)
    text = SKILL.read_text(encoding="utf-8")
    row = next(line for line in text.splitlines(True) if "references/add-column.md" in line)
    (skills / "current.md").write_text(text.replace(row, ""), encoding="utf-8")
    (skills / "harmful.md").write_text(text.replace(IMMUTABLE, ""), encoding="utf-8")
    common = ["--repo", str(ROOT / "agentic-evals"), "--behaviors", str(BEHAVIORS)]
    for case in CASES:
        common += ["--case", case]
    common += ["--runs-dir", str(runs)]

    def score(name: str, skill: Path) -> int:
        return _agentic_eval(
            "score", *common, "--run-id", f"{demo_id}-{name}", "--skill", str(skill)
        )

    def run(name: str) -> str:
        return str(runs / f"{demo_id}-{name}")

    codes = [
        score("current", skills / "current.md"),  # FAIL: routes a new column wrong
        score("helpful", SKILL),  # PASS: the routing row is back
        _agentic_eval("gate", "--candidate", run("helpful"), "--current", run("current")),
        score("harmful", skills / "harmful.md"),  # FAIL: edits a shipped migration
        _agentic_eval(
            "gate",
            "--candidate",
            run("harmful"),
            "--current",
            run("helpful"),
            "--no-regression",
        ),
    ]
    ok = codes == [1, 0, 0, 1, 1]
    print(
        "\ndemo-gate: "
        + (
            "the helpful edit was accepted and the harmful one rejected"
            if ok
            else f"UNEXPECTED exit codes {codes} (expected [1, 0, 0, 1, 1])"
        )
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
