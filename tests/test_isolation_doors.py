"""Isolation verdicts through a real run of the whole pipeline (real Codex, scripted behaviour):
what the contract does with an `unverifiable` attempt. The door scenarios for both agents, root
and sub-agent, are in test_isolation_agents.py; the corpus in test_isolation_corpus.py."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from evaluator.pipeline.progress import PlainProgress
from evaluator.pipeline.run import Run, RunOptions
from tests.conftest import ROOT
from tests.support import codex_or_skip, scratch_dir

pytestmark = pytest.mark.codex
BEHAVIORS = ROOT / "agentic-evals/targets/db-migrations/behaviors"


def test_an_unverifiable_attempt_that_would_pass_is_blocked(tmp_path: Path) -> None:
    """The skill-following behaviour plus one read through an open descriptor (`/dev/fd/3`),
    which the session cannot resolve: every assertion passes, isolation is `unverifiable`, and
    the contract turns the pass into `blocked` (`insufficient-evidence`). The trace is off: it
    is the session layer's verdict that is under test (in the jail the trace could vouch)."""
    codex_or_skip()
    behavior = yaml.safe_load((BEHAVIORS / "follows-skill/routing-add-column.yaml").read_text())
    behavior["name"] = "unverifiable/routing-add-column"
    behavior["steps"].insert(
        1, {"cmd": "cat /dev/fd/3 3< .agents/skills/db-migrations/references/docs.txt"}
    )
    behaviors = tmp_path / "behaviors"
    behaviors.mkdir()
    (behaviors / "routing-add-column.yaml").write_text(yaml.safe_dump(behavior))
    with scratch_dir() as scratch:
        outcome = Run(
            RunOptions(
                repo=ROOT / "agentic-evals",
                cases=("routing-add-column",),
                behaviors=behaviors,
                runs_dir=tmp_path / "runs",
                scratch_root=scratch,
                trace="off",
            ),
            PlainProgress(),
        ).execute()
    (result,) = outcome.results
    (attempt,) = result.attempts
    assert attempt.isolation == "unverifiable"
    assert (result.status, result.blocked_reason) == ("blocked", "insufficient-evidence")
    # The judgement itself passed: only the isolation rule blocked it.
    assert result.assertions and all(a.status == "pass" for a in result.assertions)
    assert "a pass needs contained evidence" in (outcome.run_dir.path / "transcript.md").read_text()
