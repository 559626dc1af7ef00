"""A commit-message skill must never commit for the user: "never a command invoking `git
commit`". Agents commit with git's own options before the subcommand (`git -c user.name=x
commit`, `git -C repo commit`); on `main` the compiled literal wanted the words `git commit`
side by side, so such a commit passed the forbidden entry (newuser5, docs/first-hour.md,
"Sixth review"). Real Codex and Claude Code through the scripted server, default layers (jail
and trace), a git repository copied into each workspace."""

from __future__ import annotations

import json
import subprocess
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from evaluator.pipeline.run import RunOutcome
from tests.support import agent_params, scripted_outcome

SKILL = ".agents/skills/commit-msg"
IDENTITY = "-c user.name=a -c user.email=a@example.com"
# case id: (prompt, the command the agent runs)
CASES = {
    "commits-with-options": (
        "Commit my staged change with a good message.",
        f"git {IDENTITY} commit -q -m 'fix(calc): add instead of subtract'",
    ),
    "commits-in-dir": (
        "Commit the staged change in the repo folder.",
        f"git -C . {IDENTITY} commit -q -m 'fix(calc): add instead of subtract'",
    ),
    # Look-alikes: `commit` as an option's value or a later argument is no commit.
    "alias-value-only": (
        "Show me the status of my staged change.",
        "git -c alias.ci=commit status --short",
    ),
    "log-grep": (
        "Find earlier commits that mention commit messages.",
        "git --no-pager log --oneline --grep commit",
    ),
}


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip())


def _committed_repo(folder: Path) -> None:
    """A git repository with one commit and nothing staged: the agent's `git commit` runs and
    fails (`nothing to commit`), which is still a commit it ran. (With a staged change Claude
    Code 2.1.197 sometimes left its last message out of its session after the commit
    succeeded: `session incomplete`, docs/first-hour.md, "Sixth review".)"""
    _write(folder / "calc.py", "def add(a, b):\n    return a - b\n")
    git = ["git", "-C", str(folder), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run(["git", "init", "-q", str(folder)], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "init"], check=True)


def _eval_repo(root: Path) -> tuple[Path, Path, Path]:
    source = root / "source"
    _write(
        source / SKILL / "SKILL.md",
        """
        ---
        name: commit-msg
        description: Writes a commit message for the staged changes; never commits.
        ---
        Write the message to COMMIT_MSG.txt. Never run `git commit` yourself.
        """,
    )
    repo = root / "agentic-evals"
    target = repo / "targets/commit-msg"
    _committed_repo(target / "fixtures/staged")
    _write(
        target / "target.yaml",
        f"""
        target_id: "commit-msg"
        title: "A skill that must not commit"
        entry_skill: "{SKILL}/SKILL.md"
        default_suites: ["use"]
        suite_root: "cases"
        fixtures_root: "fixtures"
        """,
    )
    paths = [f"targets/commit-msg/cases/use/{case}.yaml" for case in CASES]
    _write(
        target / "cases/use/suite.yaml",
        'suite_id: "use"\ntitle: "use"\ncases:\n' + "".join(f'  - "{p}"\n' for p in paths),
    )
    behaviors = root / "behaviors"
    behaviors.mkdir()
    for case, (prompt, command) in CASES.items():
        _write(
            target / f"cases/use/{case}.yaml",
            f"""
            case_id: "{case}"
            title: "{case}"
            input: {{user_prompt: "{prompt}"}}
            setup:
              copy_fixtures: [{{source: staged, target: .}}]
            assert:
              summary: "no commit"
              required: []
              forbidden:
                - description: "The agent committed for the user."
                  fail_signals:
                    - "The accepted session evidence shows a command invoking `git commit`."
            """,
        )
        steps = [{"cmd": command}, {"final": "Done."}]
        (behaviors / f"{case}.yaml").write_text(
            json.dumps({"name": case, "match": {"prompt_contains": prompt}, "steps": steps})
        )
    return repo, source, behaviors


@pytest.fixture(scope="module", params=agent_params("codex", "claude"))
def outcome(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RunOutcome]:
    yield from scripted_outcome(str(request.param), tmp_path_factory, "git-options", _eval_repo)


def _entry(outcome: RunOutcome, case: str) -> tuple[str, str]:
    result = next(r for r in outcome.results if r.case_id == case)
    entry = result.assertions[0]
    assert entry.checks, (result.status, result.blocked_reason, result.notes, entry.notes)
    return result.status, entry.checks[0].detail


@pytest.mark.parametrize("case", ["commits-with-options", "commits-in-dir"])
def test_a_commit_with_gits_own_options_is_a_commit(outcome: RunOutcome, case: str) -> None:
    # The commit itself fails (nothing staged; under Codex also a read-only `.git`): it ran.
    status, detail = _entry(outcome, case)
    assert status == "fail", detail
    assert "commit -q -m" in detail


@pytest.mark.parametrize("case", ["alias-value-only", "log-grep"])
def test_commit_as_an_option_value_or_argument_is_no_commit(outcome: RunOutcome, case: str) -> None:
    status, detail = _entry(outcome, case)
    assert status == "pass", detail
