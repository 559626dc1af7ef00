"""`setup.git`: a case whose skill needs a git repository (a commit-message or changelog skill)
declares its history and staged paths; before, the only way was a fixture holding its own
`.git`, which an author cannot commit into their repository (git keeps a nested repository as a
gitlink), so a CI checkout lacked it (docs/first-hour.md)."""

from __future__ import annotations

import json
import subprocess
import textwrap
from pathlib import Path

import pytest

from evaluator.plan import open_repo
from evaluator.workspace import build_workspace
from tests.cli.test_validate import run_cli
from tests.support import agent_or_skip, layers_or_skip, run_scripted_repo

SKILL = ".agents/skills/commit-msg"
PROMPT = "Write a commit message for my staged change."
SETUP = """
setup:
  git:
    commits:
      - message: "feat: add the calculator"
        files:
          - {path: src/calc.py, content: "def add(a, b):\\n    return a - b\\n"}
          - {path: README.md, content: "# calc\\n"}
      - message: "docs: usage"
        files: [{path: README.md, content: "# calc\\n\\nadd(a, b)\\n"}]
    stage: [src/calc.py]
  write_files:
    - {path: src/calc.py, content: "def add(a, b):\\n    return a + b\\n"}
    - {path: notes.txt, content: "not staged\\n"}
"""


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip())


def _eval_repo(root: Path, setup: str = SETUP) -> tuple[Path, Path]:
    source = root / "source"
    _write(
        source / SKILL / "SKILL.md",
        """
        ---
        name: commit-msg
        description: Writes a commit message for the staged changes; never commits.
        ---
        Read `git diff --cached` and write the message to COMMIT_MSG.txt.
        """,
    )
    repo = root / "agentic-evals"
    target = repo / "targets/commit-msg"
    _write(
        target / "target.yaml",
        f"""
        target_id: "commit-msg"
        title: "commit messages"
        entry_skill: "{SKILL}/SKILL.md"
        default_suites: ["use"]
        suite_root: "cases"
        """,
    )
    _write(
        target / "cases/use/suite.yaml",
        'suite_id: "use"\ntitle: "use"\ncases: ["targets/commit-msg/cases/use/staged.yaml"]\n',
    )
    case = f"""
case_id: "staged"
title: "a message for the staged change"
input: {{user_prompt: "{PROMPT}"}}
{setup.strip()}
assert:
  summary: "it saw the staged change"
  required:
    - description: "The agent saw the staged file."
      checks:
        - {{kind: workspace_file_contains, path: staged.txt, text: "src/calc.py"}}
"""
    (target / "cases/use/staged.yaml").write_text(case.lstrip())
    return repo, source


def _git(folder: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(folder), *args], capture_output=True, text=True, check=True
    )
    return done.stdout


def _build(repo: Path, source: Path, root: Path, attempt: int) -> Path:
    loaded = open_repo(repo, source)
    target = loaded.targets["commit-msg"]
    (case,) = target.all_cases()
    workspace = build_workspace(
        case_workspace_root=root,
        case=case,
        target=target,
        source_workspace=source,
        attempt=attempt,
    )
    assert workspace.mismatches == []
    return workspace.path


