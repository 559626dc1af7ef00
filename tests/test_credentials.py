"""Which values are secrets, and the redactor's forms, file names, gzip and binary files: no
agent needed (the real-provider path is `test_credentials_e2e.py`)."""

from __future__ import annotations

import base64
import gzip
import json
import os
from pathlib import Path

import pytest

from evaluator.adapters.claude.runner import ClaudeCodeRunner
from evaluator.adapters.codex.home import auth_file_key, create_codex_home
from evaluator.adapters.codex.runner import CodexExecRunner, endpoint_credentials
from evaluator.agents.base import AgentRequest, ModelEndpoint
from evaluator.agents.key_proxy import placeholder
from evaluator.artifacts.redact import LiveRedactor, Redactor
from evaluator.cli.main import run_cli
from evaluator.credentials import (
    SCRIPTED_API_KEY,
    SecretSet,
    auth_file_secrets,
    environment_secrets,
    without_userinfo,
)
from evaluator.judge.checks.command import _tail
from evaluator.judge.checks.stop_proof import _shown_text
from evaluator.pipeline.attempt import run_secrets
from tests.support import scratch_dir

SECRET = "tök-3f9A&b<c>d'e\"f"


def _runner(cls: type, **kwargs: object) -> object:
    """A runner without looking up its CLI (only its credential rules are under test)."""
    runner = cls.__new__(cls)
    for name, value in kwargs.items():
        setattr(runner, name, value)
    return runner


def test_secret_names_urls_and_the_public_scripted_key() -> None:
    env = {
        "PATH": "/usr/bin",
        "MY_GATEWAY_KEY": "gw-0123456789",
        "GITHUB_TOKEN": "ghp_abcdefghij",
        "DB_PASSWORD": "hunter2-long",
        "OPENAI_API_KEY": SCRIPTED_API_KEY,
        "PROXY": "https://ghp_0123456789abcdefXYZ@proxy.example/",
        "DATABASE_URL": "postgres://app@db/shop",  # a short user name is an account, not a token
    }
    assert environment_secrets(env) == {
        "MY_GATEWAY_KEY": "gw-0123456789",
        "GITHUB_TOKEN": "ghp_abcdefghij",
        "DB_PASSWORD": "hunter2-long",
        "PROXY:userinfo": "ghp_0123456789abcdefXYZ",
    }
    assert without_userinfo("https://u:p@host:8080/v1") == "https://host:8080/v1"
    assert without_userinfo("http://127.0.0.1:9/v1") == "http://127.0.0.1:9/v1"
    assert without_userinfo("https://gw/v1?api-key=sk-1234567&v=2") == "https://gw/v1?v=2"


def test_an_auth_file_gives_every_token_it_holds(tmp_path: Path) -> None:
    auth = tmp_path / "auth.json"
    auth.write_text(
        json.dumps(
            {
                "OPENAI_API_KEY": "sk-abc123456",
                "tokens": {"id_token": "eyJ.id", "access_token": "eyJ.acc", "account_id": "acct"},
                "last_refresh": "2026-01-01",
            }
        )
    )
    assert auth_file_secrets(auth, "auth.json") == {
        "auth.json:OPENAI_API_KEY": "sk-abc123456",
        "auth.json:tokens.id_token": "eyJ.id",
        "auth.json:tokens.access_token": "eyJ.acc",
        "auth.json:tokens.account_id": "acct",  # under `tokens`: secret by where it sits
    }
    auth.write_text("not json but a secret")
    assert auth_file_secrets(auth, "auth.json") == {"auth.json": "not json but a secret"}


