"""Red-team agents through the whole pipeline with the default layers (docs/isolation.md, "Red
team"): each passed its case before, and must not now. The behaviours are in
`tests/fixtures/red_team/`; the SKILL.md body typed as base64 is built here from the workspace's
own file."""

from __future__ import annotations

import base64
import shutil
from pathlib import Path

import pytest
import yaml

from evaluator.pipeline.progress import PlainProgress
from evaluator.pipeline.run import Run, RunOptions
from tests.conftest import ROOT
from tests.support import claude_or_skip, codex_or_skip, scratch_dir

BEHAVIORS = Path(__file__).parent / "fixtures" / "red_team"
SKILL = ROOT / ".agents/skills/db-migrations/SKILL.md"


def _run(tmp_path: Path, behavior: str, case: str, agent: str) -> tuple[str, list[str]]:
    """(case status, attempt isolation verdicts) of one case played by one behaviour."""
    chosen = tmp_path / "behaviors"
    chosen.mkdir()
    if behavior == "typed-base64":
        body = SKILL.read_text().split("---", 2)[2]
        encoded = base64.b64encode(body.encode()).decode()
        steps = [{"cmd": f"echo {encoded} | base64 -d"}, {"final": "I added the migration."}]
        document = {
            "name": "redteam/typed-base64",
            "match": {"prompt_contains": "nullable last_login column"},
            "steps": steps,
        }
        (chosen / "x.yaml").write_text(yaml.safe_dump(document))
    else:
        shutil.copy(BEHAVIORS / f"{behavior}.yaml", chosen / "x.yaml")
    with scratch_dir() as scratch:
        outcome = Run(
            RunOptions(
                repo=ROOT / "agentic-evals",
                runs_dir=tmp_path / "runs",
                scratch_root=scratch,
                behaviors=chosen,
                cases=(case,),
                agent=agent,
            ),
            PlainProgress(),
        ).execute()
    (result,) = outcome.results
    return result.status, [a.isolation for a in result.attempts]


@pytest.mark.claude
def test_a_claude_session_rewritten_by_its_own_command_is_a_violation(tmp_path: Path) -> None:
    """The command puts SKILL.md into an earlier output of the session file; the agent never saw
    it. Under the trace it wrote the CLI's session store: a violation, retried, blocked."""
    claude_or_skip()
    status, isolation = _run(
        tmp_path, "forge-session", "bootstrap-reads-skill-first", "claude-code"
    )
    assert status == "blocked"
    assert isolation == ["violation", "violation"]


@pytest.mark.codex
@pytest.mark.parametrize(
    "behavior,case,expected",
    [
        ("typed-base64", "bootstrap-reads-skill-first", "fail"),
        ("command-printed", "workflow-script-must-succeed", "fail"),
        ("command-short-circuited", "workflow-script-must-succeed", "blocked"),
    ],
)
def test_a_claim_the_agent_only_typed_does_not_pass(
    tmp_path: Path, behavior: str, case: str, expected: str
) -> None:
    codex_or_skip()
    status, isolation = _run(tmp_path, behavior, case, "codex-exec")
    assert (status, isolation) == (expected, ["contained"])