def test_the_workspace_is_a_repository_with_the_declared_history_and_staged_change(
    tmp_path: Path,
) -> None:
    repo, source = _eval_repo(tmp_path)
    first = _build(repo, source, tmp_path / "ws", 1)
    assert _git(first, "log", "--format=%s").splitlines() == [
        "docs: usage",
        "feat: add the calculator",
    ]
    assert _git(first, "branch", "--show-current").strip() == "main"
    assert (
        _git(first, "log", "--format=%an <%ae>", "-1").strip() == "Eval Author <author@example.com>"
    )
    # `write_files` changed the working tree after the history; `stage` staged only its path.
    assert _git(first, "diff", "--cached", "--name-only").split() == ["src/calc.py"]
    assert "return a + b" in _git(first, "diff", "--cached")
    assert _git(first, "show", "HEAD:src/calc.py") == "def add(a, b):\n    return a - b\n"
    status = _git(first, "status", "--porcelain").splitlines()
    assert "M  src/calc.py" in status and "?? notes.txt" in status
    assert "?? .agents/" in status  # the skill's files are no part of the history
    # Every attempt gets the same objects: fixed identity and dates, no user configuration.
    second = _build(repo, source, tmp_path / "ws", 2)
    assert _git(first, "rev-parse", "HEAD") == _git(second, "rev-parse", "HEAD")
    # The repository's own identity lets an agent in an empty home commit.
    assert _git(first, "config", "user.email").strip() == "author@example.com"


def test_an_empty_repository_and_the_shape_without_git_are_unchanged(tmp_path: Path) -> None:
    repo, source = _eval_repo(
        tmp_path, "setup:\n  git: {}\n  write_files: [{path: a.txt, content: x}]"
    )
    made = _build(repo, source, tmp_path / "ws", 1)
    assert (made / ".git").is_dir()
    assert subprocess.run(["git", "-C", str(made), "rev-parse", "HEAD"], check=False).returncode
    other = tmp_path / "plain"
    repo, source = _eval_repo(other, "setup:\n  write_files: [{path: a.txt, content: x}]")
    assert not (_build(repo, source, other / "ws", 1) / ".git").exists()


@pytest.mark.parametrize(
    "setup,field,message",
    [
        (
            "setup:\n  git: {stage: [src/other.py]}",
            "setup.git.stage[0]",
            "'src/other.py' is no path the setup writes, commits, copies or removes",
        ),
        (
            "setup:\n  git:\n    commits: [{message: m, files: [{path: .git/config}]}]",
            "setup.git.commits[0].files[0].path",
            "'.git/config' must not name the repository's own .git folder",
        ),
        (
            "setup:\n  git: {commits: [{message: m, file: [a]}]}",
            "setup.git.commits[0].file",
            "",
        ),
    ],
)
def test_a_bad_git_setup_is_one_located_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], setup: str, field: str, message: str
) -> None:
    repo, source = _eval_repo(tmp_path, setup)
    code, _, err = run_cli(
        ["validate", "--repo", str(repo), "--source-workspace", str(source)], capsys
    )
    assert code == 2, err
    (line,) = [x for x in err.splitlines() if "staged.yaml:" in x and field in x]
    assert message in line and "Traceback" not in err


def test_without_git_the_attempt_is_an_environment_mismatch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, source = _eval_repo(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    loaded = open_repo(repo, source)
    target = loaded.targets["commit-msg"]
    (case,) = target.all_cases()
    workspace = build_workspace(
        case_workspace_root=tmp_path / "ws",
        case=case,
        target=target,
        source_workspace=source,
        attempt=1,
    )
    assert workspace.mismatches == ["setup.git: git is not installed on this machine"]


@pytest.mark.codex
def test_a_real_agent_sees_the_staged_change(tmp_path: Path) -> None:
    """Real Codex in the jail with the trace: its `git diff --cached` shows the staged path."""
    runner = agent_or_skip("codex")
    layers_or_skip(trace=True, jail=True)
    repo, source = _eval_repo(tmp_path)
    behaviors = tmp_path / "behaviors"
    behaviors.mkdir()
    steps = [
        {"cmd": "git --no-pager diff --cached --name-only > staged.txt"},
        {"final": "feat: add numbers instead of subtracting them"},
    ]
    (behaviors / "staged.yaml").write_text(
        json.dumps({"name": "staged", "match": {"prompt_contains": PROMPT}, "steps": steps})
    )
    outcome = run_scripted_repo(repo, source, behaviors, tmp_path / "runs", runner)
    (result,) = outcome.results
    assert result.status == "pass", result.notes
