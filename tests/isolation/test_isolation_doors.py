"""Isolation verdicts through a real run of the whole pipeline (real Codex, scripted behaviour):
what the contract does with an `unverifiable` attempt. The door scenarios for both agents, root
and sub-agent, are in test_isolation_agents.py; the corpus in test_isolation_corpus_*.py."""

from __future__ import annotations

import os
import pwd
import shutil
from pathlib import Path

import pytest
import yaml

from evaluator.sandbox import Tracer
from tests.conftest import ROOT
from tests.corpus import Canary, run_entry
from tests.support import codex_or_skip, run_scripted

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
    outcome = run_scripted(
        repo=ROOT / "agentic-evals",
        cases=("routing-add-column",),
        behaviors=behaviors,
        runs_dir=tmp_path / "runs",
        trace="off",
    )
    (result,) = outcome.results
    (attempt,) = result.attempts
    assert attempt.isolation == "unverifiable"
    assert (result.status, result.blocked_reason) == ("blocked", "insufficient-evidence")
    # The judgement itself passed: only the isolation rule blocked it.
    assert result.assertions and all(a.status == "pass" for a in result.assertions)
    assert "a pass needs contained evidence" in (outcome.run_dir.path / "transcript.md").read_text()


@pytest.mark.parametrize(
    "command",
    [
        "python3 -c 'print(\"/etc/looks-like-a-path\")'",  # a literal that reaches no file API
        "echo hi | grep --label=/etc/looks-like-a-path -H hi",  # an unknown option's value
    ],
)
def test_the_complete_trace_clears_a_lexical_guess(command: str) -> None:
    """A path-like string the session analysis can only guess about is a violation from the
    session alone, and no violation when the trace saw the whole tool call and no access to
    it (a real codex run under strace, without the jail)."""
    codex_or_skip()
    why_not = Tracer().unavailable()
    if why_not:
        pytest.skip(f"no tracer here: {why_not}")
    entry = {"id": "guess", "steps": ["cat .agents/skills/db-migrations/SKILL.md", command]}
    canary = Canary(Path("/nonexistent-canary"), "unused")
    assert run_entry(entry, canary).verdict == "violation"
    traced = run_entry(entry, canary, traced=True)
    assert traced.verdict == "contained", traced.reason


def test_a_tools_probe_of_the_real_homes_config_is_incidental() -> None:
    """sqlite3 finds its home in the password database, not in HOME: without the jail it probes
    the invoking user's `~/.sqliterc`. Absent, that probe is the tool's own business (listed as
    incidental), not the skill's violation. sqlite3 itself is not modelled, so the session stays
    `unverifiable`: what is under test is the trace's verdict."""
    codex_or_skip()
    why_not = Tracer().unavailable()
    if why_not:
        pytest.skip(f"no tracer here: {why_not}")
    if shutil.which("sqlite3") is None:
        pytest.skip("no sqlite3 here")
    probed = Path(pwd.getpwuid(os.getuid()).pw_dir) / ".sqliterc"
    if probed.exists():
        pytest.skip(f"{probed} exists here: its read would rightly be a violation")
    entry = {"id": "sqlite", "steps": ["sqlite3 local.db 'select 1;'"]}
    traced = run_entry(entry, Canary(Path("/nonexistent-canary"), "unused"), traced=True)
    assert traced.verdict == "unverifiable", traced.reason
    assert "trace: 1 traced tool call(s), all inside the workspace" in traced.reason
