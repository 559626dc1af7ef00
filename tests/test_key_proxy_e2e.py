"""The key broker with the real CLIs (red team 16): Claude Code passes ANTHROPIC_API_KEY to its
Bash tool and Gemini CLI passes GEMINI_API_KEY to its shell, so an agent that printed the key
reversed, as hex or in two halves leaked it past the redactor. Now the agent holds a placeholder
and a loopback proxy puts the key on each request. The scripted server, started as its own
process, stands in for the provider: it must see the real key on every request, while the
agent's environment, its sessions and every file of the run (and of the kept scratch) hold no
form of it, and the verdict is the one the same behaviour gets without a proxy (`--behaviors`)."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from pathlib import Path

import pytest
import yaml

from evaluator.agents.key_proxy import placeholder
from evaluator.workspace.naming import run_scratch
from tests.conftest import copy_demo
from tests.leaks import (
    CLAUDE_KEY,
    CODEX_KEY,
    GEMINI_KEY,
    leaks_in,
    model_server_process,
)
from tests.support import claude_or_skip, codex_or_skip, gemini_or_skip, run_command, scratch_dir
from tests.websocket_front import websocket_front

CASE = "routing-add-column"
# Every key variable either agent could hold, so one behaviour serves both.
KEYS = '"$ANTHROPIC_API_KEY$ANTHROPIC_AUTH_TOKEN$GEMINI_API_KEY$GOOGLE_API_KEY$GATEWAY_KEY"'
# The CLI's own environment, which its tool calls can read whatever the shell is given (Codex
# leaves `*KEY*` variables out of its commands, not out of `/proc/<its pid>/environ`).
PROC_ENVIRON = (
    "for p in /proc/[0-9]*; do tr '\\0' '\\n' < $p/environ 2>/dev/null | grep -iE 'key|token' | rev;"
    " done; true"
)
# `--auth-from` a Codex home whose auth.json holds the key, in place of a key variable.
LOGIN_FILE = "auth.json"
# The re-encodings red team 16 used, none of which a string redactor can match.
PRINTING_STEPS: list[dict[str, object]] = [
    {"cmd": "env | sort"},
    {"cmd": f"K={KEYS}; printf '%s' \"$K\" | rev; echo"},
    {"cmd": f"K={KEYS}; printf '%s' \"$K\" | od -An -tx1 | tr -d ' \\n'; echo"},
    {"cmd": f'K={KEYS}; echo "${{K:0:20}}"'},
    {"cmd": f'K={KEYS}; echo "${{K:20}}"'},
    {"cmd": PROC_ENVIRON},
    {"cmd": "rev ~/.codex/auth.json 2>/dev/null; true"},
    {"final": "Done."},
]
AGENTS = [
    pytest.param("codex-exec", "GATEWAY_KEY", marks=pytest.mark.codex, id="codex"),
    pytest.param("claude-code", "ANTHROPIC_API_KEY", marks=pytest.mark.claude, id="claude-key"),
    pytest.param(
        "claude-code", "ANTHROPIC_AUTH_TOKEN", marks=pytest.mark.claude, id="claude-token"
    ),
    pytest.param("gemini-cli", "GEMINI_API_KEY", marks=pytest.mark.gemini, id="gemini"),
    # Codex's built-in OpenAI provider: a key and no --base-url, the server as the user's
    # OPENAI_BASE_URL (on `main` Codex ignored the variable, sent no key from OPENAI_API_KEY,
    # and held the key in its own environment).
    pytest.param("codex-exec", "OPENAI_API_KEY", marks=pytest.mark.codex, id="codex-built-in"),
    # The same provider logged in with `--auth-from` a home whose auth.json holds the key (on
    # `main` the file was copied into the attempt's home, where a tool call read it).
    pytest.param("codex-exec", LOGIN_FILE, marks=pytest.mark.codex, id="codex-auth-from"),
]


def _behaviours(directory: Path, steps: list[dict[str, object]]) -> Path:
    directory.mkdir(exist_ok=True)
    behaviour = {
        "name": "printer",
        "match": {"prompt_contains": "default currency"},
        "steps": steps,
    }
    (directory / "printer.yaml").write_text(yaml.safe_dump(behaviour))
    return directory


def _run(
    repo: Path, runs: Path, scratch: Path, run_id: str, env: dict[str, str], *extra: str
) -> dict[str, object]:
    """The case's result; the run ends 0 or 1 (pass, fail) or 3 (blocked: docs/cli.md)."""
    done = subprocess.run(
        run_command(
            repo,
            runs,
            scratch,
            "--model",
            "mock-model",
            "--case",
            CASE,
            "--run-id",
            run_id,
            "--keep-scratch",
            *extra,
        ),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        env=env,
    )
    assert done.returncode in (0, 1, 3), done.stderr
    result = json.loads((runs / run_id / f"case-results/{CASE}.json").read_text())
    assert isinstance(result, dict)
    return result


