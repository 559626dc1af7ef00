"""The path a user with a real model takes, for each agent: the scripted server reached as a real
provider endpoint (not `--behaviors`), with real-looking credentials, declared secrets (ASCII and
not) and a behaviour that prints them every way it can. No artifact, compressed or not, and no
file of the kept scratch may hold any of them in any form (issue: credentials never reach an
artifact)."""

from __future__ import annotations

import base64
import gzip
import hashlib
import html
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote, quote_plus

import markupsafe
import pytest
import yaml

from tests.conftest import copy_demo
from tests.support import claude_or_skip, codex_or_skip, gemini_or_skip, scratch_dir

CASE = "routing-add-column"
# Shaped like each provider's keys, so a rule that looks at shapes would see them as keys.
CODEX_KEY = "sk-proj-Q8vN2xLr7TzWc4YbHs1KmPa9EdGf3JuV6nXo0RiLqS5tB"
CLAUDE_KEY = "sk-ant-api03-Zx9Wv8Ut7Sr6Qp5On4Ml3Kj2Ih1Gf0Ed-AbCdEfGhIjKl"
GEMINI_KEY = "AIzaSyD4k9Qw2Lm7Xv3Np8Rt1Yb6Hc5Jf0Ge2Ks"
ASCII_SECRET = 'tok-live&7F3e9c2B"1a<Zq>'
NON_ASCII_SECRET = "pässwörd-Zürich-93ß"


def _evaluator(*args: str) -> list[str]:
    return [sys.executable, "-m", "evaluator", *args]


def _strace_char(byte: int, escaped: str) -> str:
    """One byte as strace prints it inside a quoted string."""
    if byte in (34, 92):
        return "\\" + chr(byte)
    return chr(byte) if 0x20 <= byte < 0x7F else escaped


def _forms(secret: str) -> set[str]:
    """The forms the issue lists, computed here independently of the redactor."""
    data = secret.encode("utf-8")
    forms = {
        secret,
        json.dumps(secret)[1:-1],
        json.dumps(secret, ensure_ascii=False)[1:-1],
        json.dumps(json.dumps(secret)[1:-1])[1:-1],
        quote(secret, safe=""),
        quote_plus(secret, safe=""),
        html.escape(secret),
        str(markupsafe.escape(secret)),
        # strace: octal escapes by default, hex with -x / -xx
        "".join(_strace_char(b, f"\\{b:03o}") for b in data),
        "".join(_strace_char(b, f"\\x{b:02x}") for b in data),
        "".join(f"\\x{b:02x}" for b in data),
    }
    for offset in range(3):
        # The middle of the encoding depends on the secret alone, whatever precedes it.
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            forms.add(encode(b"\0" * offset + data).decode()[3:-3])
    return {form for form in forms if len(form) >= 8}


def _texts(root: Path) -> Iterator[tuple[Path, str]]:
    """Every file under `root` as text (gzip files decompressed), and every name in it."""
    for path in root.rglob("*"):
        yield path, path.name
        if path.is_file() and not path.is_symlink():
            raw = path.read_bytes()
            if raw.startswith(b"\x1f\x8b"):
                raw = gzip.decompress(raw)
            yield path, raw.decode("utf-8", errors="replace")


