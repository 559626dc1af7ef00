"""The link a runner makes so its agent discovers the skill (`.claude/skills/<name>`,
`.gemini/skills/<name>`) is the evaluator's scaffolding, not the project's: in a workspace that
is a git repository it is kept out of git's view, so a skill that works with git (commits,
status, "a clean tree") sees the project as the agent left it (docs/real-repos.md, "Real skills
with scripts, round 4").

Offline: `link_skill` over real git repositories, with the look-alikes that must not change.
With real agents: an honest agent that commits everything (`git add -A`) under Claude Code and
Gemini CLI, which commits the evaluator's link on `main`.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from evaluator.agents.base import ignore_in_git, link_skill
from evaluator.pipeline.run import RunOutcome
from tests.support import (
    agent_params,
    one_behavior,
    scripted_outcome,
)

SKILL = Path(".agents/skills/tidy")
ENTRY = SKILL / "SKILL.md"


def _git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(cwd), *args], capture_output=True, text=True, check=True
    )
    return done.stdout


def _repo(root: Path, *, skill: Path = SKILL) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    _git(root, "init", "-q", ".")
    (root / "app.py").write_text("x = 1\n")
    (root / skill).mkdir(parents=True)
    (root / skill / "SKILL.md").write_text("---\nname: tidy\ndescription: d\n---\n")
    who = ("-c", "user.email=dev@example.org", "-c", "user.name=Dev")
    _git(root, "add", "-A")
    _git(root, *who, "commit", "-qm", "start")
    return root


def test_the_discovery_link_is_invisible_to_git_in_a_repository(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "w")
    link_skill(repo, ENTRY, Path(".claude/skills"))
    link_skill(repo, ENTRY, Path(".gemini/skills"))
    assert (repo / ".claude/skills/tidy").is_symlink()
    assert _git(repo, "status", "--porcelain") == ""
    _git(repo, "add", "-A")
    assert _git(repo, "diff", "--cached", "--name-only") == ""
    # Only the link: a file the agent makes beside it is the project's.
    (repo / ".claude/settings.json").write_text("{}")
    assert _git(repo, "status", "--porcelain", "-uall") == "?? .claude/settings.json\n"
    # Made twice (a retry in the same workspace), listed once.
    ignore_in_git(repo, Path(".claude/skills/tidy"))
    lines = (repo / ".git/info/exclude").read_text().splitlines()
    assert lines.count("/.claude/skills/tidy") == 1


def test_look_alikes_are_left_as_they_were(tmp_path: Path) -> None:
    # No repository: nothing is written besides the link.
    plain = tmp_path / "plain"
    (plain / SKILL).mkdir(parents=True)
    (plain / ENTRY).write_text("x")
    link_skill(plain, ENTRY, Path(".claude/skills"))
    assert not (plain / ".git").exists()
    # A worktree's `.git` pointer file is not a repository of the workspace's own.
    pointer = tmp_path / "pointer"
    (pointer / SKILL).mkdir(parents=True)
    (pointer / ENTRY).write_text("x")
    (pointer / ".git").write_text("gitdir: /elsewhere/.git/worktrees/w\n")
    link_skill(pointer, ENTRY, Path(".claude/skills"))
    assert (pointer / ".git").read_text() == "gitdir: /elsewhere/.git/worktrees/w\n"
    # `.git/info` a link out of the workspace: the evaluator never writes through it.
    linked = _repo(tmp_path / "linked")
    outside = tmp_path / "outside"
    outside.mkdir()
    shutil.rmtree(linked / ".git/info", ignore_errors=True)
    (linked / ".git/info").symlink_to(outside)
    link_skill(linked, ENTRY, Path(".claude/skills"))
    assert list(outside.iterdir()) == []
    # The skill already where the agent looks: no link, no ignore line.
    native = _repo(tmp_path / "native", skill=Path(".claude/skills/tidy"))
    before = (native / ".git/info/exclude").read_text()
    link_skill(native, Path(".claude/skills/tidy/SKILL.md"), Path(".claude/skills"))
    assert (native / ".git/info/exclude").read_text() == before


def test_an_ignore_file_without_a_last_newline_and_glob_characters(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "w")
    (repo / ".git/info/exclude").write_text("*.log")
    ignore_in_git(repo, Path(".claude/skills/a*[b]"))
    assert (repo / ".git/info/exclude").read_text() == "*.log\n/.claude/skills/a\\*\\[b]\n"
    (repo / "a.log").write_text("")
    (repo / ".claude/skills").mkdir(parents=True)
    (repo / ".claude/skills/a*[b]").write_text("")
    (repo / ".claude/skills/axb").write_text("")  # the pattern is this one name, not a glob
    assert _git(repo, "status", "--porcelain", "-uall") == "?? .claude/skills/axb\n"


# ---- real agents -----------------------------------------------------------------------

PROMPT = "Commit all my changes in one commit, please."
STEPS = [
    {"cmd": f"cat {ENTRY}"},
    {"cmd": "git status --porcelain"},
    {"cmd": "git add -A && git -c user.email=a@example.org -c user.name=A commit -qm 'feat: y'"},
    {"cmd": "git status --porcelain"},
    {"final": "Committed everything: the tree is clean."},
]


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))


def _eval_repo(root: Path) -> tuple[Path, Path, Path]:
    source = root / "source"
    _write(source / ENTRY, "---\nname: tidy\ndescription: Commits changes.\n---\nUse git.\n")
    repo = root / "agentic-evals"
    target = repo / "targets/tidy"
    # The project: a git repository that tracks its skill, and a change to commit.
    project = _repo(target / "fixtures/project")
    (project / ENTRY).write_text("---\nname: tidy\ndescription: Commits changes.\n---\nUse git.\n")
    _git(project, "add", "-A")
    _git(project, "-c", "user.email=d@e.org", "-c", "user.name=D", "commit", "-qm", "skill")
    (project / "app.py").write_text("x = 2\n")
    _write(
        target / "target.yaml",
        f"""\
        target_id: "tidy"
        title: "A skill that works with git"
        entry_skill: "{ENTRY}"
        roots: ["{SKILL}"]
        default_suites: ["use"]
        fixtures_root: "fixtures"
        """,
    )
    _write(
        target / "cases/use/suite.yaml",
        'suite_id: "use"\ntitle: "use"\ncases:\n  - "targets/tidy/cases/use/commit.yaml"\n',
    )
    clean = 'test -z "$(git -C {{output_dir}} status --porcelain)"'
    committed = "! git -C {{output_dir}} ls-files | grep -q '^[.]claude/\\|^[.]gemini/'"
    case = {
        "case_id": "commit",
        "title": "commit",
        "timeout_s": 120,
        "input": {"user_prompt": PROMPT},
        "setup": {"copy_fixtures": [{"source": "project", "target": "."}]},
        "assert": {
            "summary": "the project is committed, and only the project",
            "required": [
                {"description": "A clean tree.", "checks": [{"kind": "command", "command": clean}]},
                {
                    "description": "Only the project's files are tracked.",
                    "checks": [{"kind": "command", "command": committed}],
                },
            ],
            "forbidden": [],
        },
    }
    _write(target / "cases/use/commit.yaml", json.dumps(case))
    behaviors = one_behavior(root, "commit", PROMPT, STEPS)
    return repo, source, behaviors


@pytest.fixture(scope="module", params=agent_params("claude", "gemini"))
def outcome(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RunOutcome]:
    yield from scripted_outcome(str(request.param), tmp_path_factory, "git-link", _eval_repo)


def test_an_honest_commit_of_everything_commits_the_project_only(outcome: RunOutcome) -> None:
    (result,) = outcome.results
    attempt = json.loads(
        (
            outcome.run_dir.path / "case-artifacts/commit/attempts/attempt-01/attempt.json"
        ).read_text()
    )
    assert attempt["isolation"] == "contained", attempt["isolation_report"]["reason"]
    assert result.status == "pass", [(e.summary, e.notes) for e in result.assertions]
