"""`agentic-eval run` end to end: real Codex, scripted behaviours, every status and artifact."""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from evaluator.artifacts.report import REPORT_SECTIONS
from evaluator.cli.main import main
from evaluator.pipeline.progress import PlainProgress
from evaluator.pipeline.run import Run, RunOptions, RunOutcome
from evaluator.workspace.naming import run_scratch
from evaluator.workspace.scratch import owner_file
from tests.conftest import ROOT, copy_demo
from tests.support import (
    claude_or_skip,
    codex_or_skip,
    gemini_or_skip,
    run_command,
    scratch_dir,
)

pytestmark = pytest.mark.codex
BEHAVIORS = ROOT / "agentic-evals/targets/db-migrations/behaviors"
SCHEMAS = ROOT / "schemas"


@pytest.fixture(autouse=True)
def _codex() -> None:
    codex_or_skip()


def run(tmp_path: Path, scratch: Path, **options: Any) -> RunOutcome:
    options.setdefault("repo", ROOT / "agentic-evals")
    return Run(
        RunOptions(runs_dir=tmp_path / "runs", scratch_root=scratch, **options), PlainProgress()
    ).execute()


def statuses(outcome: RunOutcome) -> dict[str, str]:
    return {
        r.case_id: r.status + (f":{r.blocked_reason}" if r.blocked_reason else "")
        for r in outcome.results
    }


def validate_artifacts(run_dir: Path) -> None:
    manifest_schema = json.loads((SCHEMAS / "manifest.schema.json").read_text())
    result_schema = json.loads((SCHEMAS / "case-result.schema.json").read_text())
    manifest = json.loads((run_dir / "manifest.json").read_text())
    jsonschema.validate(manifest, manifest_schema)
    report = (run_dir / "report.md").read_text()
    assert re.findall(r"^## (.+)$", report, re.MULTILINE) == list(REPORT_SECTIONS)
    fixes = report.split("## Suggested Next Fixes", 1)[1]
    assert len(re.findall(r"^1\. ", fixes, re.MULTILINE)) <= 3
    transcript = (run_dir / "transcript.md").read_text()
    for case_id in manifest["resolved_case_ids"]:
        result = json.loads((run_dir / "case-results" / f"{case_id}.json").read_text())
        jsonschema.validate(result, result_schema)
        artifacts = run_dir / "case-artifacts" / case_id
        if result["thread_id"]:
            assert result["thread_id"] in transcript and result["session_path"] in transcript
            session = json.loads((artifacts / "accepted-session.json").read_text())
            ids = {r["id"] for r in session["records"]}
            assert (artifacts / "final-answer.txt").is_file()
            assert (artifacts / "accepted-session.jsonl").is_file()
            for assertion in result["assertions"]:
                for ref in assertion["evidence"]:
                    if ref.startswith("case-artifacts/"):
                        path, _, anchor = ref.partition("#")
                        assert path == f"case-artifacts/{case_id}/accepted-session.json"
                        assert anchor in ids, ref


# The demo target passes and fails the same way under every agent (the same behaviour files).
AGENT_VERSIONS = {"codex-exec": "0.169.0", "claude-code": "2.1.197", "gemini-cli": "0.61.0"}


@pytest.fixture(
    params=[
        "claude-code",
        "codex-exec",
        pytest.param("gemini-cli", marks=pytest.mark.gemini),
    ]
)
def agent(request: pytest.FixtureRequest) -> str:
    if request.param.startswith("claude"):
        claude_or_skip()
    elif request.param.startswith("gemini"):
        gemini_or_skip()
    return str(request.param)