@contextmanager
def _model_server(behaviors: Path, log: Path) -> Iterator[str]:
    server = subprocess.Popen(
        _evaluator("model-server", "--behaviors", str(behaviors), "--log", str(log)),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert server.stdout is not None
        yield server.stdout.readline().strip()
    finally:
        server.terminate()
        server.wait(timeout=30)


def _leak_behaviour(directory: Path) -> None:
    directory.mkdir()
    steps = [
        {"cmd": 'echo "key: $OPENAI_API_KEY$GATEWAY_KEY$ANTHROPIC_API_KEY"; env | sort'},
        # The literal secret on a command line: the trace sees it in execve's argv.
        {"cmd": f"printf '%s\\n' '{NON_ASCII_SECRET}' > literal.txt"},
        {
            "cmd": 'for k in "$API_TOKEN" "$PASSPHRASE" "$GATEWAY_KEY$ANTHROPIC_API_KEY"; do'
            ' for p in "" x xy; do printf "%s%s" "$p" "$k" | base64 -w0; echo;'
            " printf '%s%s' \"$p\" \"$k\" | base64 -w0 | tr '+/' '-_'; echo; done; done"
        },
        {"cmd": 'touch "./$API_TOKEN.txt" "./$PASSPHRASE"; ls'},
        {"cmd": "cat .agents/skills/db-migrations/references/add-column.md"},
        {"final": f"Done. The token is {ASCII_SECRET} and the passphrase {NON_ASCII_SECRET}."},
    ]
    behaviour = {"name": "leak", "match": {"prompt_contains": "default currency"}, "steps": steps}
    (directory / "leak.yaml").write_text(yaml.safe_dump(behaviour, allow_unicode=True))


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
    data = yaml.safe_load(case_file.read_text())
    data["setup"] = {
        "env": {"API_TOKEN": ASCII_SECRET, "PASSPHRASE": NON_ASCII_SECRET},
        "secret_env_vars": ["API_TOKEN", "PASSPHRASE"],
    }
    case_file.write_text(yaml.safe_dump(data, allow_unicode=True))
    _leak_behaviour(tmp_path / "behaviors")
    runs = tmp_path / "runs"
    log = tmp_path / "server.jsonl"
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("OPENAI_", "ANTHROPIC_", "GEMINI_", "GOOGLE_"))
    }
    env.pop("CODEX_API_KEY", None)
    env.update(env_extra)
    with scratch_dir() as scratch, _model_server(tmp_path / "behaviors", log) as base_url:
        endpoint = (
            ["--base-url", base_url, "--api-key-env", "GATEWAY_KEY"]
            if agent in ("codex-exec", "gemini-cli")
            else []
        )
        if agent == "claude-code":
            # What a Claude Code user with a gateway sets; the runner passes it through.
            env["ANTHROPIC_BASE_URL"] = base_url.removesuffix("/v1")
        done = subprocess.run(
            _evaluator(
                "run",
                "--repo",
                str(repo),
                "--runs-dir",
                str(runs),
                "--scratch-root",
                str(scratch),
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
        kept = scratch / "leak"
        # The agent did see everything (its workspace holds files named by the secrets).
        assert (kept / f"workspaces/{CASE}/attempt-01").is_dir()
        forms = {name: _forms(value) for name, value in _secrets(key).items()}
        leaks = [
            f"{path}: {name} as {form!r}"
            for root in (run_dir, kept)
            for path, text in _texts(root)
            for name, variants in forms.items()
            for form in variants
            if form in text
        ]
        assert leaks == []
    session = (run_dir / f"case-artifacts/{CASE}/accepted-session.jsonl").read_text()
    assert "[REDACTED:API_TOKEN]" in session and "[REDACTED:PASSPHRASE]" in session
    snapshot = run_dir / f"case-artifacts/{CASE}/attempts/attempt-01/workspace/files"
    assert (snapshot / "[REDACTED:API_TOKEN].txt").exists()
    trace = run_dir / f"case-artifacts/{CASE}/attempts/attempt-01/trace.strace.gz"
    if trace.exists():
        assert "[REDACTED:PASSPHRASE]" in gzip.decompress(trace.read_bytes()).decode()
    # Re-judging reads the redacted evidence and snapshot and reaches the same verdict.
    before = json.loads((run_dir / f"case-results/{CASE}.json").read_text())["status"]
    rejudged = subprocess.run(
        _evaluator("judge", str(run_dir), "--json"),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env=env,
    )
    assert json.loads(rejudged.stdout)["cases"][0]["status"] == before, rejudged.stderr


def _secrets(key: str) -> dict[str, str]:
    return {"key": key, "API_TOKEN": ASCII_SECRET, "PASSPHRASE": NON_ASCII_SECRET}
