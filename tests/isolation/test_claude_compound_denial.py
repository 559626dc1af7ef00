"""Claude Code's refusal of a compound command (round 7, docs/real-repos.md: the `consensus` skill
caches its schema under `~/.claude/consensus-cache` with `mkdir -p ... && printf ... > ... && cat
...`). Claude Code 2.1.197 asks before a command writes into its own configuration folder
(`~/.claude`); with the evaluator's permissions it runs none of it and answers "This Bash
command contains multiple operations. The following parts require approval: ...". That answer was
not read as a refusal (only "requires approval" was), so the session layer counted the parts'
paths outside the workspace as accesses and the attempt was an isolation violation, though the
trace shows nothing ran. A command that prints the same words is not a refusal: its answer starts
with its exit code.

Our own skill, the real Claude Code with the default layers (jail and trace).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluator.adapters.claude.normalize import COMPOUND_DENIAL
from tests.support import agent_or_skip, layers_or_skip, run_scripted_repo

NAME = "stamp-cache"
PROMPT = "Stamp the build with the stamp-cache skill."
LOOKALIKE = f"{COMPOUND_DENIAL} approval: touch elsewhere"


def _skill_repo(root: Path) -> Path:
    skill = root / NAME
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        f"---\nname: {NAME}\ndescription: Stamps builds. Use when the user asks to stamp a"
        " build.\n---\n\n# Stamp cache\n\nKeep the last stamp in `~/.claude/stamp-cache/stamp`,"
        " then write `stamp.txt` in the project.\n"
    )
    evals = {
        "skill_name": NAME,
        "evals": [
            {
                "id": 1,
                "prompt": PROMPT,
                "expected_output": "stamp.txt written.",
                "assertions": [
                    {"type": "file_exists", "path": "stamp.txt"},
                    {"type": "file_exists", "path": "printed.txt"},
                ],
            }
        ],
    }
    (skill / "evals/evals.json").write_text(json.dumps(evals))
    return skill / "evals/evals.json"


def _behaviors(root: Path) -> Path:
    steps = [
        {"skill": NAME},
        # refused as a whole: its parts write outside the workspace
        {
            "cmd": 'mkdir -p "$HOME/.claude/stamp-cache" && date > "$HOME/.claude/stamp-cache/stamp"'
            ' && cat "$HOME/.claude/stamp-cache/stamp"'
        },
        # a command printing the refusal's words runs, in the workspace, and fails
        {"cmd": f"printf '%s\\n' '{LOOKALIKE}'; touch printed.txt; exit 1"},
        {"write": {"path": "stamp.txt", "content": "build 7\n"}},
        {
            "final": "Wrote stamp.txt; the cache under ~/.claude needs your approval, so it was skipped."
        },
    ]
    behaviors = root / "behaviors"
    behaviors.mkdir()
    body = {"name": "stamps", "match": {"prompt_contains": PROMPT}, "steps": steps}
    (behaviors / "stamps.yaml").write_text(json.dumps(body))
    return behaviors


@pytest.mark.claude
def test_a_refused_compound_command_touched_nothing(tmp_path: Path) -> None:
    runner = agent_or_skip("claude")
    layers_or_skip(trace=True, jail=True)
    evals = _skill_repo(tmp_path / "src")
    outcome = run_scripted_repo(evals, None, _behaviors(tmp_path), tmp_path / "runs", runner)  # type: ignore[arg-type]
    attempt = outcome.run_dir.path / "case-artifacts/eval-1/attempts/attempt-01"
    record = json.loads((attempt / "attempt.json").read_text())
    assert record["isolation_report"]["verdict"] == "contained", record["isolation_report"]
    result = json.loads((outcome.run_dir.path / "case-results/eval-1.json").read_text())
    assert result["status"] == "pass", result
    session = json.loads((attempt / "accepted-session.json").read_text())
    denied = [r for r in session["records"] if r["kind"] == "tool_denied"]
    # the refusal only: the look-alike's answer starts with its exit code, and it ran
    assert len(denied) == 1, denied
    assert denied[0]["text"].startswith(COMPOUND_DENIAL)
    assert ".claude/stamp-cache" in denied[0]["text"]
