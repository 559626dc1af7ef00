"""A mistyped `--base-url` (docs/first-hour.md, "30 November 2026"): an endpoint that refuses
connections made every attempt wait out its timeout (five minutes under Codex, `Reconnecting...
waiting for network`) before each case ended `blocked: environment`. It is now one line and exit
3 before anything runs; a reachable endpoint, a URL behind a proxy and a slow one go ahead."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from evaluator.cli.main import main
from evaluator.pipeline.reachable import unreachable
from tests.support import claude_or_skip

ROOT = Path(__file__).resolve().parents[1]


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
@pytest.mark.claude
def test_the_user_s_own_gateway_variable_is_checked_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Claude Code reaches the `ANTHROPIC_BASE_URL` of the user's environment (the runner
    passes it through when no `--base-url` is given): the same wait, the same refusal, before
    any agent starts."""
    claude_or_skip()
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-reach-000000000003")
    port = closed_port()
    monkeypatch.setenv("ANTHROPIC_BASE_URL", f"http://127.0.0.1:{port}")
    runs = tmp_path / "runs"
    args = ["run", "--repo", str(ROOT / "agentic-evals"), "--runs-dir", str(runs)]
    code, err = run_cli([*args, "--agent", "claude-code"], capsys)
    assert code == 3 and f"ANTHROPIC_BASE_URL http://127.0.0.1:{port}: nothing listens" in err
    assert not runs.exists() or not any(runs.iterdir())
