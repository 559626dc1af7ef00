"""A mistyped `--base-url` (docs/first-hour.md, "30 November 2026"): an endpoint that refuses
connections made every attempt wait out its timeout (five minutes under Codex, `Reconnecting...
waiting for network`) before each case ended `blocked: environment`. It is now one line and exit
3 before anything runs; a reachable endpoint, a URL behind a proxy and a slow one go ahead."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from evaluator.cli.main import main
from evaluator.pipeline.reachable import unreachable

ROOT = Path(__file__).resolve().parents[2]


@contextmanager
def listening() -> Iterator[int]:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    try:
        yield server.getsockname()[1]
    finally:
        server.close()


def closed_port() -> int:
    with listening() as port:
        pass
    return port


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    return int(exit_info.value.code or 0), capsys.readouterr().err


@pytest.fixture(autouse=True)
def _no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("https_proxy", "http_proxy", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)


def test_an_endpoint_nothing_answers_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    port = closed_port()
    why = unreachable(f"http://user:pw@127.0.0.1:{port}/v1")
    assert why == (
        f"http://127.0.0.1:{port}/v1: nothing listens on 127.0.0.1:{port} (connection refused)"
    )
    assert "does not resolve" in (unreachable("https://no-such-host.invalid/v1") or "")
    with listening() as port:
        assert unreachable(f"http://127.0.0.1:{port}/v1") is None
    # Behind a proxy the agents reach what this process cannot test: never refused here.
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:3128")
    assert unreachable("https://no-such-host.invalid/v1") is None


def test_run_refuses_an_unreachable_endpoint_before_anything_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GATEWAY_KEY", "sk-proj-reach-0001")
    port = closed_port()
    runs = tmp_path / "runs"
    args = ["run", "--repo", str(ROOT / "agentic-evals"), "--runs-dir", str(runs)]
    args += ["--base-url", f"http://127.0.0.1:{port}/v1", "--api-key-env", "GATEWAY_KEY"]
    started = time.monotonic()
    code, err = run_cli([*args, "--model", "m"], capsys)
    assert code == 3 and time.monotonic() - started < 30
    assert f"--base-url http://127.0.0.1:{port}/v1: nothing listens on" in err, err
    assert not runs.exists() or not any(runs.iterdir())


def test_the_judge_s_unreachable_endpoint_is_refused_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GATEWAY_KEY", "sk-proj-reach-0002")
    port = closed_port()
    args = ["run", "--repo", str(ROOT / "agentic-evals"), "--runs-dir", str(tmp_path / "runs")]
    args += ["--judge-model", "j", "--judge-base-url", f"http://127.0.0.1:{port}/v1"]
    code, err = run_cli([*args, "--judge-api-key-env", "GATEWAY_KEY"], capsys)
    assert code == 3 and f"--judge-base-url http://127.0.0.1:{port}/v1: nothing listens" in err


@pytest.mark.slow
@pytest.mark.parametrize(
    ("agent", "key", "variable"),
    [
        pytest.param(
            "claude-code", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", marks=pytest.mark.claude
        ),
        pytest.param("codex-exec", "OPENAI_API_KEY", "OPENAI_BASE_URL", marks=pytest.mark.codex),
    ],
)
def test_the_user_s_own_gateway_variable_is_checked_too(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    agent: str,
    key: str,
    variable: str,
) -> None:
    """Claude Code reaches the `ANTHROPIC_BASE_URL` of the user's environment (the runner
    passes it through when no `--base-url` is given), Codex's built-in provider the
    `OPENAI_BASE_URL` (written into its config as `openai_base_url`): the same wait, the same
    refusal, before any agent starts."""
    from tests.support import agent_or_skip

    agent_or_skip(agent.split("-")[0])
    monkeypatch.setenv(key, "sk-ant-reach-000000000003")
    port = closed_port()
    monkeypatch.setenv(variable, f"http://127.0.0.1:{port}")
    runs = tmp_path / "runs"
    args = ["run", "--repo", str(ROOT / "agentic-evals"), "--runs-dir", str(runs)]
    code, err = run_cli([*args, "--agent", agent], capsys)
    assert code == 3 and f"{variable} http://127.0.0.1:{port}: nothing listens" in err
    assert not runs.exists() or not any(runs.iterdir())


# Leftovers, eleventh session: with no endpoint given, each agent reaches its provider's default
# endpoint for the login it has (its adapter's `default_endpoints`); on this machine (no
# network) those hosts do not resolve, and each attempt waited out its timeout.
DEFAULT_HOSTS = [
    pytest.param("codex-exec", "OPENAI_API_KEY", "api.openai.com", marks=pytest.mark.codex),
    pytest.param("claude-code", "ANTHROPIC_API_KEY", "api.anthropic.com", marks=pytest.mark.claude),
    pytest.param(
        "gemini-cli",
        "GEMINI_API_KEY",
        "generativelanguage.googleapis.com",
        marks=pytest.mark.gemini,
    ),
]
_KEYS = ("OPENAI_API_KEY", "CODEX_API_KEY", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN")
_KEYS += ("ANTHROPIC_BASE_URL", "OPENAI_BASE_URL", "GEMINI_API_KEY", "GOOGLE_API_KEY")


@pytest.fixture
def no_keys(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in _KEYS:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def _offline_or_skip(host: str) -> None:
    try:
        socket.getaddrinfo(host, 443)
    except socket.gaierror:
        return
    pytest.skip(f"{host} resolves here: the test needs a machine without a network")


@pytest.mark.parametrize(("agent", "key", "host"), DEFAULT_HOSTS)
def test_run_refuses_the_agents_default_endpoint_that_does_not_resolve(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    no_keys: pytest.MonkeyPatch,
    agent: str,
    key: str,
    host: str,
) -> None:
    """A key in the environment and no endpoint: the run stops before anything runs, in one
    line naming the host and how to point the agent elsewhere (on `main`: every attempt
    waited for the default endpoint until its timeout)."""
    from tests.support import agent_or_skip

    agent_or_skip(agent.split("-")[0])
    _offline_or_skip(host)
    no_keys.setenv(key, "sk-reach-default-000000000001")
    runs = tmp_path / "runs"
    args = ["run", "--repo", str(ROOT / "agentic-evals"), "--runs-dir", str(runs)]
    started = time.monotonic()
    code, err = run_cli([*args, "--agent", agent], capsys)
    assert code == 3 and time.monotonic() - started < 30, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    assert f"the {agent} agent's default model endpoint" in err, err
    assert f"the host name {host!r} does not resolve" in err, err
    assert "--base-url URL --model NAME" in err and "--behaviors DIR" in err, err
    assert not runs.exists() or not any(runs.iterdir())


@pytest.mark.codex
def test_a_chatgpt_login_is_checked_at_chatgpts_endpoint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], no_keys: pytest.MonkeyPatch
) -> None:
    """Codex logged in with ChatGPT (`--auth-from` a home whose auth.json holds tokens, no
    key) reaches ChatGPT's Codex backend, not the OpenAI API."""
    from tests.support import agent_or_skip

    agent_or_skip("codex")
    _offline_or_skip("chatgpt.com")
    login = tmp_path / "login"
    login.mkdir()
    tokens = {"id_token": "x.y.z", "access_token": "a.b.c", "refresh_token": "rt-reach-000001"}
    (login / "auth.json").write_text(json.dumps({"OPENAI_API_KEY": None, "tokens": tokens}))
    args = ["run", "--repo", str(ROOT / "agentic-evals"), "--runs-dir", str(tmp_path / "runs")]
    code, err = run_cli([*args, "--agent", "codex-exec", "--auth-from", str(login)], capsys)
    assert code == 3 and "https://chatgpt.com/backend-api/codex: the host name" in err, err


