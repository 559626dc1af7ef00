"""A skill-creator suite keeps its inputs in the skill's `evals/` folder (round 7,
docs/real-repos.md: `127-c/vhdl-to-sv-skill`'s `evals/cases/*.vhd`). The skill is installed
without that folder, and the eval copies the case's input into every variant's workspace; on
`main` the contamination check took the input for the skill (the same bytes as the skill's
`evals/cases/cnt.vhd`, and eight words of the other cases' files in its output), so every
no-skill attempt of `evaluate` was blocked and nothing was compared. A file the skill is
installed with, given to the no-skill attempt, still contaminates it.

Offline over hand-written Codex rollouts, and `evaluate` with the real Claude Code.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluator.adapters import normalize_session, tool_text_source
from evaluator.cli.main import run_cli
from evaluator.isolation.contamination import Contamination, check_contamination, skill_copies
from tests.judge.test_consultation import _rollout
from tests.support import claude_or_skip, layers_or_skip, scratch_dir

NAME = "csv-tidy"
INPUT = "".join(
    f"order {n},shipped to the warehouse on monday morning,{n * 3}\n" for n in range(12)
)
GUIDE = "".join(
    f"Rule {n}: trim every field and keep the header row as the first line.\n" for n in range(9)
)
PROMPT = "Tidy `evals/files/orders.csv` with the csv-tidy skill into tidy.csv."


def _skill(root: Path) -> Path:
    skill = root / NAME
    (skill / "evals/files").mkdir(parents=True)
    (skill / "references").mkdir()
    (skill / "SKILL.md").write_text(
        f"---\nname: {NAME}\ndescription: Tidies CSV files. Use when the user asks to tidy a"
        " CSV.\n---\n\n# CSV tidy\n\nFollow `references/guide.md`; always write `TIDY-OK` on the"
        " last line of the output.\n"
    )
    (skill / "references/guide.md").write_text(GUIDE)
    (skill / "evals/files/orders.csv").write_text(INPUT)
    (skill / "evals/files/other-case.csv").write_text(INPUT.replace("monday", "friday"))
    evals = {
        "skill_name": NAME,
        "evals": [
            {
                "id": 1,
                "prompt": PROMPT,
                "expected_output": "tidy.csv ends with TIDY-OK.",
                "files": ["evals/files/orders.csv"],
                "assertions": [
                    {"type": "file_contains", "path": "tidy.csv", "contains": "TIDY-OK"}
                ],
            }
        ],
    }
    (skill / "evals/evals.json").write_text(json.dumps(evals))
    return skill


def _check(tmp_path: Path, calls: list[tuple[str, str | None]], left_out: bool) -> Contamination:
    skill = _skill(tmp_path / "src")
    workspace = tmp_path / "ws"
    (workspace / "evals/files").mkdir(parents=True)
    (workspace / "evals/files/orders.csv").write_text(INPUT)  # the case's input, as copied
    (workspace / "notes.md").write_text(GUIDE)  # a file of the installed skill, given anyway
    home = tmp_path / "home"
    home.mkdir()
    copies = skill_copies(
        skill,
        workspace=workspace,
        workspace_skill_dir=f".agents/skills/{NAME}",
        discovery_dirs=(".agents/skills",),
        agent_home=None,
        user_home=home,
        left_out=(skill / "evals",) if left_out else (),
    )
    session = _rollout(tmp_path / "rollout.jsonl", workspace, calls)
    return check_contamination(
        normalize_session(session), copies, texts=tool_text_source(session), user_home=home
    )


def test_the_cases_input_kept_in_the_evals_folder_is_not_the_skill(tmp_path: Path) -> None:
    read = [("cat evals/files/orders.csv", INPUT)]
    found = _check(tmp_path / "after", read, left_out=True)
    assert not found.contaminated, found.to_json()
    # As on main: the folder counted as the skill's, the input read was "the skill".
    before = _check(tmp_path / "before", read, left_out=False)
    assert {f.layer for f in before.findings} == {"session", "content"}


def test_a_file_the_skill_is_installed_with_still_contaminates(tmp_path: Path) -> None:
    found = _check(tmp_path, [("cat notes.md", GUIDE)], left_out=True)
    assert {f.layer for f in found.findings} == {"session", "content"}
    assert "the skill's references/guide.md" in found.findings[0].detail


def _behaviors(root: Path) -> Path:
    """With the skill listed, the agent follows it; without, it copies the input as it is."""
    follows = [
        {"skill": NAME},
        {"cmd": "sed 's/ *, */,/g' evals/files/orders.csv > tidy.csv && echo TIDY-OK >> tidy.csv"},
        {"final": "Wrote tidy.csv (fields trimmed, TIDY-OK at the end)."},
    ]
    plain = [
        {"cmd": "cp evals/files/orders.csv tidy.csv && wc -l tidy.csv"},
        {"final": "Wrote tidy.csv."},
    ]
    steps = [
        {"when": {"request_contains": "Tidies CSV files."}, "then": follows, "else": plain},
        {"final": "(unreached)"},
    ]
    behaviors = root / "behaviors"
    behaviors.mkdir()
    body = {"name": "tidies", "match": {"prompt_contains": PROMPT}, "steps": steps}
    (behaviors / "tidies.yaml").write_text(json.dumps(body))
    return behaviors


@pytest.mark.claude
def test_evaluate_compares_a_suite_whose_inputs_live_in_its_evals_folder(tmp_path: Path) -> None:
    claude_or_skip()
    layers_or_skip(trace=True, jail=True)
    skill = _skill(tmp_path / "src")
    runs = tmp_path / "runs"
    with scratch_dir() as scratch:
        argv = ["evaluate", "--evals", str(skill), "--agent", "claude-code"]
        argv += ["--behaviors", str(_behaviors(tmp_path)), "--attempts", "1"]
        argv += ["--runs-dir", str(runs), "--scratch-root", str(scratch), "--run-id", "cmp"]
        run_cli(argv)
    without = runs / "cmp/variants/without_skill/run/case-results/eval-1.json"
    with_skill = runs / "cmp/variants/with_skill/run/case-results/eval-1.json"
    baseline = json.loads(without.read_text())
    # judged, not blocked as contaminated: the agent read only the case's own input
    assert baseline["status"] == "fail", baseline
    assert json.loads(with_skill.read_text())["status"] == "pass"
