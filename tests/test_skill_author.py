"""A skill author's three questions (docs/first-hour.md): does the skill help, does it fire on
the right prompts, is v2 better than v1. Each test builds its own minimal skill-creator layout
and checks one thing the author read wrong or could not do before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluator.cli.main import main

QUERIES = [
    {"query": "Tidy the imports of this module", "should_trigger": True},
    {"query": "Write a limerick about the sea", "should_trigger": False},
]
EVALS = {
    "skill_name": "tidy-imports",
    "evals": [
        {
            "id": 1,
            "prompt": "Sort the imports of app.py",
            "expectations": ["The final answer mentions `sorted`."],
        }
    ],
}


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), out, err


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def skill_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "tidy-imports"
    write(folder / "SKILL.md", "---\nname: tidy-imports\ndescription: Tidy imports.\n---\nBody.\n")
    write(folder / "evals/evals.json", json.dumps(EVALS))
    write(folder / "evals/trigger-evals.json", json.dumps(QUERIES))
    return folder


def behaviour(folder: Path, name: str, phrase: str) -> None:
    write(
        folder / f"{name}.yaml",
        f'name: "{name}"\nmatch:\n  prompt_contains: "{phrase}"\nsteps:\n  - final: "Done."\n',
    )


def test_validate_accepts_behaviours_written_for_the_trigger_set(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`triggers --behaviors DIR` plays a folder scripted for the trigger prompts; `validate
    --behaviors DIR` refused every one of them as matching no case prompt."""
    folder = skill_folder(tmp_path)
    behaviors = tmp_path / "behaviors"
    behaviour(behaviors, "fires", "Tidy the imports")
    behaviour(behaviors, "limerick", "limerick about the sea")
    code, out, err = run_cli(
        ["validate", "--evals", str(folder), "--behaviors", str(behaviors)], capsys
    )
    assert code == 0 and out.startswith("ok: 1 target(s), 1 case(s), 2 trigger prompt(s)"), err
    # One that answers neither a case nor a trigger prompt is still refused, and says so.
    behaviour(behaviors, "typo", "Tidy the imprts")
    code, _, err = run_cli(
        ["validate", "--evals", str(folder), "--behaviors", str(behaviors)], capsys
    )
    assert code == 2
    assert "typo.yaml:3:3: match: behaviour 'typo' matches no case prompt nor trigger prompt" in err
    # Two behaviours for one trigger prompt would answer each other's attempts: refused.
    (behaviors / "typo.yaml").unlink()
    behaviour(behaviors, "fires-too", "imports of this module")
    code, _, err = run_cli(
        ["validate", "--evals", str(folder), "--behaviors", str(behaviors)], capsys
    )
    assert code == 2 and "all match the prompt of case 'tidy-imports/q-01'" in err, err