def test_the_login_decides_the_default_endpoint(
    tmp_path: Path, no_keys: pytest.MonkeyPatch
) -> None:
    """The endpoint each agent would use, as its adapter declares it; another endpoint, the
    scripted model, the user's own variable or a login this cannot tell give none (the run goes
    ahead as before)."""
    from evaluator.adapters.claude.runner import ClaudeCodeRunner
    from evaluator.adapters.codex.runner import CodexExecRunner
    from evaluator.adapters.gemini.runner import GeminiCliRunner
    from evaluator.agents.base import ModelEndpoint

    codex = object.__new__(CodexExecRunner)
    claude = object.__new__(ClaudeCodeRunner)
    gemini = object.__new__(GeminiCliRunner)
    plain = ModelEndpoint(model=None)
    assert [r.default_endpoint(plain) for r in (codex, claude, gemini)] == [None] * 3
    no_keys.setenv("OPENAI_API_KEY", "sk-reach-login-0001")
    no_keys.setenv("ANTHROPIC_AUTH_TOKEN", "sk-ant-reach-login-0001")
    no_keys.setenv("GOOGLE_API_KEY", "reach-login-0001")
    assert codex.default_endpoint(plain) == "https://api.openai.com/v1"
    assert claude.default_endpoint(plain) == "https://api.anthropic.com"
    assert gemini.default_endpoint(plain) == "https://generativelanguage.googleapis.com/"
    for other in (
        ModelEndpoint(model="m", base_url="http://127.0.0.1:9/v1"),
        ModelEndpoint(model=None, scripted=True),
    ):
        assert [r.default_endpoint(other) for r in (codex, claude, gemini)] == [None] * 3
    no_keys.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")
    no_keys.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    assert claude.default_endpoint(plain) is None
    assert codex.default_endpoint(plain) is None
    no_keys.delenv("OPENAI_BASE_URL")
    # Codex's login file: its tokens, its key, its own mode; a key beside it is undecided.
    login = tmp_path / "auth.json"
    with_login = ModelEndpoint(model=None, auth_from=tmp_path)
    assert codex.default_endpoint(with_login) is None  # a key in the environment too
    no_keys.delenv("OPENAI_API_KEY")
    for content, expected in [
        ({"tokens": {"access_token": "a"}}, "https://chatgpt.com/backend-api/codex"),
        ({"OPENAI_API_KEY": "sk-reach-login-0002"}, "https://api.openai.com/v1"),
        ({"auth_mode": "apikey", "tokens": {"access_token": "a"}}, "https://api.openai.com/v1"),
        ({"OPENAI_API_KEY": "sk-reach-login-0003", "tokens": {"access_token": "a"}}, None),
        ({}, None),
    ]:
        login.write_text(json.dumps(content))
        assert codex.default_endpoint(with_login) == expected, content
    login.write_text("{not json")
    assert codex.default_endpoint(with_login) is None
    # The user's own OPENAI_BASE_URL is the endpoint of every login, checked as such.
    login.write_text(json.dumps({"auth_mode": "apikey", "OPENAI_API_KEY": "sk-reach-login-0004"}))
    no_keys.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    assert codex.default_endpoint(with_login) is None


