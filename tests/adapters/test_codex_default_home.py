"""A skill that reads Codex's session history where a user's Codex keeps it,
`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl` (session-history and usage skills look there, not
at `CODEX_HOME`), as `test_claude_default_config_dir.py` does for Claude Code (round 9).

On `main` the attempt's `CODEX_HOME` was `<agent dir>/codex-home`, beside its HOME, so
`~/.codex/sessions` did not exist: the skill found no session, not even the one running it, and
an honest run failed. The attempt's `CODEX_HOME` is now `~/.codex` of its HOME, where a user's
is. Our own skill; the real Codex CLI with the default layers (jail and trace).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluator.adapters.codex.runner import attempt_codex_home, attempt_home
from tests.support import agent_or_skip, layers_or_skip, one_behavior, run_scripted_repo

NAME = "recent-sessions"
PROMPT = "List my recent Codex sessions with the recent-sessions skill."
LIST = """#!/usr/bin/env bash
# The user's Codex history, at its default place (the variable is not looked at).
found=$(find "$HOME/.codex/sessions" -name 'rollout-*.jsonl' 2>/dev/null)
echo "sessions: $(printf '%s' "$found" | grep -c .)"
for f in $found; do basename "$f" .jsonl; done
"""


def _skill_repo(root: Path) -> Path:
    skill = root / NAME
    (skill / "scripts").mkdir(parents=True)
    (skill / "evals").mkdir()
    (skill / "SKILL.md").write_text(
        f"---\nname: {NAME}\ndescription: Lists the user's recent Codex sessions. Use when"
        " the user asks for their session history.\n---\n\n# Recent sessions\n\n"
        "Run `bash scripts/list.sh` and report what it prints.\n"
    )
    (skill / "scripts/list.sh").write_text(LIST)
    evals = {
        "skill_name": NAME,
        "evals": [
            {
                "id": 1,
                "prompt": PROMPT,
                "expected_output": "At least this session.",
                "must_have": ["sessions: [1-9]"],
            }
        ],
    }
    (skill / "evals/evals.json").write_text(json.dumps(evals))
    return skill / "evals/evals.json"


def test_codex_home_is_the_homes_dot_codex(tmp_path: Path) -> None:
    assert attempt_codex_home(tmp_path) == attempt_home(tmp_path) / ".codex"


@pytest.mark.codex
def test_a_skill_reading_the_default_history_finds_the_running_session(tmp_path: Path) -> None:
    """On `main`: `fail` ("sessions: 0"), contained."""
    runner = agent_or_skip("codex")
    layers_or_skip(trace=True, jail=True)
    evals = _skill_repo(tmp_path / "src")
    steps = [
        {"read": f".agents/skills/{NAME}/SKILL.md"},
        {"cmd": f"bash .agents/skills/{NAME}/scripts/list.sh"},
        {
            "when": {"output_contains": "sessions: 0"},
            "then": [{"final": "No Codex session found: sessions: 0."}],
        },
        {"final": "Found them: sessions: 1 (this one)."},
    ]
    behaviors = one_behavior(tmp_path, "lists", PROMPT, steps)
    outcome = run_scripted_repo(evals, None, behaviors, tmp_path / "runs", runner)  # type: ignore[arg-type]
    attempt = outcome.run_dir.path / "case-artifacts/eval-1/attempts/attempt-01"
    record = json.loads((attempt / "attempt.json").read_text())
    assert record["isolation_report"]["verdict"] == "contained", record["isolation_report"]
    session = json.loads((attempt / "accepted-session.json").read_text())
    listed = [r.get("text") or "" for r in session["records"] if r["kind"] == "tool_result"]
    assert any(session["session_id"] in text for text in listed), listed
    result = json.loads((outcome.run_dir.path / "case-results/eval-1.json").read_text())
    assert result["status"] == "pass", result
