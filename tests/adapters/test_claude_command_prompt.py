"""A case whose prompt is a command, `/skill-name ARGS` (round 8, docs/real-repos.md: a skill
whose front matter sets `disable-model-invocation: true`, as trailofbits' `git-cleanup` does, is
loaded by Claude Code only when the user types its name). Claude Code passes everything after the
name to the skill as its arguments, so on `main` the workspace-boundary note the evaluator
appends became part of them: the skill's `$ARGUMENTS` read "Ada\\n\\nThis directory is your only
workspace: ...". The note now goes to the appended system prompt, and the command gets the
case's words verbatim; a prompt that is no command keeps the note in the message.

Our own skill, the real Claude Code with the default layers; the split itself offline.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluator.adapters.claude.runner import command_prompt
from evaluator.prompting import BOUNDARY_NOTE, agent_prompt
from tests.support import agent_or_skip, layers_or_skip, run_scripted_repo

NAME = "greet-team"
PROMPT = f"/{NAME} Ada"


def _skill_repo(root: Path) -> Path:
    skill = root / NAME
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        f"---\nname: {NAME}\ndescription: Greets a teammate.\ndisable-model-invocation: true\n"
        "---\n\n# Greet\n\nWrite the line `hello $ARGUMENTS!` into greeting.txt.\n"
    )
    evals = {
        "skill_name": NAME,
        "evals": [
            {
                "id": 1,
                "prompt": PROMPT,
                "expected_output": "greeting.txt says hello Ada!",
                "assertions": [
                    {"type": "file_contains", "path": "greeting.txt", "contains": "hello Ada!"}
                ],
            }
        ],
    }
    (skill / "evals/evals.json").write_text(json.dumps(evals))
    return skill / "evals/evals.json"


def _behaviors(root: Path) -> Path:
    """An agent that writes what the command's body asks for, and says whether the boundary
    note reached it (the request shows the system prompt and the messages)."""
    steps = [
        {
            "when": {"request_contains": "`hello Ada!`"},
            "then": [{"write": {"path": "greeting.txt", "content": "hello Ada!\n"}}],
            "else": [{"write": {"path": "greeting.txt", "content": "hello someone else\n"}}],
        },
        {
            "when": {"request_contains": BOUNDARY_NOTE},
            "then": [{"final": "Done; I stay in this workspace."}],
            "else": [{"final": "Done; no boundary note."}],
        },
        {"final": "unreached"},
    ]
    behaviors = root / "behaviors"
    behaviors.mkdir()
    body = {"name": "greets", "match": {"prompt_contains": NAME}, "steps": steps}
    (behaviors / "greets.yaml").write_text(json.dumps(body))
    return behaviors


@pytest.mark.claude
def test_a_command_prompt_gets_its_arguments_verbatim_and_the_note_elsewhere(
    tmp_path: Path,
) -> None:
    runner = agent_or_skip("claude")
    layers_or_skip(trace=True, jail=True)
    evals = _skill_repo(tmp_path / "src")
    outcome = run_scripted_repo(evals, None, _behaviors(tmp_path), tmp_path / "runs", runner)  # type: ignore[arg-type]
    attempt = outcome.run_dir.path / "case-artifacts/eval-1/attempts/attempt-01"
    session = (attempt / "accepted-session.jsonl").read_text()
    assert "<command-args>Ada</command-args>" in session
    assert "hello Ada!`" in session  # `$ARGUMENTS` in the body became the case's word
    assert (attempt / "final-answer.txt").read_text().strip() == "Done; I stay in this workspace."
    result = json.loads((outcome.run_dir.path / "case-results/eval-1.json").read_text())
    assert result["status"] == "pass", result
    record = json.loads((attempt / "attempt.json").read_text())
    assert record["isolation_report"]["verdict"] == "contained", record["isolation_report"]


def test_only_a_command_prompt_is_split() -> None:
    assert command_prompt(agent_prompt(PROMPT)) == (PROMPT, BOUNDARY_NOTE)
    assert command_prompt(agent_prompt("/review")) == ("/review", BOUNDARY_NOTE)
    assert command_prompt(agent_prompt("/plugin:cmd x y")) == ("/plugin:cmd x y", BOUNDARY_NOTE)
    for prompt in (
        "Greet Ada with /greet-team",  # a command named inside a sentence
        "/etc/hosts lists the wrong address: fix it",  # a path
        "/ start with a slash",
    ):
        assert command_prompt(agent_prompt(prompt)) is None, prompt
    assert command_prompt(PROMPT) is None  # nothing was added
