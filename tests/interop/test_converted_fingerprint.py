"""A suite converted from evals.json to YAML is the same suite (docs/coming-from-skill-creator.md,
"The same suite in either dialect"). Before session 18 `compare` of a run of the evals.json and
a run of the YAML `convert` wrote from it refused them as "different case definitions": the
case fingerprint hashed where a fixture is kept (`evals/files/in.csv` beside the evals, then
`eval-1/evals/files/in.csv` under the repo's fixtures) and the skill-relative `likely_fix_files`,
which are not what is judged. Now each result also records `judged_digest` (the prompt, the
setup with each fixture's content, the assertions, in a normal form) and `compare` reads it:
the converted runs compare, and a real change of a case still refuses. Real Codex runs through
the scripted server."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from evaluator.cli.main import main
from evaluator.contract.digest import case_digest, judged_digest
from evaluator.repo import load_repo
from tests.support import agent_or_skip, layers_or_skip, one_behavior, run_scripted

PROMPT = "Use the data in evals/files/in.csv."
EVALS = {
    "skill_name": "demo-skill",
    "evals": [
        {
            "id": 1,
            "prompt": PROMPT,
            "expected_output": "It is used.",
            "files": ["evals/files/in.csv"],
            "assertions": [
                {"type": "file_not_contains", "path": "out.txt", "contains": "TODO"},
                "The agent reads `evals/files/in.csv`.",
            ],
        }
    ],
}


def _skill(root: Path) -> Path:
    folder = root / "demo-skill"
    (folder / "evals/files").mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: demo-skill\ndescription: d\n---\nBody.\n")
    (folder / "evals/files/in.csv").write_text("a,b\n1,2\n")
    (folder / "evals/evals.json").write_text(json.dumps(EVALS, indent=2))
    return folder


def _compare(base: Path, candidate: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """`compare`'s exit code and everything it printed (a refusal is exit 2 and one line)."""
    capsys.readouterr()
    with pytest.raises(SystemExit) as done:
        main(["compare", str(base), str(candidate)])
    printed = capsys.readouterr()
    return int(done.value.code or 0), printed.out + printed.err


@pytest.mark.codex
def test_a_converted_suite_compares_with_its_evals_json_and_a_changed_case_does_not(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runner = agent_or_skip("codex")
    layers_or_skip(trace=True, jail=True)
    folder = _skill(tmp_path)
    steps = [
        {"cmd": "cat evals/files/in.csv"},
        {"cmd": "cp evals/files/in.csv out.txt"},
        {"final": "Used."},
    ]
    behaviors = one_behavior(tmp_path, "use", PROMPT, steps)
    runs = tmp_path / "runs"
    before = run_scripted(folder / "evals/evals.json", behaviors, runs, agent=runner)
    out = tmp_path / "source/agentic-evals"
    with pytest.raises(SystemExit) as done:
        main(["convert", str(folder), "--out", str(out)])
    assert done.value.code == 0
    shutil.copytree(
        folder,
        tmp_path / "source/.agents/skills/demo-skill",
        ignore=shutil.ignore_patterns("evals"),
    )
    source = tmp_path / "source"
    after = run_scripted(out, behaviors, runs, agent=runner, source_workspace=source)
    statuses = [(r.status, [a.notes for a in r.assertions]) for r in before.results]
    assert [r.status for r in before.results] == ["pass"], statuses
    assert [r.status for r in after.results] == ["pass"]
    [was], [now] = before.results, after.results
    assert was.case_digest != now.case_digest  # the file's dialect differs
    assert was.judged_digest == now.judged_digest is not None
    code, printed = _compare(before.run_dir.path, after.run_dir.path, capsys)
    assert code == 0 and "different" not in printed, printed
    # A real change of the case (its forbidden text) is another case: still refused.
    case_file = next(out.rglob("eval-1.yaml"))
    case_file.write_text(case_file.read_text().replace("TODO", "FIXME"))
    changed = run_scripted(out, behaviors, runs, agent=runner, source_workspace=source)
    code, printed = _compare(before.run_dir.path, changed.run_dir.path, capsys)
    assert code == 2 and "different case definitions: eval-1" in printed, printed


def test_what_is_judged_is_hashed_and_what_is_not_is_left_out(tmp_path: Path) -> None:
    folder = _skill(tmp_path)
    repo, _ = load_repo(folder / "evals/evals.json", None)
    assert repo is not None
    [case] = repo.targets["demo-skill"].all_cases()
    content = {"evals/files/in.csv": "sha256-of-the-content"}
    digest = judged_digest(case.case, content)
    renamed = case.case.model_copy(update={"case_id": "other", "title": "Another title"})
    assert judged_digest(renamed, content) == digest
    notes = case.case.notes.model_copy(update={"likely_fix_files": [".agents/x/SKILL.md"]})
    assert judged_digest(case.case.model_copy(update={"notes": notes}), content) == digest
    assert judged_digest(case.case.model_copy(update={"split": "val"}), content) == digest
    # the fixture's content, the prompt and the expected output are judged
    assert judged_digest(case.case, {"evals/files/in.csv": "another content"}) != digest
    prompt = case.case.input.model_copy(update={"user_prompt": "Use it."})
    assert judged_digest(case.case.model_copy(update={"input": prompt}), content) != digest
    expected = case.case.model_copy(update={"expected_output": "Other."})
    assert judged_digest(expected, content) != digest
    assert case_digest(case.case) != case_digest(renamed)  # the definition's own is unchanged