@pytest.mark.codex
def test_the_scripted_model_is_not_held_to_the_default_endpoint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], no_keys: pytest.MonkeyPatch
) -> None:
    """`--behaviors` serves the scripted model on this machine: a key for the default
    endpoint in the environment changes nothing, and the case runs."""
    from tests.support import agent_or_skip

    agent_or_skip("codex")
    no_keys.setenv("OPENAI_API_KEY", "sk-reach-default-000000000002")
    behaviors = ROOT / "agentic-evals/targets/db-migrations/behaviors/follows-skill"
    runs = tmp_path / "runs"
    args = ["run", "--repo", str(ROOT / "agentic-evals"), "--runs-dir", str(runs)]
    args += ["--agent", "codex-exec", "--behaviors", str(behaviors)]
    code, err = run_cli([*args, "--case", "routing-add-column"], capsys)
    assert code == 0 and "default model endpoint" not in err, err
    assert any(runs.iterdir())


# Leftovers 11b: the model judge is an agent CLI too; with `--judge-model` and no
# `--judge-base-url` it reaches its agent's default endpoint for the login it has, and each judged
# entry waited that out. The same pre-check, from the same adapter data.
JUDGE_HOSTS = [
    pytest.param("codex", "OPENAI_API_KEY", "api.openai.com", marks=pytest.mark.codex),
    pytest.param("claude", "ANTHROPIC_API_KEY", "api.anthropic.com", marks=pytest.mark.claude),
    pytest.param(
        "gemini", "GEMINI_API_KEY", "generativelanguage.googleapis.com", marks=pytest.mark.gemini
    ),
]