def test_runners_list_what_they_pass_and_copy_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-real-0001")
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", "ant-token-0002")
    monkeypatch.setenv("GATEWAY_KEY", "gw-key-0003")
    login = tmp_path / "login"
    login.mkdir()
    (login / "auth.json").write_text(json.dumps({"tokens": {"refresh_token": "rt-0004"}}))
    codex = _runner(CodexExecRunner)
    assert codex.credentials(ModelEndpoint(model="m", auth_from=login)) == {  # type: ignore[attr-defined]
        "OPENAI_API_KEY": "sk-real-0001",
        "auth.json:tokens.refresh_token": "rt-0004",
    }
    # With a key variable named, it is the only key the agent gets; a URL's user-info counts.
    endpoint = ModelEndpoint(
        model="m",
        base_url="https://bot:gw-pass-0006@gw.example/v1",
        auth_from=login,
        api_key_env="GATEWAY_KEY",
    )
    assert codex.credentials(endpoint) == {  # type: ignore[attr-defined]
        "GATEWAY_KEY": "gw-key-0003",
        "base_url:password": "gw-pass-0006",
        "auth.json:tokens.refresh_token": "rt-0004",
    }
    assert endpoint_credentials(endpoint) == {"GATEWAY_KEY": "gw-key-0003"}
    claude = _runner(ClaudeCodeRunner, permission_mode="acceptEdits")
    assert claude.credentials(ModelEndpoint(model=None)) == {  # type: ignore[attr-defined]
        "ANTHROPIC_AUTH_TOKEN": "ant-token-0002"
    }
    gateway = ModelEndpoint(model=None, base_url="http://127.0.0.1:4000", api_key_env="GATEWAY_KEY")
    env = claude.environment(  # type: ignore[attr-defined]
        _request(gateway), tmp_path / "c", tmp_path / "h", tmp_path / "t"
    )
    assert env["ANTHROPIC_API_KEY"] == "gw-key-0003" and "ANTHROPIC_AUTH_TOKEN" not in env
    # A key too short to be real (a local server's `local`) is not a secret: it would erase words.
    monkeypatch.setenv("GATEWAY_KEY", "local")
    assert codex.credentials(gateway) == {}  # type: ignore[attr-defined]
    scripted = ModelEndpoint(model="m", base_url="http://127.0.0.1:1/v1", scripted=True)
    assert codex.credentials(scripted) == {}  # type: ignore[attr-defined]

    class Judge:
        def credentials(self) -> dict[str, str]:
            return {"OPENAI_API_KEY": "sk-judge-0005"}

    both = run_secrets(codex, endpoint, Judge())  # type: ignore[arg-type]
    assert both["judge:OPENAI_API_KEY"] == "sk-judge-0005"


def _request(endpoint: ModelEndpoint) -> AgentRequest:
    return AgentRequest(
        workspace=Path("/w"), agent_dir=Path("/a"), prompt="p", endpoint=endpoint, timeout_s=1
    )