def _real_user_env(
    agent: str, variable: str, key: str, base_url: str, login: Path
) -> tuple[dict, list]:
    """The environment and flags of a user with a real key for `agent`, the server as their
    provider: a Claude Code gateway user sets ANTHROPIC_BASE_URL, a Gemini CLI user passes
    --base-url, a Codex user of the built-in provider sets OPENAI_BASE_URL (with a key, or a
    login of `codex login --with-api-key` in `login`)."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("OPENAI_", "CODEX_API_KEY", "ANTHROPIC_", "GEMINI_", "GOOGLE_"))
    }
    if variable == LOGIN_FILE:
        login.mkdir()
        (login / LOGIN_FILE).write_text(json.dumps({"auth_mode": "apikey", "OPENAI_API_KEY": key}))
        env["OPENAI_BASE_URL"] = base_url
        return env, ["--agent", agent, "--auth-from", str(login)]
    env[variable] = key
    if agent == "codex-exec" and variable == "OPENAI_API_KEY":
        env["OPENAI_BASE_URL"] = base_url
        return env, ["--agent", agent]
    if agent == "claude-code":
        env["ANTHROPIC_BASE_URL"] = base_url.removesuffix("/v1")
        return env, ["--agent", agent]
    if agent == "codex-exec":
        return env, ["--agent", agent, "--base-url", base_url, "--api-key-env", variable]
    return env, ["--agent", agent, "--base-url", base_url]


def _skip_unless(agent: str) -> str:
    if agent == "codex-exec":
        codex_or_skip()
        return CODEX_KEY
    if agent == "claude-code":
        claude_or_skip()
        return CLAUDE_KEY
    gemini_or_skip()
    return GEMINI_KEY


@pytest.mark.parametrize(("agent", "variable"), AGENTS)
def test_the_agent_holds_no_key_to_print(tmp_path: Path, agent: str, variable: str) -> None:
    key = _skip_unless(agent)
    repo = copy_demo(tmp_path)
    behaviors = _behaviours(tmp_path / "behaviors", PRINTING_STEPS)
    runs, log = tmp_path / "runs", tmp_path / "server.jsonl"
    with scratch_dir() as scratch, model_server_process(behaviors, log) as base_url:
        env, flags = _real_user_env(agent, variable, key, base_url, tmp_path / "login")
        real = _run(repo, runs, scratch, "real", env, *flags)
        kept = run_scratch(scratch, "real")
        halves = {"first half": key[:20], "second half": key[20:]}
        leaked = leaks_in(
            {"key": key, "reversed": key[::-1], "hex": key.encode().hex(), **halves},
            (runs / "real", kept),
        )
        # The same behaviour without a real key (scripted: no proxy) for the verdict.
        scripted = _run(
            repo, runs, scratch, "scripted", env, "--agent", agent, "--behaviors", str(behaviors)
        )
    assert leaked == []
    # The provider saw the real key on every request the agent made.
    requests = [json.loads(line) for line in log.read_text().splitlines()]
    fingerprint = "sha256:" + hashlib.sha256(key.encode()).hexdigest()[:12]
    assert requests and all(r["credential"] == fingerprint for r in requests), requests
    assert not [r for r in requests if r["error"]]
    # Every command ran: the agent printed what it held, the placeholder.
    session = (runs / "real" / f"case-artifacts/{CASE}/accepted-session.jsonl").read_text()
    held = "CODEX_API_KEY" if variable == LOGIN_FILE else variable
    if agent != "codex-exec":  # Codex's shell is given no `*KEY*` variable
        assert f"{held}={placeholder(held)}" in session
    assert f"{held}={placeholder(held)}"[::-1] in session
    assert real["status"] == scripted["status"], (real, scripted)


@pytest.mark.parametrize(("agent", "variable"), [AGENTS[0], AGENTS[1], AGENTS[3], AGENTS[4]])
def test_an_upstream_error_through_the_proxy_is_the_agents_outage(
    tmp_path: Path, agent: str, variable: str
) -> None:
    key = _skip_unless(agent)
    repo = copy_demo(tmp_path)
    behaviors = _behaviours(tmp_path / "behaviors", [{"cmd": "ls"}, {"http_error": 400}])
    runs, log = tmp_path / "runs", tmp_path / "server.jsonl"
    with scratch_dir() as scratch, model_server_process(behaviors, log) as base_url:
        env, flags = _real_user_env(agent, variable, key, base_url, tmp_path / "login")
        result = _run(repo, runs, scratch, "outage", env, *flags)
    assert result["status"] == "blocked", result


@pytest.mark.codex
def test_codex_s_websocket_crosses_the_broker_with_the_key_in_its_handshake(
    tmp_path: Path,
) -> None:
    """Codex's built-in provider opens its Responses stream as a WebSocket first, as it does
    against the OpenAI API: through the broker's tunnel the handshake carries the real key (the
    placeholder nowhere) and the first message arrives whole; the upstream here closes the
    socket, Codex falls back to HTTPS and the attempt ends at the scripted server."""
    key = _skip_unless("codex-exec")
    repo = copy_demo(tmp_path)
    behaviors = _behaviours(tmp_path / "behaviors", [{"cmd": "ls"}, {"final": "Done."}])
    runs, log = tmp_path / "runs", tmp_path / "server.jsonl"
    with (
        scratch_dir() as scratch,
        model_server_process(behaviors, log) as base_url,
        websocket_front(base_url) as front,
    ):
        env, flags = _real_user_env("codex-exec", "OPENAI_API_KEY", key, front.url, tmp_path)
        result = _run(repo, runs, scratch, "websocket", env, *flags)
    assert front.handshakes, "Codex opened no WebSocket"
    for handshake in front.handshakes:
        head = handshake.head.lower()
        assert f"authorization: bearer {key.lower()}" in head
        assert placeholder("CODEX_API_KEY").lower() not in head
        message = json.loads(handshake.message)
        assert message["type"] == "response.create" and message["model"] == "mock-model"
    fingerprint = "sha256:" + hashlib.sha256(key.encode()).hexdigest()[:12]
    requests = [json.loads(line) for line in log.read_text().splitlines()]
    assert requests and all(r["credential"] == fingerprint for r in requests)
    assert result["status"] != "blocked", result