@pytest.mark.parametrize(("judge", "key", "host"), JUDGE_HOSTS)
def test_run_refuses_the_judges_default_endpoint_that_does_not_resolve(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    no_keys: pytest.MonkeyPatch,
    judge: str,
    key: str,
    host: str,
) -> None:
    """Only the judge's key is set: the run stops before anything runs, in one line naming
    the judge's host and `--judge-base-url` (on `main`: the judge was not checked, and the run
    went on to the agent's own missing credentials)."""
    from tests.support import agent_or_skip

    agent_or_skip(judge)
    _offline_or_skip(host)
    no_keys.setenv(key, "sk-reach-judge-000000000001")
    runs = tmp_path / "runs"
    args = ["run", "--repo", str(ROOT / "agentic-evals"), "--runs-dir", str(runs)]
    args += ["--judge-model", "j", "--judge-agent", judge, "--judge", "model"]
    started = time.monotonic()
    code, err = run_cli(args, capsys)
    assert code == 3 and time.monotonic() - started < 30, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    assert "judge's default model endpoint" in err, err
    assert f"the host name {host!r} does not resolve" in err, err
    assert "--judge-base-url URL" in err and "--judge rules" in err, err
    assert not runs.exists() or not any(runs.iterdir())


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One case run with the scripted model (Codex), to judge again."""
    from tests.support import agent_or_skip

    agent_or_skip("codex")
    runs = tmp_path_factory.mktemp("judged") / "runs"
    behaviors = ROOT / "agentic-evals/targets/db-migrations/behaviors/follows-skill"
    args = ["run", "--repo", str(ROOT / "agentic-evals"), "--runs-dir", str(runs)]
    args += ["--agent", "codex-exec", "--behaviors", str(behaviors)]
    with pytest.raises(SystemExit) as exit_info:
        main([*args, "--case", "routing-add-column"])
    assert exit_info.value.code in (0, None)
    (run_dir,) = [p for p in runs.iterdir() if p.is_dir() and not p.name.startswith(".")]
    return run_dir


@pytest.mark.codex
@pytest.mark.claude
def test_judge_refuses_the_default_endpoint_and_rules_checks_nothing(
    finished_run: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    no_keys: pytest.MonkeyPatch,
) -> None:
    """`judge` with a model and no endpoint: exit 3 at once, one line. `--judge rules` asks no
    model, so nothing is built, checked or called, whatever the judge's endpoint (on `main` a
    closed `--judge-base-url` stopped `--judge rules` too)."""
    import evaluator.grader
    import evaluator.pipeline.reachable
    from tests.support import agent_or_skip

    agent_or_skip("claude")
    _offline_or_skip("api.anthropic.com")
    no_keys.setenv("ANTHROPIC_API_KEY", "sk-ant-reach-judge-000000000002")
    scratch = ["--scratch-root", str(tmp_path / "scratch")]
    judged = ["judge", str(finished_run), *scratch, "--judge-model", "j", "--judge-agent", "claude"]
    code, err = run_cli(judged, capsys)
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 3 and len(lines) == 1, err
    assert "the Claude Code judge's default model endpoint https://api.anthropic.com" in err, err

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("--judge rules checked or built a model judge")

    no_keys.setattr(evaluator.pipeline.reachable, "unreachable", never)
    no_keys.setattr(evaluator.grader, "make_grader", never)
    closed = ["--judge-base-url", f"http://127.0.0.1:{closed_port()}/v1"]
    for extra in ([], closed):
        code, err = run_cli([*judged, *extra, "--judge", "rules"], capsys)
        assert code in (0, 1) and "endpoint" not in err and "Traceback" not in err, err
