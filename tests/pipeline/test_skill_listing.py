"""A skill no agent lists (docs/first-hour.md, "30 November 2026"): a SKILL.md without front
matter or without a `description` is accepted by every agent's file system and offered by none
of them, so `validate` passed it, `run` measured an agent never told of the skill and
`triggers` called every should-fire prompt a miss of the description. Now `validate` and the
commands that run warn at the file's line, and `triggers` refuses it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluator.cli.main import main
from evaluator.contract.skill_listing import listing_problem
from tests.conftest import copy_demo
from tests.support import codex_or_skip, scratch_dir

GOOD = "---\nname: tidy-imports\ndescription: Tidy the imports of a module.\n---\nBody.\n"
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
QUERIES = [
    {"query": "Tidy the imports of this module", "should_trigger": True},
    {"query": "Write a limerick about the sea", "should_trigger": False},
]


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), out, err


def skill(tmp_path: Path, skill_md: str) -> Path:
    folder = tmp_path / "tidy-imports"
    (folder / "evals").mkdir(parents=True)
    (folder / "SKILL.md").write_text(skill_md)
    (folder / "evals/evals.json").write_text(json.dumps(EVALS))
    (folder / "evals/trigger-evals.json").write_text(json.dumps(QUERIES))
    return folder


@pytest.mark.parametrize(
    ("text", "line", "field"),
    [
        ("# Tidy imports\nBody.\n", 1, None),  # no front matter
        ("---\nname: tidy-imports\ndescription: Tidy.\nBody.\n", 1, None),  # never closed
        ("---\nname: tidy-imports\n---\nBody.\n", 1, "description"),
        ("---\nname: tidy-imports\ndescripton: Tidy.\n---\n", 1, "description"),  # a typo
        ("---\nname: tidy-imports\ndescription:\n---\n", 3, "description"),
        ("---\nname: tidy-imports\ndescription: ''\n---\n", 3, "description"),
        ("---\nname: x\ndescription:\nlicense: MIT\n---\n", 3, "description"),  # YAML null
        ("---\nname: x\nmetadata:\n  description: Tidy.\n---\n", 1, "description"),  # nested
    ],
)
def test_a_skill_md_no_agent_lists_is_named_at_its_line(
    text: str, line: int, field: str | None
) -> None:
    problem = listing_problem(text)
    assert problem is not None and (problem.line, problem.field) == (line, field)


@pytest.mark.parametrize(
    "text",
    [
        GOOD,
        "---\ndescription: Tidy the imports.\n---\n",  # no name: listed under the folder's name
        '---\nname: "tidy-imports"\ndescription: "Tidy: imports."\n---\n',
        "---\nname: x\ndescription: >\n  Tidy the imports\n  of a module.\n---\n",
        "---\nname: x\ndescription:\n  Tidy the imports of a module.\n---\n",  # continued
        "\ufeff---\r\nname: x\r\ndescription: Tidy.\r\n---\r\n",  # BOM, CRLF
    ],
)
def test_a_skill_md_agents_list_is_left_alone(text: str) -> None:
    assert listing_problem(text) is None


def test_validate_warns_of_a_skill_no_agent_lists(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = skill(tmp_path, "---\nname: tidy-imports\n---\nSort imports.\n")
    code, out, err = run_cli(["validate", "--evals", str(folder)], capsys)
    assert code == 0 and out.startswith("ok:"), err
    assert f"warning: {folder}/SKILL.md:1:1: description: missing from the front matter" in err
    (folder / "SKILL.md").write_text(GOOD)
    code, _, err = run_cli(["validate", "--evals", str(folder)], capsys)
    assert code == 0 and "SKILL.md" not in err


def test_validate_warns_of_an_eval_repos_entry_skill_no_agent_lists(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = copy_demo(tmp_path)
    entry = tmp_path / ".agents/skills/db-migrations/SKILL.md"
    code, _, err = run_cli(["validate", "--repo", str(repo)], capsys)
    assert code == 0 and "warning" not in err, err
    entry.write_text(entry.read_text().split("---", 2)[2])  # the body alone
    code, _, err = run_cli(["validate", "--repo", str(repo)], capsys)
    assert code == 0
    assert f"warning: {entry}:1:1: no front matter" in err


def test_run_shows_the_load_warnings_before_it_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only `validate` printed them: `run --evals` went ahead without a word."""
    monkeypatch.setenv("AGENTIC_EVAL_CODEX_BIN", str(tmp_path / "no-codex-here"))
    folder = skill(tmp_path, "---\nname: tidy-imports\n---\nSort imports.\n")
    args = ["run", "--evals", str(folder), "--runs-dir", str(tmp_path / "runs")]
    code, _, err = run_cli(args, capsys)
    assert code == 3  # no agent CLI here: the run stops after the warnings
    assert f"warning: {folder}/SKILL.md:1:1: description: missing" in err
    (folder / "SKILL.md").write_text(GOOD)
    code, _, err = run_cli(args, capsys)
    assert code == 3 and "warning" not in err


