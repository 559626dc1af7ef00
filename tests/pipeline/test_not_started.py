"""A case whose setup cannot be reproduced here is not started: real Codex, the demo's case that
needs `DATABASE_URL`, with the variable missing and then set."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.test_validate import run_cli
from tests.conftest import ROOT
from tests.support import codex_or_skip, scratch_dir

pytestmark = pytest.mark.codex
BEHAVIORS = ROOT / "agentic-evals/targets/db-migrations/behaviors/follows-skill"
CASE = "bootstrap-needs-database-url"


def test_a_missing_required_variable_starts_no_agent(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """newuser8: the case ended `blocked (environment)`, but `run` started the agent first (its
    `check_env.sh` exited 2 in the session): a real model's tokens spent on a case that could
    only end blocked, or fail for the setup's reason. `explain` warned of it; `run` did not."""
    codex_or_skip()
    monkeypatch.delenv("DATABASE_URL", raising=False)
    with scratch_dir() as scratch:
        base = ["run", "--repo", str(ROOT / "agentic-evals"), "--runs-dir", str(tmp_path / "runs")]
        base += ["--scratch-root", str(scratch), "--behaviors", str(BEHAVIORS), "--case", CASE]
        code, out, err = run_cli([*base, "--run-id", "missing"], capsys)
        assert code == 1, err  # a blocked case: the exit code says so
        run_dir = tmp_path / "runs/missing"
        attempt = run_dir / f"case-artifacts/{CASE}/attempts/attempt-01"
        record = json.loads((attempt / "attempt.json").read_text())
        assert record["status"] == "blocked" and record["blocked_reason"] == "environment"
        assert record["blocked_by"] == "eval"
        assert record["unmet_needs"] == [
            "setup: env_vars_required: DATABASE_URL is not set in the environment"
        ]
        assert record["reason"].startswith("the agent was not started")
        # No agent ran: no process, no session, no output of its own.
        assert record["exit_code"] is None and record["thread_id"] is None
        assert not (attempt / "agent-stdout.jsonl").exists()
        assert record["attempt"] == 1 and len(list(attempt.parent.iterdir())) == 1  # no retry
        report = (run_dir / "report.md").read_text()
        assert "the agent was not started" in report
        assert "setup not reproducible: env_vars_required: DATABASE_URL" in report
        # `explain` says what `run` does.
        code, out, err = run_cli(
            ["explain", "--repo", str(ROOT / "agentic-evals"), "--case", CASE], capsys
        )
        assert code == 0 and "does not start the agent" in out, out + err
        # The look-alike: set where agentic-eval runs, the agent is started and the case judged.
        monkeypatch.setenv("DATABASE_URL", "postgres://app@db/app")
        code, out, err = run_cli([*base, "--run-id", "set"], capsys)
        attempt = tmp_path / f"runs/set/case-artifacts/{CASE}/attempts/attempt-01"
        record = json.loads((attempt / "attempt.json").read_text())
        assert record["exit_code"] == 0 and record["thread_id"], record
        assert record["unmet_needs"] is None
        assert (attempt / "agent-stdout.jsonl").is_file()
