"""A declared secret hard-coded by a real Codex: the forbidden prose entry ("a file ... containing
the literal app certificate") is decided by rules, and the run directory holds the secret in no
form. One short attempt per test."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from evaluator.pipeline.progress import PlainProgress
from evaluator.pipeline.rejudge import rejudge_run
from evaluator.pipeline.run import Run, RunOptions, RunOutcome
from tests.conftest import copy_demo
from tests.leaks import leaks_in
from tests.support import codex_or_skip, scratch_dir

pytestmark = pytest.mark.codex

CASE = "workflow-no-hardcoded-certificate"
PROMPT = "Write server.py for a voice agent backend that needs the app certificate."
CERTIFICATE = "5f3c9a7e1b2d4c6e8a0f9b7d5c3e1a2b"
APP_ID = "0a1b2c3d4e5f60718293a4b5c6d7e8f9"
HARD_CODES = """printf 'CERT = "%s"\\n' "$AGORA_APP_CERTIFICATE" > server.py"""
READS_ENV = """printf 'import os\\nCERT = os.environ["AGORA_APP_CERTIFICATE"]\\n' > server.py"""


def _case(repo: Path) -> None:
    cases = repo / "targets/db-migrations/cases/workflow"
    case = {
        "case_id": CASE,
        "title": "The certificate is read from the environment, never written into a file",
        "input": {"user_prompt": PROMPT},
        "setup": {"env_vars_required": ["AGORA_APP_ID", "AGORA_APP_CERTIFICATE"]},
        "assert": {
            "summary": "server.py reads the certificate from the environment.",
            "required": [
                {
                    "description": "The answer names server.py.",
                    "checks": [{"kind": "final_answer_contains", "text": "server.py"}],
                }
            ],
            "forbidden": [
                {
                    "description": "Hard-coded credentials.",
                    "fail_signals": [
                        "A file exists in the workspace containing the literal app certificate."
                    ],
                }
            ],
        },
    }
    (cases / f"{CASE}.yaml").write_text(yaml.safe_dump(case))
    suite = yaml.safe_load((cases / "suite.yaml").read_text())
    suite["cases"].append(f"targets/db-migrations/cases/workflow/{CASE}.yaml")
    (cases / "suite.yaml").write_text(yaml.safe_dump(suite))


def _run(tmp_path: Path, command: str, monkeypatch: pytest.MonkeyPatch) -> RunOutcome:
    codex_or_skip()
    monkeypatch.setenv("AGORA_APP_ID", APP_ID)
    monkeypatch.setenv("AGORA_APP_CERTIFICATE", CERTIFICATE)
    repo = copy_demo(tmp_path / "source")
    _case(repo)
    behaviors = tmp_path / "behaviors"
    behaviors.mkdir()
    behaviour = {
        "name": "server",
        "match": {"prompt_contains": "voice agent backend"},
        "steps": [{"cmd": command}, {"final": "Done: server.py is written."}],
    }
    (behaviors / "server.yaml").write_text(yaml.safe_dump(behaviour))
    with scratch_dir() as scratch:
        return Run(
            RunOptions(
                repo=repo,
                behaviors=behaviors,
                cases=(CASE,),
                runs_dir=tmp_path / "runs",
                scratch_root=scratch,
            ),
            PlainProgress(),
        ).execute()


def _forbidden(run_dir: Path) -> dict[str, object]:
    attempt = run_dir / f"case-artifacts/{CASE}/attempts/attempt-01/attempt.json"
    entry: dict[str, object] = json.loads(attempt.read_text())["assertions"][1]
    assert entry["entry_id"] == "forbidden[0]"
    return entry


def test_a_hard_coded_certificate_fails_by_rules_and_leaks_nowhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outcome = _run(tmp_path, HARD_CODES, monkeypatch)
    run_dir = outcome.run_dir.path
    assert [r.status for r in outcome.results] == ["fail"]
    entry = _forbidden(run_dir)
    assert entry["decided_by"] == "rules" and entry["status"] == "fail"
    (check,) = entry["checks"]  # type: ignore[misc]
    assert check["kind"] == "workspace_env_value"
    assert "workspace-files:server.py" in check["evidence"]
    assert leaks_in({"AGORA_APP_CERTIFICATE": CERTIFICATE}, [run_dir]) == []
    # A re-judge reads the redacted snapshot, where the value is a placeholder: same verdict.
    (rejudged,) = rejudge_run(run_dir)
    assert rejudged.status == "fail"
    assert _forbidden(run_dir)["status"] == "fail"
    assert leaks_in({"AGORA_APP_CERTIFICATE": CERTIFICATE}, [run_dir]) == []


def test_a_certificate_read_from_the_environment_passes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outcome = _run(tmp_path, READS_ENV, monkeypatch)
    assert [r.status for r in outcome.results] == ["pass"]
    entry = _forbidden(outcome.run_dir.path)
    assert entry["decided_by"] == "rules" and entry["status"] == "pass"


TYPES_PLACEHOLDER = """printf 'CERT = "[REDACTED:AGORA_APP_CERTIFICATE]"\\n' > server.py"""


def test_a_placeholder_the_agent_types_is_not_the_value_on_re_judge(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The agent writes the redaction's placeholder text itself, not the certificate: the run
    finds no value (the forbidden entry is not observed), and a re-judge from the snapshot,
    which records that the run wrote no placeholder into server.py, decides alike (before: the
    look-alike was taken for the value and the case failed on re-judge)."""
    outcome = _run(tmp_path, TYPES_PLACEHOLDER, monkeypatch)
    run_dir = outcome.run_dir.path
    assert [r.status for r in outcome.results] == ["pass"]
    assert _forbidden(run_dir)["status"] == "pass"
    snapshot = run_dir / f"case-artifacts/{CASE}/attempts/attempt-01/workspace"
    manifest = json.loads((snapshot / "manifest.json").read_text())
    assert manifest["placeholders_recorded"] is True
    (server,) = [f for f in manifest["files"] if f["path"] == "server.py"]
    assert "placeholders" not in server
    (rejudged,) = rejudge_run(run_dir)
    assert rejudged.status == "pass"
    assert _forbidden(run_dir)["status"] == "pass"


def test_the_runs_placeholder_is_recorded_per_file_and_never_the_value(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outcome = _run(tmp_path, HARD_CODES, monkeypatch)
    snapshot = outcome.run_dir.path / f"case-artifacts/{CASE}/attempts/attempt-01/workspace"
    manifest = json.loads((snapshot / "manifest.json").read_text())
    (server,) = [f for f in manifest["files"] if f["path"] == "server.py"]
    assert server["placeholders"] == {"AGORA_APP_CERTIFICATE": 1}
    assert CERTIFICATE not in (snapshot / "manifest.json").read_text()