def test_triggers_refuses_a_skill_no_agent_lists(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every should-fire prompt would be a miss the description is not to blame for."""
    folder = skill(tmp_path, "---\nname: tidy-imports\ndescription: ''\n---\nSort imports.\n")
    runs = tmp_path / "runs"
    code, _, err = run_cli(["triggers", "--evals", str(folder), "--runs-dir", str(runs)], capsys)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and f"{folder}/SKILL.md:3:1: description: empty" in lines[0], err
    assert not runs.exists()


@pytest.mark.slow
@pytest.mark.codex
def test_codex_does_not_list_a_skill_without_a_description(tmp_path: Path) -> None:
    """The fact the warning rests on, from the pinned binary: Codex lists the skill with a
    description and refuses to load the same skill without one."""
    codex_or_skip()
    from evaluator.pipeline.progress import PlainProgress
    from evaluator.pipeline.run import Run, RunOptions

    behaviors = tmp_path / "behaviors"
    behaviors.mkdir()
    (behaviors / "sort.yaml").write_text(
        'name: "sort"\nmatch:\n  prompt_contains: "Sort the imports"\nsteps:\n  - final: "sorted"\n'
    )
    listed = {}
    for label, text in (("good", GOOD), ("bare", "---\nname: tidy-imports\n---\nBody.\n")):
        folder = skill(tmp_path / label, text)
        with scratch_dir() as scratch:
            options = RunOptions(
                repo=folder / "evals/evals.json",
                behaviors=behaviors,
                runs_dir=tmp_path / "runs",
                run_id=label,
                scratch_root=scratch,
            )
            outcome = Run(options, PlainProgress()).execute()
        attempt = outcome.run_dir.path / "case-artifacts/eval-1/attempts/attempt-01"
        session = (attempt / "accepted-session.jsonl").read_text()
        stderr = (attempt / "agent-stderr.txt").read_text()
        listed[label] = (
            "- tidy-imports: Tidy the imports" in session,
            "failed to load skill" in stderr,
        )
    assert listed == {"good": (True, False), "bare": (False, True)}


def test_another_version_no_agent_lists_is_warned_of(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """v2 given by path (`evaluate --candidate`, `score --skill`) without a description: the
    comparison would measure an agent never told of v2."""
    monkeypatch.setenv("AGENTIC_EVAL_CODEX_BIN", str(tmp_path / "no-codex-here"))
    folder = skill(tmp_path, GOOD)
    v2 = tmp_path / "v2/SKILL.md"
    v2.parent.mkdir()
    v2.write_text("---\nname: tidy-imports\n---\nSort imports, then group them.\n")
    runs = ["--runs-dir", str(tmp_path / "runs")]
    for args in (
        ["evaluate", "--evals", str(folder), "--baseline", "current", "--candidate", str(v2)],
        ["evaluate", "--evals", str(folder), "--candidate", str(v2.parent)],
        ["score", "--evals", str(folder), "--skill", str(v2)],
    ):
        code, _, err = run_cli([*args, *runs], capsys)
        assert code == 3, err  # no agent CLI here: stopped after the warning
        assert "SKILL.md:1: description: missing" in err or (
            f"{v2}:1:1: description: missing" in err
        ), err
    v2.write_text(GOOD)
    code, _, err = run_cli(["score", "--evals", str(folder), "--skill", str(v2), *runs], capsys)
    assert code == 3 and "warning" not in err, err
