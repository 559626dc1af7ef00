"""`git config --global` under Gemini CLI (real skills, round 11: `dweibel/ai-workflow`'s
`git-worktree`, whose agent sets a git identity before its first commit). Gemini CLI points
git's global configuration at `/dev/null` for every command it runs (`GIT_CONFIG_GLOBAL`), so
git writes `/dev/null.lock` to change it, fails to rename it onto the device and removes it. In
the jail `/dev` is bubblewrap's own tmpfs for the attempt; on `main` the trace judged the lock
file a write outside, so every honest run was `blocked, violation`.

Our own skill; the real Gemini CLI with the default layers (jail and trace)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support import assert_contained_pass, run_skill_steps

NAME = "first-commit"
PROMPT = "Put this folder under git with the first-commit skill."


def _skill_repo(root: Path) -> Path:
    skill = root / NAME
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        f"---\nname: {NAME}\ndescription: Makes a folder a git repository with a first commit."
        " Use when the user asks to put a folder under git.\n---\n\n# First commit\n\n`git init"
        " -b main`; set an identity (`git config --global user.name`, `user.email`) if git has"
        " none, else the repository's own; commit everything as `chore: first commit`.\n"
    )
    evals = {
        "skill_name": NAME,
        "evals": [
            {
                "id": 1,
                "prompt": PROMPT,
                "expected_output": "One commit on main.",
                "files": [{"path": "notes.md", "content": "# notes\n"}],
                "assertions": [
                    {
                        "type": "command",
                        "command": "git log -1 --format=%s | grep -qx 'chore: first commit'",
                        "expect_exit_code": 0,
                    }
                ],
            }
        ],
    }
    (skill / "evals/evals.json").write_text(json.dumps(evals))
    return skill / "evals/evals.json"


@pytest.mark.gemini
def test_a_global_git_identity_under_gemini_cli_is_contained(tmp_path: Path) -> None:
    """On `main`: `blocked` (violation: the trace's write of `/dev/null.lock`)."""
    evals = _skill_repo(tmp_path / "src")
    steps = [
        {"skill": NAME},
        {"cmd": "git config --global user.name Dev; git config --global user.email dev@x.org"},
        {
            "cmd": "git init -q -b main && git config user.name Dev && git config user.email"
            " dev@x.org && git add notes.md && git commit -qm 'chore: first commit'"
            " && git log --oneline"
        },
        {
            "when": {"output_contains": "chore: first commit"},
            "then": [{"final": "Committed notes.md on main (the global identity is locked here)."}],
        },
        {"final": "Nothing was committed."},
    ]
    assert_contained_pass(run_skill_steps("gemini", evals, tmp_path, PROMPT, steps))
