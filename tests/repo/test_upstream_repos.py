"""Shapes of repos in the public agentic-evals layout that did not run unchanged (docs/real-repos.md,
"Upstream repos, ninth session"): each test builds its own minimal input of that shape."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluator.cli.main import main
from evaluator.repo import load_repo

TARGET = """\
target_id: "notes"
entry_skill: ".agents/skills/notes/SKILL.md"
roots: [".agents/skills/notes/references"]
default_suites: ["basics"]
suite_root: "cases"
"""

SUITE = """\
suite_id: basics
title: Basics
cases: [targets/notes/cases/basics/reads-skill.yaml]
"""

CASE = """\
case_id: reads-skill
title: Reads the skill
input: {user_prompt: "Summarise my notes folder."}
assert:
  summary: The skill is read.
  required:
    - description: The skill file is read.
      pass_criteria: ["The accepted session evidence shows consultation of `.agents/skills/notes/SKILL.md`."]
      evidence_scope: [accepted-session.json]
"""


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def eval_repo(folder: Path) -> Path:
    """An eval repo of one target and one case, with no skill anywhere."""
    write(folder / "targets/notes/target.yaml", TARGET)
    write(folder / "targets/notes/cases/basics/suite.yaml", SUITE)
    write(folder / "targets/notes/cases/basics/reads-skill.yaml", CASE)
    return folder


def place_skill(source: Path) -> None:
    write(
        source / ".agents/skills/notes/SKILL.md", "---\nname: notes\ndescription: d\n---\nBody.\n"
    )
    write(source / ".agents/skills/notes/references/index.md", "# Index\n")


def test_a_skill_copied_into_the_eval_repo_makes_the_repo_its_source_workspace(
    tmp_path: Path,
) -> None:
    """Upstream's CI copies the skill into the eval repo's own `.agents/skills/`: the repo is
    then the source workspace, not its parent (where the skill is not)."""
    repo_dir = eval_repo(tmp_path / "checkout")
    place_skill(repo_dir)
    repo, diagnostics = load_repo(repo_dir)
    assert repo is not None and not diagnostics.errors
    assert repo.source_workspace == repo_dir.resolve()
    assert not repo.source_workspace_explicit
    # The skill's files are now checked there: a root that is missing is reported.
    (repo_dir / ".agents/skills/notes/references/index.md").unlink()
    (repo_dir / ".agents/skills/notes/references").rmdir()
    repo, diagnostics = load_repo(repo_dir)
    assert [e.message for e in diagnostics.errors] == [
        "not found in the source workspace: .agents/skills/notes/references"
    ]


def test_a_skill_beside_the_eval_repo_keeps_the_parent_as_source_workspace(
    tmp_path: Path,
) -> None:
    """The documented layout (skill in the repo's parent) wins when both hold it."""
    repo_dir = eval_repo(tmp_path / "agentic-evals")
    place_skill(tmp_path)
    place_skill(repo_dir)
    repo, _ = load_repo(repo_dir)
    assert repo is not None and repo.source_workspace == tmp_path.resolve()
    # A repo cloned without its skill is not checked against files it never had.
    bare = eval_repo(tmp_path / "bare" / "agentic-evals")
    repo, diagnostics = load_repo(bare)
    assert repo is not None and not diagnostics.errors
    assert repo.source_workspace == bare.parent.resolve()


def test_a_run_without_the_skill_names_both_places_it_looked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo_dir = eval_repo(tmp_path / "checkout")
    with pytest.raises(SystemExit) as exit_info:
        main(["run", "--repo", str(repo_dir), "--runs-dir", str(tmp_path / "runs")])
    err = capsys.readouterr().err
    assert exit_info.value.code == 2
    assert (
        f"not found in the source workspace {tmp_path.resolve()}"
        f" nor in the eval repo {repo_dir.resolve()} (pass --source-workspace)" in err
    )