def test_codex_reaches_any_responses_endpoint_with_the_key_variable_named(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("VLLM_KEY", "local-key-123")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    endpoint = ModelEndpoint(
        model="qwen3-coder", base_url="http://127.0.0.1:8000/v1", api_key_env="VLLM_KEY"
    )
    with scratch_dir() as scratch:
        # The user's OPENAI_BASE_URL is the built-in provider's; a provider entry of ours
        # leaves the built-in one alone.
        env = {"OPENAI_BASE_URL": "http://gateway.invalid/v1"}
        home = create_codex_home(scratch / "codex-home", endpoint, env)
        config = (home / "config.toml").read_text()
    assert "openai_base_url" not in config
    assert 'base_url = "http://127.0.0.1:8000/v1"' in config
    assert 'env_key = "VLLM_KEY"' in config and 'model = "qwen3-coder"' in config
    assert endpoint_credentials(endpoint) == {"VLLM_KEY": "local-key-123"}


def test_codex_s_built_in_provider_gets_its_key_as_codex_api_key_through_the_proxy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`codex exec` 0.169.0 sends the built-in OpenAI provider no key from OPENAI_API_KEY (the
    scripted server saw none), only from CODEX_API_KEY; and the CLI's environment is readable by
    its tool calls (`/proc/<pid>/environ`), so the key stays with the proxy, which the config
    names as `openai_base_url` and which forwards to OPENAI_BASE_URL or the OpenAI API."""
    for name in ("OPENAI_API_KEY", "CODEX_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-proj-builtin-0001")
    codex = _runner(CodexExecRunner)
    built_in = ModelEndpoint(model="gpt-x")
    assert endpoint_credentials(built_in) == {
        "OPENAI_API_KEY": "sk-proj-builtin-0001",
        "CODEX_API_KEY": "sk-proj-builtin-0001",
    }
    # Beside a login copied in, which of the two Codex takes stays the user's set-up.
    assert "CODEX_API_KEY" not in endpoint_credentials(
        ModelEndpoint(model=None, auth_from=Path("/l"))
    )
    route = codex.key_route(built_in)  # type: ignore[attr-defined]
    assert route is not None and route.base_url_env == "OPENAI_BASE_URL"
    assert set(route.key_envs) == {"OPENAI_API_KEY", "CODEX_API_KEY"}
    assert route.default_upstream == "https://api.openai.com/v1"
    assert (
        codex.key_route(ModelEndpoint(model="m", base_url="http://127.0.0.1:1/v1", scripted=True))
        is None
    )  # type: ignore[attr-defined]
    monkeypatch.setenv("OPENAI_BASE_URL", "http://gateway.invalid/v1")
    env = endpoint_credentials(built_in)
    with codex.keys_held_back(built_in, env) as (agent_env, endpoint), scratch_dir() as scratch:  # type: ignore[attr-defined]
        assert endpoint == built_in
        assert agent_env["CODEX_API_KEY"] == placeholder("CODEX_API_KEY")
        assert "sk-proj-builtin-0001" not in "".join(agent_env.values())
        proxy_url = agent_env["OPENAI_BASE_URL"]
        assert proxy_url.startswith("http://127.0.0.1:")
        config = (create_codex_home(scratch / "h", endpoint, agent_env) / "config.toml").read_text()
    assert f"openai_base_url = {json.dumps(proxy_url)}" in config
    assert "model_provider" not in config  # the session records the provider as `openai`


def test_an_api_key_login_reaches_codex_through_the_broker_not_as_a_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--auth-from` a home whose auth.json holds an API key: the copy in the attempt's home
    was readable by every tool call; its key is now held by the broker as CODEX_API_KEY and
    the file stays out. A ChatGPT login, or a key variable beside the file, is copied as
    before (which of the two Codex takes is the user's set-up)."""
    for name in ("OPENAI_API_KEY", "CODEX_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    login = tmp_path / "login"
    login.mkdir()
    (login / "auth.json").write_text(
        json.dumps({"auth_mode": "apikey", "OPENAI_API_KEY": "sk-proj-file-0001"})
    )
    endpoint = ModelEndpoint(model=None, auth_from=login)
    assert auth_file_key(endpoint) == "sk-proj-file-0001"
    env = endpoint_credentials(endpoint)
    assert env == {"CODEX_API_KEY": "sk-proj-file-0001"}
    codex = _runner(CodexExecRunner)
    with codex.keys_held_back(endpoint, env) as (agent_env, held), scratch_dir() as scratch:  # type: ignore[attr-defined]
        assert agent_env["CODEX_API_KEY"] == placeholder("CODEX_API_KEY")
        home = create_codex_home(scratch / "h", held, agent_env)
        assert not (home / "auth.json").exists()
        assert "openai_base_url" in (home / "config.toml").read_text()
    # The file is still a secret of the run, for the redactor.
    assert codex.credentials(endpoint)["auth.json:OPENAI_API_KEY"] == "sk-proj-file-0001"  # type: ignore[attr-defined]
    monkeypatch.setenv("OPENAI_API_KEY", "sk-proj-env-0002")
    assert auth_file_key(endpoint) is None
    with scratch_dir() as scratch:
        assert (create_codex_home(scratch / "h", endpoint, {}) / "auth.json").exists()
    monkeypatch.delenv("OPENAI_API_KEY")
    (login / "auth.json").write_text(json.dumps({"tokens": {"refresh_token": "rt-0003"}}))
    assert auth_file_key(endpoint) is None and "CODEX_API_KEY" not in endpoint_credentials(endpoint)


def _strace_char(byte: int, escaped: str) -> str:
    """One byte as strace prints it inside a quoted string."""
    if byte in (34, 92):
        return "\\" + chr(byte)
    return chr(byte) if 0x20 <= byte < 0x7F else escaped


def _forms(secret: str) -> list[str]:
    data = secret.encode()
    forms = [
        secret,
        json.dumps(secret)[1:-1],
        json.dumps(json.dumps(secret)[1:-1])[1:-1],
        "".join(_strace_char(b, f"\\{b:03o}") for b in data),
        "".join(f"\\x{b:02x}" for b in data),
    ]
    for offset in range(3):
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            forms.append(encode(b"xy"[:offset] + data + b"tail").decode())
    return forms


def test_every_form_is_replaced_and_nothing_else() -> None:
    redactor = Redactor({"K": SECRET})
    for form in _forms(SECRET):
        redacted = redactor.text(f"before {form} after")
        assert "[REDACTED:K]" in redacted, form
        assert redacted.startswith("before ") and redacted.endswith(" after")
    assert redactor.text("tök-3f9A and other text") == "tök-3f9A and other text"


def test_file_names_gzip_and_binary_files_are_redacted(tmp_path: Path) -> None:
    root = tmp_path / "run"
    (root / f"dir-{SECRET[:8]}").mkdir(parents=True)
    (root / f"dir-{SECRET[:8]}" / "note.txt").write_text(f"value {SECRET[:8]}\n")
    with gzip.open(root / "trace.strace.gz", "wt") as out:
        out.write(f'execve("/bin/sh", ["sh", "-c", "echo {SECRET[:8]}"])\n')
    (root / "state.sqlite").write_bytes(b"SQLite\0" + SECRET[:8].encode() + b"\0end")
    Redactor({"K": SECRET[:8]}).tree(root)
    note = root / "dir-[REDACTED:K]" / "note.txt"
    assert note.read_text() == "value [REDACTED:K]\n"
    assert "[REDACTED:K]" in gzip.decompress((root / "trace.strace.gz").read_bytes()).decode()
    masked = (root / "state.sqlite").read_bytes()
    stars = b"*" * len(SECRET[:8].encode())
    assert masked == b"SQLite\0" + stars + b"\0end"  # same length: the layout stays valid
    assert not [p for p in root.rglob("*") if p.name.startswith(".")]  # no temp file left


def test_a_secret_spanning_lines_is_redacted_in_files(tmp_path: Path) -> None:
    pem = "-----BEGIN KEY-----\nMIIBVwIBADANBgkq\nhkiG9w0BAQEFAASC\n-----END KEY-----"
    (tmp_path / "answer.txt").write_text(f"here it is:\n{pem}\nbye\n")
    Redactor({"TLS_KEY": pem}).tree(tmp_path)
    assert (tmp_path / "answer.txt").read_text() == "here it is:\n[REDACTED:TLS_KEY]\nbye\n"


def test_the_live_redactor_sees_secrets_added_after_it_was_made() -> None:
    secrets = SecretSet({"A": "alpha-secret"})
    redact = LiveRedactor(secrets).text
    assert redact("alpha-secret beta-secret") == "[REDACTED:A] beta-secret"
    secrets.add_environment({"B_TOKEN": "beta-secret", "HOME": "/root"})
    assert redact("alpha-secret beta-secret") == "[REDACTED:A] [REDACTED:B_TOKEN]"
    secrets.update({"A": "another-value"})  # a second value under a taken name keeps both
    assert set(secrets.values()) == {"A", "B_TOKEN", "A#2"}


def test_endpoint_options_are_checked_before_anything_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("NO_SUCH_KEY_VAR", raising=False)
    root = Path(__file__).resolve().parents[1]
    base = ["run", "--repo", str(root / "agentic-evals"), "--runs-dir", str(tmp_path / "runs")]
    behaviors = str(root / "agentic-evals/targets/db-migrations/behaviors/follows-skill")
    code = run_cli([*base, "--behaviors", behaviors, "--base-url", "http://127.0.0.1:1/v1"])
    err = capsys.readouterr().err
    assert code == 2 and "--behaviors runs the scripted model" in err, err
    endpoint = ["--base-url", "http://127.0.0.1:1/v1"]
    code = run_cli([*base, *endpoint, "--api-key-env", "NO_SUCH_KEY_VAR"])
    err = capsys.readouterr().err
    assert code == 2 and "--base-url needs --model" in err, err
    code = run_cli([*base, *endpoint, "--model", "m", "--api-key-env", "NO_SUCH_KEY_VAR"])
    err = capsys.readouterr().err
    assert code == 3 and "NO_SUCH_KEY_VAR: that variable is not set" in err, err
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())
    assert os.environ.get("NO_SUCH_KEY_VAR") is None


def test_a_secret_cut_short_by_a_verdict_s_truncation_is_redacted() -> None:
    """Red team, round 5: a check's detail keeps its output's last line cut at 200 characters,
    and the stop proof shows a command in 80: a secret cut there left its first (or last)
    characters in the artifact, which no whole form matches. Now the part beside the ellipsis
    goes too."""
    secret = "c3rt-9f8e7d6c5b4a39281706f5e4d3c2b1a0"
    redactor = Redactor({"AGORA_APP_CERTIFICATE": secret})
    detail = _tail("x" * 180 + " key=" + secret)
    assert secret[:12] in detail and secret not in detail  # what the check writes
    redacted = redactor.text(detail)
    assert secret[:6] not in redacted and "[REDACTED:AGORA_APP_CERTIFICATE]..." in redacted
    shown = redactor.text(_shown_text("curl -H 'x-key: " + "y" * 50 + secret + "' http://h"))
    assert secret[:6] not in shown
    # An ellipsis beside ordinary text stays as it was.
    assert redactor.text("waiting... done") == "waiting... done"