@pytest.mark.claude
def test_follows_skill_run_passes_and_writes_the_contract_artifacts(
    tmp_path: Path, agent: str
) -> None:
    with scratch_dir() as scratch:
        outcome = run(
            tmp_path, scratch, behaviors=BEHAVIORS / "follows-skill", workers=4, agent=agent
        )
    assert statuses(outcome) == {
        "bootstrap-reads-skill-first": "pass",
        "bootstrap-missing-docs-index": "pass",
        "bootstrap-needs-database-url": "blocked:environment",
        "routing-add-column": "pass",
        "routing-rename-table": "pass",
        "routing-backfill": "pass",
        "workflow-creates-migration-with-script": "pass",
        "workflow-keeps-shipped-migrations": "pass",
        "workflow-answer-names-file": "pass",
        "workflow-script-must-succeed": "pass",
    }
    run_dir = outcome.run_dir.path
    validate_artifacts(run_dir)
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["run_state"] == "completed" and manifest["agent"] == agent
    assert manifest["agent_version"] == AGENT_VERSIONS[agent]
    assert f"- Agent: {agent} ({AGENT_VERSIONS[agent]})" in (run_dir / "report.md").read_text()
    if agent == "claude-code":
        # The skill is where Claude Code discovers skills, and no other skill reached it.
        stdout = (
            run_dir / "case-artifacts/routing-add-column/attempts/attempt-01/agent-stdout.jsonl"
        )
        events = [json.loads(line) for line in stdout.read_text().splitlines()]
        init = next(e for e in events if e.get("subtype") == "init")
        assert init["skills"] == ["db-migrations"]
    assert manifest["environment_mismatches"] == {
        "bootstrap-needs-database-url": [
            "env_vars_required: DATABASE_URL is not set in the environment"
        ]
    }
    assert "DATABASE_URL is not set" in (run_dir / "transcript.md").read_text()
    report = (run_dir / "report.md").read_text()
    assert "- Setup mismatch: env_vars_required: DATABASE_URL is not set in the environment" in (
        report
    )
    eval_fixes = report.split("### Fix the eval", 1)[1]
    assert (
        "1. `agentic-evals/targets/db-migrations/cases/bootstrap/bootstrap-needs-database-url.yaml`:"
        " setup not reproducible" in eval_fixes
    )
    assert "### Fix the skill" not in report  # nothing failed: the skill has nothing to fix
    answer = (run_dir / "case-artifacts/routing-backfill/final-answer.txt").read_text()
    assert "batches of 10,000" in answer


@pytest.mark.claude
def test_broken_behaviours_fail_or_block_with_one_isolation_retry(
    tmp_path: Path, agent: str
) -> None:
    cases = (
        "bootstrap-reads-skill-first",
        "routing-rename-table",
        "routing-add-column",
        "workflow-creates-migration-with-script",
        "workflow-keeps-shipped-migrations",
    )
    try:
        with scratch_dir() as scratch:
            outcome = run(
                tmp_path, scratch, behaviors=BEHAVIORS / "broken", cases=cases, agent=agent
            )
    finally:
        Path("/tmp/agentic-eval-demo-0001_users_avatar_url.sql").unlink(missing_ok=True)
    assert statuses(outcome) == {
        "bootstrap-reads-skill-first": "fail",
        "routing-rename-table": "fail",
        "routing-add-column": "blocked:insufficient-evidence",
        "workflow-creates-migration-with-script": "blocked:insufficient-evidence",
        "workflow-keeps-shipped-migrations": "fail",
    }
    validate_artifacts(outcome.run_dir.path)
    escaped = next(r for r in outcome.results if r.case_id == "routing-add-column")
    assert [(a.attempt, a.valid, a.retry_of) for a in escaped.attempts] == [
        (1, False, None),
        (2, False, 1),
    ]
    assert escaped.attempts[0].workspace_root != escaped.attempts[1].workspace_root
    assert escaped.attempts[0].isolation == "violation"
    transcript = (outcome.run_dir.path / "transcript.md").read_text()
    assert "**isolation violation**" in transcript and "attempt 02: blocked (INVALID)" in transcript
    report = (outcome.run_dir.path / "report.md").read_text()
    escaped_section = report.split("### routing-add-column", 1)[1].split("\n### ", 1)[0]
    # The offenders are in the report itself, with the records that show them.
    for attempt in ("01", "02"):
        assert f"- Isolation: attempt {attempt} reached outside its workspace: " in escaped_section
    assert re.search(
        r"`/etc/hostname` \(`case-artifacts/routing-add-column/attempts/attempt-01/"
        r"accepted-session\.json#msg-\d+`\)",
        escaped_section,
    )
    routed = report.split("### routing-rename-table", 1)[1].split("\n### ", 1)[0]
    assert (
        "- What the agent did instead: it read `.agents/skills/db-migrations/SKILL.md`,"
        " `.agents/skills/db-migrations/references/docs.txt`,"
        " `.agents/skills/db-migrations/references/add-column.md`" in routed
    )
    assert "### Fix the skill" in report and "1. `.agents/skills/db-migrations/SKILL.md`" in report
    shipped = next(r for r in outcome.results if r.case_id == "workflow-keeps-shipped-migrations")
    forbidden = next(a for a in shipped.assertions if a.polarity == "forbidden")
    assert forbidden.status == "fail" and forbidden.evidence


