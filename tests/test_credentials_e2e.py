"""The path a user with a real model takes, for each agent: the scripted server reached as a real
provider endpoint (not `--behaviors`), with real-looking credentials, declared secrets (ASCII and
not) and a behaviour that prints them every way it can. No artifact, compressed or not, and no
file of the kept scratch may hold any of them in any form (issue: credentials never reach an
artifact)."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import subprocess
from pathlib import Path

import pytest

from evaluator.artifacts.trace_files import saved_trace
from evaluator.workspace.naming import attempt_folder, run_scratch
from tests.conftest import copy_demo
from tests.leaks import (
    ASCII_SECRET,
    CLAUDE_KEY,
    CODEX_KEY,
    GEMINI_KEY,
    NON_ASCII_SECRET,
    declare_case_secrets,
    evaluator_argv,
    leaks_in,
    model_server_process,
    write_leak_behaviour,
)
from tests.support import claude_or_skip, codex_or_skip, gemini_or_skip, run_command, scratch_dir

CASE = "routing-add-column"


@pytest.mark.parametrize(
    "agent",
    [
        pytest.param("codex-exec", marks=pytest.mark.codex),
        pytest.param("claude-code", marks=pytest.mark.claude),
        pytest.param("gemini-cli", marks=pytest.mark.gemini),
    ],
)
def test_real_provider_path_leaks_no_credential_in_any_form(tmp_path: Path, agent: str) -> None:
    if agent == "codex-exec":
        codex_or_skip()
        key, env_extra = CODEX_KEY, {"GATEWAY_KEY": CODEX_KEY}
    elif agent == "gemini-cli":
        gemini_or_skip()
        key, env_extra = GEMINI_KEY, {"GATEWAY_KEY": GEMINI_KEY}
    else:
        claude_or_skip()
        key, env_extra = CLAUDE_KEY, {"ANTHROPIC_API_KEY": CLAUDE_KEY}
    repo = copy_demo(tmp_path)
    case_file = repo / f"targets/db-migrations/cases/routing/{CASE}.yaml"
    declare_case_secrets(case_file)
    write_leak_behaviour(tmp_path / "behaviors")
    runs = tmp_path / "runs"
    log = tmp_path / "server.jsonl"
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("OPENAI_", "ANTHROPIC_", "GEMINI_", "GOOGLE_"))
    }
    env.pop("CODEX_API_KEY", None)
    env.update(env_extra)
    with scratch_dir() as scratch, model_server_process(tmp_path / "behaviors", log) as base_url:
        endpoint = (
            ["--base-url", base_url, "--api-key-env", "GATEWAY_KEY"]
            if agent in ("codex-exec", "gemini-cli")
            else []
        )
        if agent == "claude-code":
            # What a Claude Code user with a gateway sets; the runner passes it through.
            env["ANTHROPIC_BASE_URL"] = base_url.removesuffix("/v1")
        done = subprocess.run(
            run_command(
                repo,
                runs,
                scratch,
                "--agent",
                agent,
                "--model",
                "mock-model",
                *endpoint,
                "--case",
                CASE,
                "--run-id",
                "leak",
                "--keep-scratch",
            ),
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
            env=env,
        )
        assert done.returncode in (0, 1), done.stderr
        run_dir = runs / "leak"
        attempt = json.loads(
            (run_dir / f"case-artifacts/{CASE}/attempts/attempt-01/attempt.json").read_text()
        )
        # The agent really ran its commands against the endpoint, with the key sent as a
        # provider's client sends it.
        assert attempt["exit_code"] == 0 and attempt["session_complete"], attempt
        requests = [json.loads(line) for line in log.read_text().splitlines()]
        fingerprint = "sha256:" + hashlib.sha256(key.encode()).hexdigest()[:12]
        assert requests and all(r["credential"] == fingerprint for r in requests), requests
        assert not [r for r in requests if r["error"]]
        kept = run_scratch(scratch, "leak")
        # The agent did see everything (its workspace holds files named by the secrets).
        assert attempt_folder(kept / "w", CASE, 1).is_dir()
        assert leaks_in(_secrets(key), (run_dir, kept)) == []
    session = (run_dir / f"case-artifacts/{CASE}/accepted-session.jsonl").read_text()
    assert "[REDACTED:API_TOKEN]" in session and "[REDACTED:PASSPHRASE]" in session
    snapshot = run_dir / f"case-artifacts/{CASE}/attempts/attempt-01/workspace/files"
    assert (snapshot / "[REDACTED:API_TOKEN].txt").exists()
    trace = saved_trace(run_dir / f"case-artifacts/{CASE}/attempts/attempt-01")
    if trace.exists():
        assert "[REDACTED:PASSPHRASE]" in gzip.decompress(trace.read_bytes()).decode()
    # Re-judging reads the redacted evidence and snapshot and reaches the same verdict.
    before = json.loads((run_dir / f"case-results/{CASE}.json").read_text())["status"]
    rejudged = subprocess.run(
        evaluator_argv("judge", str(run_dir), "--json"),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env=env,
    )
    assert json.loads(rejudged.stdout)["cases"][0]["status"] == before, rejudged.stderr


def _secrets(key: str) -> dict[str, str]:
    return {"key": key, "API_TOKEN": ASCII_SECRET, "PASSPHRASE": NON_ASCII_SECRET}
