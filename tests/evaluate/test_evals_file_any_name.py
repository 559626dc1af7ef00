"""`evaluate --evals FILE --skill DIR` with an evals file of another name (round 8,
docs/real-repos.md: an evals file of ours beside others, `park-alerts.json`, for a public skill).
`run` takes any `.json` file by path (docs/coming-from-skill-creator.md, "Another file name"),
but `evaluate` handed each variant the file's folder, which is no eval repo: on `main` it
stopped with `<folder>: no targets/ directory in the eval repo`. Each variant now gets the path
as given. The real Codex CLI against the scripted model.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluator.cli.main import run_cli
from tests.support import agent_or_skip, layers_or_skip, scratch_dir

NAME = "note-stamp"
PROMPT = "Stamp notes.txt with the note-stamp skill."


def _inputs(root: Path) -> tuple[Path, Path]:
    skill = root / NAME
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        f"---\nname: {NAME}\ndescription: Stamps notes. Use when the user asks to stamp notes."
        "\n---\n\n# Note stamp\n\nAppend the line `STAMPED` to the notes file.\n"
    )
    evals = root / "suites"
    evals.mkdir()
    (evals / "other.json").write_text("{}")  # a folder of several files, none named evals.json
    body = {
        "skill_name": NAME,
        "evals": [
            {
                "id": 1,
                "prompt": PROMPT,
                "expected_output": "notes.txt ends with STAMPED.",
                "files": [{"path": "notes.txt", "content": "first note\n"}],
                "assertions": [
                    {"type": "file_contains", "path": "notes.txt", "contains": "STAMPED"}
                ],
            }
        ],
    }
    (evals / "note-stamp.json").write_text(json.dumps(body))
    return evals / "note-stamp.json", skill


@pytest.mark.codex
def test_evaluate_takes_an_evals_file_of_any_name(tmp_path: Path) -> None:
    agent_or_skip("codex")
    layers_or_skip(trace=True, jail=True)
    evals, skill = _inputs(tmp_path / "src")
    behaviors = tmp_path / "behaviors"
    behaviors.mkdir()
    steps = [
        {"cmd": f"cat .agents/skills/{NAME}/SKILL.md || true"},
        {
            "when": {"output_contains": "Append the line"},
            "then": [{"cmd": "echo STAMPED >> notes.txt"}, {"final": "Stamped."}],
        },
        {"final": "I do not know how to stamp notes."},
    ]
    body = {"name": "stamps", "match": {"prompt_contains": PROMPT}, "steps": steps}
    (behaviors / "stamps.yaml").write_text(json.dumps(body))
    runs = tmp_path / "runs"
    with scratch_dir() as scratch:
        argv = ["evaluate", "--evals", str(evals), "--skill", str(skill)]
        argv += ["--behaviors", str(behaviors), "--attempts", "1", "--runs-dir", str(runs)]
        argv += ["--scratch-root", str(scratch), "--run-id", "cmp"]
        code = run_cli(argv)
    assert code == 0
    variants = runs / "cmp/variants"
    without = json.loads((variants / "without_skill/run/case-results/eval-1.json").read_text())
    with_skill = json.loads((variants / "with_skill/run/case-results/eval-1.json").read_text())
    assert (without["status"], with_skill["status"]) == ("fail", "pass")