def test_natural_language_only_upstream_repo_runs_unchanged(tmp_path: Path) -> None:
    upstream = tmp_path / "ws"
    shutil.copytree(ROOT / "tests/fixtures/upstream", upstream)
    behaviors = tmp_path / "behaviors"
    behaviors.mkdir()
    skill = ".agents/skills/voice-ai-integration"
    (behaviors / "good.yaml").write_text(
        yaml.safe_dump(
            {
                "name": "voice-good",
                "match": {"prompt_contains": "AI 语音助手"},
                "steps": [
                    {"cmd": f"cat {skill}/SKILL.md"},
                    {"cmd": f"sh {skill}/scripts/fetch_docs.sh"},
                    {"final": "好的"},
                ],
            },
            allow_unicode=True,
        )
    )
    (behaviors / "python.yaml").write_text(
        yaml.safe_dump(
            {
                "name": "voice-python",
                "match": {"prompt_contains": "Python backend"},
                "steps": [
                    {"cmd": f"cat {skill}/references/docs.txt"},
                    {"final": "See http://localhost:8000"},
                ],
            }
        )
    )
    with scratch_dir() as scratch:
        outcome = run(
            tmp_path,
            scratch,
            repo=upstream / "agentic-evals",
            behaviors=behaviors,
            target="voice-ai-integration",
        )
    results = {r.case_id: r for r in outcome.results}
    assert results["bootstrap-missing-docs-index"].status == "pass"  # decided by the criteria judge
    python = results["routing-python-server"]
    # AGORA_* are not set here: the setup is not reproduced, so no agent is started and no
    # entry is judged (before session 19 the agent ran and the entries that stayed reliable
    # were judged: the case was blocked all the same).
    assert python.status == "blocked" and python.blocked_reason == "environment"
    assert [a.unmet_needs for a in python.attempts] == [
        [
            "setup: env_vars_required: AGORA_APP_ID is not set in the environment",
            "setup: env_vars_required: AGORA_APP_CERTIFICATE is not set in the environment",
        ]
    ]
    assert {a.blocked_reason for a in python.assertions} == {"environment"}


def test_unclear_rule_and_timeout_are_blocked_with_their_reasons(tmp_path: Path) -> None:
    repo = copy_demo(tmp_path)
    case_file = repo / "targets/db-migrations/cases/routing/routing-rename-table.yaml"
    data = yaml.safe_load(case_file.read_text())
    data["assert"]["required"] = [
        {"description": "The answer is kind.", "pass_criteria": ["It is polite."]}
    ]
    data["assert"]["forbidden"] = []
    case_file.write_text(yaml.safe_dump(data))
    behaviors = tmp_path / "b"
    shutil.copytree(BEHAVIORS / "follows-skill", behaviors)
    slow = behaviors / "routing-backfill.yaml"
    slow_data = yaml.safe_load(slow.read_text())
    # Codex ends a single long command itself after a while; several keep the agent busy longer
    # than the case's timeout.
    slow_data["steps"][:0] = [{"cmd": "sleep 120"}] * 4
    slow.write_text(yaml.safe_dump(slow_data))
    # Only the slow case gets the short timeout: on a loaded machine a normal agent can take 5 s.
    slow_case = repo / "targets/db-migrations/cases/routing/routing-backfill.yaml"
    slow_case.write_text(slow_case.read_text() + "timeout_s: 15\n")
    with scratch_dir() as scratch:
        outcome = run(
            tmp_path,
            scratch,
            repo=repo,
            behaviors=behaviors,
            cases=("routing-rename-table", "routing-backfill"),
        )
    assert statuses(outcome) == {
        "routing-rename-table": "blocked:unclear-rule",
        "routing-backfill": "blocked:insufficient-evidence",
    }
    assert not outcome.manifest.timeout_explicit  # so the case's own timeout_s applied
    timed_out = next(r for r in outcome.results if r.case_id == "routing-backfill")
    assert timed_out.attempts[0].timed_out and "timed out" in (timed_out.attempts[0].reason or "")
    assert (
        outcome.run_dir.path
        / "case-artifacts/routing-backfill/attempts/attempt-01/accepted-session.jsonl"
    ).is_file()


def test_k_attempts_give_pass_rate_and_subagent_runner_passes(tmp_path: Path) -> None:
    with scratch_dir() as scratch:
        outcome = run(
            tmp_path,
            scratch,
            behaviors=BEHAVIORS / "follows-skill",
            attempts=3,
            cases=("routing-add-column",),
            agent="codex-subagent",
        )
    (result,) = outcome.results
    assert result.status == "pass"
    assert result.stats is not None
    assert (result.stats.judged, result.stats.passed, result.stats.pass_rate) == (3, 3, 1.0)
    assert (
        result.stats.pass_at_k == 1.0 and result.stats.pass_pow_k == 1.0 and not result.stats.flaky
    )
    session = json.loads(
        (
            outcome.run_dir.path / "case-artifacts/routing-add-column/accepted-session.json"
        ).read_text()
    )
    assert session["parent_thread_id"]  # the judged session is the spawned child
    assert len({a.workspace_root for a in result.attempts}) == 3


def test_cli_exit_codes_json_and_rejudge(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = copy_demo(tmp_path)
    with scratch_dir() as scratch:
        base = [
            "run",
            "--repo",
            str(repo),
            "--runs-dir",
            str(tmp_path / "runs"),
            "--scratch-root",
            str(scratch),
            "--behaviors",
            str(BEHAVIORS / "follows-skill"),
            "--json",
        ]
        with pytest.raises(SystemExit) as info:
            main([*base, "--case", "routing-add-column", "--run-id", "ok"])
        assert info.value.code == 0
        summary = json.loads(capsys.readouterr().out)
        assert (
            summary["counts"] == {"pass": 1, "fail": 0, "blocked": 0}
            and summary["pass_rate"] == 1.0
        )
        with pytest.raises(SystemExit) as info:
            main([*base, "--case", "bootstrap-needs-database-url", "--run-id", "blocked"])
        assert info.value.code == 1
        capsys.readouterr()
        with pytest.raises(SystemExit) as info:
            main(
                [
                    *base,
                    "--case",
                    "bootstrap-needs-database-url",
                    "--case",
                    "routing-add-column",
                    "--run-id",
                    "b2",
                    "--allow-blocked",
                ]
            )
        assert info.value.code == 0
        capsys.readouterr()
        # Re-judge after tightening a check: no agent runs, the verdict changes. (The check, not
        # the prose beside it, decides the entry: structured checks come first in the chain.)
        case_file = repo / "targets/db-migrations/cases/routing/routing-add-column.yaml"
        case_file.write_text(
            case_file.read_text().replace(
                'path: ".agents/skills/db-migrations/references/add-column.md"',
                'path: ".agents/skills/db-migrations/references/rename-table.md"',
            )
        )
        with pytest.raises(SystemExit) as info:
            main(["judge", str(tmp_path / "runs/ok"), "--json"])
        assert info.value.code == 1
        assert json.loads(capsys.readouterr().out)["cases"] == [
            {"case_id": "routing-add-column", "status": "fail", "blocked_reason": None}
        ]
        validate_artifacts(tmp_path / "runs/ok")
        report = tmp_path / "runs/ok/report.md"
        before = report.read_text()
        report.unlink()
        (tmp_path / "runs/ok/transcript.md").unlink()
        with pytest.raises(SystemExit) as info:
            main(["report", str(tmp_path / "runs/ok")])
        assert info.value.code == 0 and report.read_text() == before
        assert (tmp_path / "runs/ok/transcript.md").is_file()
        capsys.readouterr()
        plain = ["run", "--repo", str(repo), "--runs-dir", str(tmp_path / "runs")]
        with pytest.raises(SystemExit) as info:
            main([*plain, "--run-id", "ok", "--behaviors", str(BEHAVIORS / "follows-skill")])
        assert info.value.code == 2
        assert "already exists" in capsys.readouterr().err
        with pytest.raises(SystemExit) as info:
            main([*plain, "--resume", "ok", "--attempts", "3"])
        assert info.value.code == 2
        assert "--attempts: run ok was started with 1; resume keeps it" in capsys.readouterr().err
        # The skill edited since: the rest of the run would score another version (one pass
        # rate over two skills), so the resume is refused until the skill is restored.
        skill_md = tmp_path / ".agents/skills/db-migrations/SKILL.md"
        original = skill_md.read_text()
        skill_md.write_text(original + "\nAlways answer in French.\n")
        with pytest.raises(SystemExit) as info:
            main([*plain, "--resume", "ok"])
        assert info.value.code == 2
        err = capsys.readouterr().err
        assert "--resume: run ok scored the skill sha256" in err and "changed since" in err
        skill_md.write_text(original)
        with pytest.raises(SystemExit) as info:
            main([*plain, "--resume", "ok"])
        assert "changed since" not in capsys.readouterr().err


def _slow_behaviors(tmp_path: Path) -> Path:
    behaviors = tmp_path / "slow"
    shutil.copytree(BEHAVIORS / "follows-skill", behaviors)
    for path in behaviors.glob("*.yaml"):
        data = yaml.safe_load(path.read_text())
        data["steps"][0]["delay_s"] = 1.5
        path.write_text(yaml.safe_dump(data))
    return behaviors


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_resume_after_a_kill_loses_and_duplicates_nothing(
    tmp_path: Path, sig: signal.Signals
) -> None:
    behaviors = _slow_behaviors(tmp_path)
    runs = tmp_path / "runs"
    with scratch_dir() as scratch:
        base = run_command(ROOT / "agentic-evals", runs, scratch, "--json")
        # An explicit --timeout given to the run only: the resume must keep it explicit.
        command = [*base, "--behaviors", str(behaviors), "--workers", "2", "--run-id", "k"]
        command += ["--timeout", "300"]
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        results = runs / "k/case-results"
        deadline = time.time() + 120
        while time.time() < deadline and len(list(results.glob("*.json"))) < 2:
            time.sleep(0.2)
        os.kill(proc.pid, sig)
        proc.communicate(timeout=60)
        deadline = time.time() + 20
        while True:  # a killed evaluator's agents get SIGTERM from the kernel: give them a moment
            orphans = subprocess.run(
                ["pgrep", "-f", str(run_scratch(scratch, "k"))], capture_output=True, text=True
            )
            if orphans.stdout == "" or time.time() > deadline:
                break
            time.sleep(0.2)
        assert orphans.stdout == ""  # a stopped run stops its agents, even when SIGKILLed
        kept = {p.name: p.read_bytes() for p in results.glob("*.json")}
        assert 2 <= len(kept) < 9
        manifest = json.loads((runs / "k/manifest.json").read_text())
        assert manifest["run_state"] == ("running" if sig == signal.SIGKILL else "interrupted")
        if sig == signal.SIGTERM:
            # 143, the signal's own status, since round 20 (1 before: a failed case's code).
            assert proc.returncode == 143 and (runs / "k/report.md").is_file()
        resumed = subprocess.run(
            [*base, "--resume", "k"],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert resumed.returncode == 1, resumed.stderr  # the DATABASE_URL case stays blocked
    summary = json.loads(resumed.stdout)
    assert summary["run_state"] == "completed"
    resumed_manifest = json.loads((runs / "k/manifest.json").read_text())
    assert (resumed_manifest["timeout_s"], resumed_manifest["timeout_explicit"]) == (300, True)
    assert (
        subprocess.run(["pgrep", "-f", str(run_scratch(scratch, "k"))], capture_output=True).stdout
        == b""
    )
    assert summary["counts"] == {"pass": 9, "fail": 0, "blocked": 1}
    assert sorted(p.name for p in results.glob("*.json")) == sorted(
        f"{c}.json" for c in manifest["resolved_case_ids"]
    )
    for name, content in kept.items():
        assert (results / name).read_bytes() == content  # finished results were not re-run
    for result_file in results.glob("*.json"):
        numbers = [a["attempt"] for a in json.loads(result_file.read_text())["attempts"]]
        assert len(numbers) == len(set(numbers))
    validate_artifacts(runs / "k")
    # Re-judging counts exactly what the run counted (interrupted attempts stay uncounted).
    rejudged = subprocess.run(
        [sys.executable, "-m", "evaluator", "judge", str(runs / "k"), "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    statuses = {c["status"] for c in json.loads(rejudged.stdout)["cases"]}
    assert statuses == {"pass", "blocked"}, rejudged.stderr
    for result_file in results.glob("*.json"):
        result = json.loads(result_file.read_text())
        assert result["stats"]["attempts"] == 1


def test_the_next_run_sweeps_a_killed_runs_scratch_but_never_a_live_ones(tmp_path: Path) -> None:
    """A SIGKILLed run cannot remove its scratch on disk (its agents' homes and workspaces, in
    clear): before round 21 it stayed until a `--resume` of that very run. Now the next run
    removes every scratch folder whose run no evaluator holds (the run directory's lock), while a
    run started in another process, holding its lock, keeps its own."""
    behaviors = _slow_behaviors(tmp_path)
    runs = tmp_path / "runs"
    with scratch_dir() as scratch:
        base = run_command(ROOT / "agentic-evals", runs, scratch, "--json")
        slow = [*base, "--behaviors", str(behaviors), "--workers", "2"]
        killed = subprocess.Popen([*slow, "--run-id", "k"], stderr=subprocess.PIPE)
        deadline = time.time() + 120
        while time.time() < deadline and not list((runs / "k/case-results").glob("*.json")):
            time.sleep(0.2)
        killed.kill()
        killed.communicate(timeout=60)
        assert run_scratch(scratch, "k").is_dir()  # left behind: nothing ran to remove it
        live = subprocess.Popen([*slow, "--run-id", "live"], stderr=subprocess.PIPE)
        try:
            claimed = owner_file(run_scratch(scratch, "live"))
            deadline = time.time() + 120
            while time.time() < deadline and not claimed.is_file():
                time.sleep(0.2)
            assert claimed.is_file()
            blocked = ["--case", "bootstrap-needs-database-url", "--run-id", "next"]
            done = subprocess.run(
                [*base, "--behaviors", str(behaviors), *blocked],
                capture_output=True,
                text=True,
                timeout=300,
            )
            assert done.returncode == 1, done.stderr  # its one case is blocked (no DATABASE_URL)
            assert not run_scratch(scratch, "k").exists()
            assert claimed.is_file()  # the live run's, under its lock
            assert live.poll() is None
        finally:
            live.terminate()
            live.communicate(timeout=120)
        assert not run_scratch(scratch, "live").exists()  # it removed its own when stopped
        assert not claimed.exists() and not owner_file(run_scratch(scratch, "k")).exists()


def _artifact_text(path: Path) -> str:
    raw = path.read_bytes()
    return (gzip.decompress(raw) if path.suffix == ".gz" else raw).decode(errors="replace")


def test_secret_env_values_reach_the_agent_but_never_the_run_directory(tmp_path: Path) -> None:
    secret = "tok-secret-98765"
    repo = copy_demo(tmp_path)
    case_file = repo / "targets/db-migrations/cases/routing/routing-add-column.yaml"
    data = yaml.safe_load(case_file.read_text())
    data["setup"] = {"env": {"API_TOKEN": secret}, "secret_env_vars": ["API_TOKEN"]}
    data["assert"] = {
        "required": [
            {
                "description": "token used",
                # `test -n TOKEN` ran and succeeded: the agent had the value
                "checks": [{"kind": "command_ran", "pattern": r"^test -n \S", "exit_code": 0}],
            }
        ],
        "forbidden": [],
    }
    case_file.write_text(yaml.safe_dump(data))
    behaviors = tmp_path / "b"
    behaviors.mkdir()
    (behaviors / "t.yaml").write_text(
        yaml.safe_dump(
            {
                "name": "token",
                "match": {"prompt_contains": "default currency"},
                "steps": [
                    {"cmd": 'echo "$API_TOKEN" > token.txt && cat token.txt'},
                    # The value itself in a command line: in the session, and in the trace.
                    {"cmd": f"test -n {secret}"},
                    {"final": f"Your token is {secret}."},
                ],
            }
        )
    )
    with scratch_dir() as scratch:
        outcome = run(
            tmp_path,
            scratch,
            repo=repo,
            behaviors=behaviors,
            cases=("routing-add-column",),
            keep_scratch=True,
        )
        (result,) = outcome.results
        assert result.status == "pass", result.notes
        assert result.workspace_root
        # The agent got the value: the kept scratch holds it redacted (no secret outlives a
        # run there either), and only the value itself is replaced by this mark.
        token = (Path(result.workspace_root) / "token.txt").read_text()
        assert token == "[REDACTED:API_TOKEN]\n"
    leaked = [
        p for p in outcome.run_dir.path.rglob("*") if p.is_file() and secret in _artifact_text(p)
    ]
    assert leaked == []
    if outcome.manifest.trace != "off":
        (trace,) = outcome.run_dir.path.rglob(f"trace.{outcome.manifest.trace}.gz")
        assert "test -n [REDACTED:API_TOKEN]" in _artifact_text(trace)
    raw = (
        outcome.run_dir.path / "case-artifacts/routing-add-column/accepted-session.jsonl"
    ).read_text()
    assert "[REDACTED:API_TOKEN]" in raw
    answer = (
        outcome.run_dir.path / "case-artifacts/routing-add-column/final-answer.txt"
    ).read_text()
    assert answer == "Your token is [REDACTED:API_TOKEN].\n"


def test_an_attempt_the_evaluator_cannot_build_is_blocked_and_the_run_goes_on(
    tmp_path: Path,
) -> None:
    repo = copy_demo(tmp_path)
    case_file = repo / "targets/db-migrations/cases/routing/routing-rename-table.yaml"
    data = yaml.safe_load(case_file.read_text())
    # A file where a directory must go: only building the workspace can find that out.
    data["setup"] = {
        "write_files": [{"path": ".agents/skills/db-migrations/SKILL.md/x", "content": ""}]
    }
    case_file.write_text(yaml.safe_dump(data))
    with scratch_dir() as scratch:
        outcome = run(
            tmp_path,
            scratch,
            repo=repo,
            behaviors=BEHAVIORS / "follows-skill",
            cases=("routing-rename-table", "routing-add-column"),
        )
    assert statuses(outcome) == {
        "routing-rename-table": "blocked:environment",
        "routing-add-column": "pass",
    }
    broken = next(r for r in outcome.results if r.case_id == "routing-rename-table")
    assert "could not run this attempt: FileExistsError" in (broken.attempts[0].reason or "")
    assert (
        json.loads((outcome.run_dir.path / "manifest.json").read_text())["run_state"] == "completed"
    )


def test_a_cases_own_attempts_decide_its_k_unless_attempts_is_given(tmp_path: Path) -> None:
    repo = copy_demo(tmp_path)
    case_file = repo / "targets/db-migrations/cases/routing/routing-add-column.yaml"
    case_file.write_text(case_file.read_text() + "attempts: 2\n")
    cases = ("routing-add-column", "routing-rename-table")
    with scratch_dir() as scratch:
        own = run(
            tmp_path / "own", scratch, repo=repo, behaviors=BEHAVIORS / "follows-skill", cases=cases
        )
        forced = run(
            tmp_path / "forced",
            scratch,
            repo=repo,
            behaviors=BEHAVIORS / "follows-skill",
            cases=cases,
            attempts=1,
        )
    judged = {r.case_id: r.stats.judged if r.stats else 0 for r in own.results}
    assert judged == {"routing-add-column": 2, "routing-rename-table": 1}
    manifest = json.loads((own.run_dir.path / "manifest.json").read_text())
    assert manifest["case_attempts"] == {"routing-add-column": 2}
    # What the run cost, per attempt and in total: the tokens the agent's own session recorded.
    records = [a for r in own.results for a in r.attempts]
    assert all(a.tokens and a.tokens["total"] > 0 and a.duration_s for a in records)
    report = (own.run_dir.path / "report.md").read_text()
    total = sum(a.tokens["total"] for a in records if a.tokens)
    assert "over 3 attempt(s); tokens: input" in report and f"total {total:,}" in report
    assert {r.case_id: r.stats.judged if r.stats else 0 for r in forced.results} == {
        "routing-add-column": 1,
        "routing-rename-table": 1,
    }
